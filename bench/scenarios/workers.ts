import { availableParallelism } from 'node:os'
import { startBaseline } from '../baselines/launch.js'
import { currentLock, uploadFile, wopiAccess, type WopiAccess } from '../folio-api.js'
import { startFolioProcess } from '../folio-process.js'
import { jsonCall } from '../http.js'
import { describeLoad, runLoad, type LoadResult, type LoadStep } from '../load.js'
import { ratioFigure, type Recorder } from '../results.js'
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

interface WorkerRun {
  lock: LoadResult
  checkFileInfo: LoadResult
}

/**
 * Scenario 9: the lock cycle and CheckFileInfo with FOLIO_WORKERS=1 and 2 on one SQLite
 * data folder, each against the bare server measured right before it.
 */
export const workers: Scenario = {
  id: 9,
  title: 'Several processes: FOLIO_WORKERS=1 and 2',
  async run(ctx: ScenarioContext, record: Recorder) {
    const { options } = ctx
    const dataDir = await ctx.workDir('workers')
    const runs = new Map<number, WorkerRun>()
    let infoBytes = 0
    for (const count of [1, 2]) {
      const folio = await startFolioProcess({
        dataDir,
        env: { FOLIO_WORKERS: String(count) },
        label: `Folio (${count} workers)`,
      })
      try {
        const token = await folio.signIn()
        const files: WopiAccess[] = []
        for (let i = 0; i < options.connections; i++) {
          const { id } = await uploadFile(folio, token, `workers-${count}-${i}.docx`, 1024)
          files.push(await wopiAccess(folio, token, id))
        }
        const spec = {
          connections: options.connections,
          seconds: options.loadSeconds,
          warmupSeconds: options.warmupSeconds,
        }
        const infoPath = files[0]?.filePath ?? '/'
        infoBytes = Buffer.byteLength((await jsonCall(folio.url, 'GET', infoPath)).text)
        const infoSteps: LoadStep[][] = [[{ method: 'GET', path: infoPath }]]
        ctx.log(`${count} worker(s): lock cycle, then CheckFileInfo`)
        const lock = await runLoad({ ...spec, url: folio.url, sequences: files.map(lockCycle) })
        const checkFileInfo = await runLoad({ ...spec, url: folio.url, sequences: infoSteps })
        record.check(
          `${count} worker(s): every lock-cycle and CheckFileInfo request answered 200`,
          [lock, checkFileInfo].every((r) => r.failedStatus === 0 && r.socketErrors === 0 && r.completed > 0),
          `lock cycle: ${describeLoad(lock)}; CheckFileInfo: ${describeLoad(checkFileInfo)}`,
        )
        const strays: string[] = []
        for (const [index, file] of files.entries()) {
          const held = await currentLock(folio, file)
          if (held !== '' && held !== `workers-lock-${index}`) strays.push(`file ${index}: "${held}"`)
        }
        record.check(
          `${count} worker(s): after the run every file is unlocked or locked by its own connection`,
          strays.length === 0,
          strays.length === 0 ? `${files.length} files checked` : strays.slice(0, 5).join(', '),
        )
        runs.set(count, { lock, checkFileInfo })
      } finally {
        await folio.stop()
      }
    }
    // One bare-server figure per kind, measured after Folio so both counts face the same.
    const bare = await startBaseline('bare-server')
    let bareLock: LoadResult
    let bareInfo: LoadResult
    try {
      const spec = { connections: options.connections, seconds: options.loadSeconds, warmupSeconds: options.warmupSeconds }
      bareLock = await runLoad({
        ...spec,
        url: bare.url,
        sequences: [[{ method: 'POST', path: '/wopi/files/x?access_token=y' }]],
      })
      bareInfo = await runLoad({ ...spec, url: bare.url, sequences: [[{ method: 'GET', path: `/wopi/files/x?access_token=y&bytes=${infoBytes}` }]] })
    } finally {
      await bare.stop()
    }
    const one = runs.get(1)
    const two = runs.get(2)
    if (!one || !two) return
    for (const [count, run] of [[1, one], [2, two]] as const) {
      record.figure(ratioFigure({
        metric: `lock-cycle requests/s, ${count} worker(s)`,
        value: run.lock.rps,
        baseline: bareLock.rps,
        baselineName: 'bare node:http (one process)',
        unit: 'req/s',
        target: { min: 0.5 },
      }))
      record.figure(ratioFigure({
        metric: `CheckFileInfo requests/s, ${count} worker(s)`,
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
    const cores = availableParallelism()
    record.note(
      `This machine has ${cores} core(s), shared by Folio, the primary process and wrk (one thread per ` +
        'connection), so two workers can use at most what wrk leaves. CheckFileInfo only reads, and ' +
        'SQLite in WAL mode serves readers in parallel, so on a machine with more cores than the load ' +
        'generator needs it should grow close to linearly with workers until the cores run out. The ' +
        'lock cycle writes: every commit takes the one SQLite write lock and an fsync, and each ' +
        'process group-commits only its own writes, so workers add CPU for the request work but not ' +
        'commits; beyond a few workers the write lock, not the CPU, bounds it (PostgreSQL does not ' +
        'have that bound).',
    )
  },
}
