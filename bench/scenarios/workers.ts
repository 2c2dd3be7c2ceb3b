import { startBaseline } from '../baselines/launch.js'
import { currentLock, uploadFile, wopiAccess, type WopiAccess } from '../folio-api.js'
import { startFolioProcess, type FolioProcess } from '../folio-process.js'
import { jsonCall } from '../http.js'
import { describeLoad, runLoad, type LoadStep } from '../load.js'
import { ratioFigure, type Recorder } from '../results.js'
import { alternateRounds, describeRounds, medianOfRounds, roundLength, type RoundsResult } from '../rounds.js'
import type { Scenario, ScenarioContext } from '../scenario.js'

/** Lock, RefreshLock, Unlock on a connection's own file with its own lock ID. */
function lockCycle(access: WopiAccess, index: number): LoadStep[] {
  const headers = { 'X-WOPI-Lock': `workers-lock-${index}` }
  return ['LOCK', 'REFRESH_LOCK', 'UNLOCK'].map((override) => ({
    method: 'POST',
    path: access.filePath,
    headers: { ...headers, 'X-WOPI-Override': override },
  }))
}

/** A started Folio with its files, ready for load. */
interface Prepared {
  folio: FolioProcess
  files: WopiAccess[]
  infoPath: string
}

/**
 * Scenario 9: the lock cycle and CheckFileInfo with FOLIO_WORKERS=1 and 2, each on its
 * own SQLite data folder, against the bare server; the three taken in turns, round after
 * round (bench/rounds.ts).
 */
export const workers: Scenario = {
  id: 9,
  title: 'Several processes: FOLIO_WORKERS=1 and 2',
  async run(ctx: ScenarioContext, record: Recorder) {
    const { options } = ctx
    const started: FolioProcess[] = []
    const bare = await startBaseline('bare-server')
    try {
      const prepared = new Map<1 | 2, Prepared>()
      for (const count of [1, 2] as const) {
        const folio = await startFolioProcess({
          dataDir: await ctx.workDir(`workers-${count}`),
          env: { FOLIO_WORKERS: String(count) },
          label: `Folio (${count} workers)`,
        })
        started.push(folio)
        const token = await folio.signIn()
        const files: WopiAccess[] = []
        for (let i = 0; i < options.connections; i++) {
          const { id } = await uploadFile(folio, token, `workers-${count}-${i}.docx`, 1024)
          files.push(await wopiAccess(folio, token, id))
        }
        prepared.set(count, { folio, files, infoPath: files[0]?.filePath ?? '/' })
      }
      const one = prepared.get(1)
      const two = prepared.get(2)
      if (!one || !two) return
      const infoBytes = Buffer.byteLength((await jsonCall(one.folio.url, 'GET', one.infoPath)).text)
      const rounds = options.loadRounds
      const connections = options.connections
      const load = (url: string, sequences: LoadStep[][]) => (round: number) =>
        runLoad({ connections, sequences, ...roundLength(options, round), url })
      const lockOf = (run: Prepared) => load(run.folio.url, run.files.map(lockCycle))
      const infoOf = (run: Prepared) => load(run.folio.url, [[{ method: 'GET', path: run.infoPath }]])

      ctx.log(`lock cycle: bare server, 1 worker, 2 workers in turns, ${rounds} round(s)`)
      const lock = await alternateRounds(rounds, {
        bare: load(bare.url, [[{ method: 'POST', path: '/wopi/files/x?access_token=y' }]]),
        one: lockOf(one),
        two: lockOf(two),
      })
      ctx.log(`CheckFileInfo: bare server, 1 worker, 2 workers in turns, ${rounds} round(s)`)
      const info = await alternateRounds(rounds, {
        bare: load(bare.url, [[{ method: 'GET', path: `/wopi/files/x?access_token=y&bytes=${infoBytes}` }]]),
        one: infoOf(one),
        two: infoOf(two),
      })

      for (const [count, run] of [[1, one], [2, two]] as const) {
        const key = count === 1 ? 'one' : 'two'
        record.check(
          `${count} worker(s): every lock-cycle and CheckFileInfo request answered 200`,
          [lock[key], info[key]].every((r) => r.failedStatus === 0 && r.socketErrors === 0 && r.completed > 0),
          `lock cycle: ${describeLoad(lock[key])}; CheckFileInfo: ${describeLoad(info[key])}`,
        )
        const strays: string[] = []
        for (const [index, file] of run.files.entries()) {
          const held = await currentLock(run.folio, file)
          if (held !== '' && held !== `workers-lock-${index}`) strays.push(`file ${index}: "${held}"`)
        }
        record.check(
          `${count} worker(s): after the run every file is unlocked or locked by its own connection`,
          strays.length === 0,
          strays.length === 0 ? `${run.files.length} files checked` : strays.slice(0, 5).join(', '),
        )
      }
      addFigures(record, lock, info)
      for (const [what, loads] of [['Lock cycle', lock], ['CheckFileInfo', info]] as const) {
        record.note(describeRounds(what, { 'bare node:http': loads.bare, '1 worker': loads.one, '2 workers': loads.two }))
      }
    } finally {
      for (const folio of started) await folio.stop().catch(() => undefined)
      await bare.stop()
    }
  },
}

type ByServer = Record<'bare' | 'one' | 'two', RoundsResult>

function addFigures(record: Recorder, lock: ByServer, info: ByServer): void {
  const taken = medianOfRounds(lock.one)
  const of = taken === undefined ? '' : ` (${taken})`
  const bareLock = lock.bare
  const bareInfo = info.bare
  const one = { lock: lock.one, checkFileInfo: info.one }
  const two = { lock: lock.two, checkFileInfo: info.two }
  for (const [count, run] of [[1, one], [2, two]] as const) {
    record.figure(ratioFigure({
      metric: `lock-cycle requests/s, ${count} worker(s)${of}`,
      value: run.lock.rps,
      baseline: bareLock.rps,
      baselineName: 'bare node:http (one process)',
      unit: 'req/s',
      target: { min: 0.5 },
    }))
    record.figure(ratioFigure({
      metric: `CheckFileInfo requests/s, ${count} worker(s)${of}`,
      value: run.checkFileInfo.rps,
      baseline: bareInfo.rps,
      baselineName: 'bare node:http (one process)',
      unit: 'req/s',
      target: { min: 0.6 },
    }))
  }
  record.figure(ratioFigure({
    metric: 'lock-cycle requests/s, 2 workers against 1',
    value: two.lock.rps,
    baseline: one.lock.rps,
    baselineName: '1 worker, same run',
    unit: 'req/s',
  }))
  record.figure(ratioFigure({
    metric: 'CheckFileInfo requests/s, 2 workers against 1',
    value: two.checkFileInfo.rps,
    baseline: one.checkFileInfo.rps,
    baselineName: '1 worker, same run',
    unit: 'req/s',
  }))
}
