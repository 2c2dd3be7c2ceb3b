import { startBaseline } from '../baselines/launch.js'
import { currentLock, uploadFile, wopiAccess, type WopiAccess } from '../folio-api.js'
import { startFolioProcess, type FolioProcess } from '../folio-process.js'
import { jsonCall } from '../http.js'
import { describeLoad, type LoadStep } from '../load.js'
import { ratioFigure, type Recorder } from '../results.js'
import type { Scenario, ScenarioContext } from '../scenario.js'
import { compareAtEachCount, CPU_RATIO_TARGET, recordComparison, type Comparison } from '../server-comparison.js'
import { processFamily } from '../server-cpu.js'

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
        for (let i = 0; i < Math.max(...options.connectionCounts); i++) {
          const { id } = await uploadFile(folio, token, `workers-${count}-${i}.docx`, 1024)
          files.push(await wopiAccess(folio, token, id))
        }
        prepared.set(count, { folio, files, infoPath: files[0]?.filePath ?? '/' })
      }
      const one = prepared.get(1)
      const two = prepared.get(2)
      if (!one || !two) return
      const infoBytes = Buffer.byteLength((await jsonCall(one.folio.url, 'GET', one.infoPath)).text)
      // The workers are the first process's children; their CPU counts with its own.
      const server = (run: Prepared) => ({ url: run.folio.url, pids: processFamily(run.folio.pid) })
      const bareServer = { url: bare.url, pids: [bare.pid] }
      const lockOf = (run: Prepared) => ({
        server: server(run),
        sequences: (n: number) => run.files.slice(0, n).map(lockCycle),
      })
      const infoOf = (run: Prepared) => ({
        server: server(run),
        sequences: () => [[{ method: 'GET', path: run.infoPath }]],
      })
      const lock = await compareAtEachCount(ctx, 'lock cycle', {
        bare: { server: bareServer, sequences: () => [[{ method: 'POST', path: '/wopi/files/x?access_token=y' }]] },
        one: lockOf(one),
        two: lockOf(two),
      })
      const info = await compareAtEachCount(ctx, 'CheckFileInfo', {
        bare: {
          server: bareServer,
          sequences: () => [[{ method: 'GET', path: `/wopi/files/x?access_token=y&bytes=${infoBytes}` }]],
        },
        one: infoOf(one),
        two: infoOf(two),
      })

      for (const [count, run] of [
        [1, one],
        [2, two],
      ] as const) {
        const key = count === 1 ? 'one' : 'two'
        const loads = [...lock, ...info].map((c) => c.loads[key])
        record.check(
          `${count} worker(s): every lock-cycle and CheckFileInfo request answered 200`,
          loads.every((r) => r.failedStatus === 0 && r.socketErrors === 0 && r.completed > 0),
          loads.map(describeLoad).join('; '),
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
    } finally {
      for (const folio of started) await folio.stop().catch(() => undefined)
      await bare.stop()
    }
  },
}

type Workers = 'bare' | 'one' | 'two'

function addFigures(record: Recorder, lock: Comparison<Workers>[], info: Comparison<Workers>[]): void {
  const baselineName = 'bare node:http (one process)'
  for (const [name, comparisons] of [
    ['lock cycle', lock],
    ['CheckFileInfo', info],
  ] as const) {
    for (const [count, key] of [
      [1, 'one'],
      [2, 'two'],
    ] as const) {
      recordComparison(record, {
        name: `${name}, ${count} worker(s)`,
        comparisons,
        folio: key,
        folioName: `${count} worker(s)`,
        baseline: 'bare',
        baselineName,
        cpuTarget: CPU_RATIO_TARGET,
      })
    }
    for (const { connections, loads } of comparisons) {
      record.figure(
        ratioFigure({
          metric: `${name} requests/s, 2 workers against 1, ${connections} connections`,
          value: loads.two.rps,
          baseline: loads.one.rps,
          baselineName: '1 worker, same run',
          unit: 'req/s',
        }),
      )
    }
  }
}
