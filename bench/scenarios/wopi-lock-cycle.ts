import { startBaseline } from '../baselines/launch.js'
import { currentLock, uploadFile, wopiAccess, wopiPost, type WopiAccess } from '../folio-api.js'
import { startFolioProcess } from '../folio-process.js'
import { describeLoad, type LoadStep } from '../load.js'
import type { Recorder } from '../results.js'
import type { Scenario, ScenarioContext } from '../scenario.js'
import { compareAtEachCount, CPU_RATIO_TARGET, recordComparison, type Comparison } from '../server-comparison.js'

/** The lock cycle each connection runs on its own file, with its own lock ID. */
function lockCycle(access: WopiAccess, index: number): LoadStep[] {
  const lockId = `bench-lock-${index}`
  const step = (override: string): LoadStep => ({
    method: 'POST',
    path: access.filePath,
    headers: { 'X-WOPI-Override': override, 'X-WOPI-Lock': lockId },
  })
  return [step('LOCK'), step('REFRESH_LOCK'), step('UNLOCK')]
}

/** Scenario 1: Lock, RefreshLock, Unlock on many files, against a bare node:http server. */
export const wopiLockCycle: Scenario = {
  id: 1,
  title: 'WOPI lock cycle (Lock, RefreshLock, Unlock on many files)',
  async run(ctx: ScenarioContext, record: Recorder) {
    const { options } = ctx
    const dataDir = await ctx.workDir('lock-cycle')
    const folio = await startFolioProcess({ dataDir, cpuProfDir: options.cpuProfDir })
    const files: WopiAccess[] = []
    try {
      const token = await folio.signIn()
      for (let i = 0; i < Math.max(...options.connectionCounts); i++) {
        const { id } = await uploadFile(folio, token, `lock-${i}.docx`, 1024)
        files.push(await wopiAccess(folio, token, id))
      }
      // Connection i cycles on file i with its own lock ID; the bare server gets the same requests.
      const sequences = (connections: number) => files.slice(0, connections).map(lockCycle)
      const bare = await startBaseline('bare-server')
      let comparisons: Comparison<'bare' | 'folio'>[]
      try {
        comparisons = await compareAtEachCount(ctx, 'lock cycle', {
          bare: { server: { url: bare.url, pids: [bare.pid] }, sequences },
          folio: { server: { url: folio.url, pids: [folio.pid] }, sequences },
        })
      } finally {
        await bare.stop()
      }
      for (const { connections, loads } of comparisons) {
        record.check(
          `every Lock, RefreshLock and Unlock of the load runs at ${connections} connections answered 200`,
          loads.folio.failedStatus === 0 && loads.folio.socketErrors === 0 && loads.folio.completed > 0,
          describeLoad(loads.folio),
        )
      }
      // The run stops mid-cycle: each file is unlocked or holds its own connection's lock.
      const strays: string[] = []
      for (const [index, file] of files.entries()) {
        const lock = await currentLock(folio, file)
        if (lock !== '' && lock !== `bench-lock-${index}`) strays.push(`file ${index}: "${lock}"`)
      }
      record.check(
        'after the run every file is unlocked or locked by its own connection',
        strays.length === 0,
        strays.length === 0 ? `${files.length} files checked` : strays.slice(0, 5).join(', '),
      )
      recordComparison(record, {
        name: 'lock cycle',
        comparisons,
        folio: 'folio',
        baseline: 'bare',
        baselineName: 'bare node:http',
        cpuTarget: CPU_RATIO_TARGET,
      })
    } finally {
      await folio.stop()
    }
    await checkDurability(ctx, record, dataDir)
  },
}

/** A granted lock must survive the process dying right after the 200 (kill -9). */
async function checkDurability(ctx: ScenarioContext, record: Recorder, dataDir: string) {
  let folio = await startFolioProcess({ dataDir })
  try {
    const token = await folio.signIn()
    const { id } = await uploadFile(folio, token, 'durability.docx', 1024)
    const probe = await wopiAccess(folio, token, id)
    const locked = await wopiPost(folio, probe, 'LOCK', 'durability-probe')
    await folio.stop('SIGKILL')
    folio = await startFolioProcess({ dataDir })
    const held = await currentLock(folio, probe)
    record.check(
      'a granted lock survives kill -9 and a restart (durable in SQLite)',
      locked.status === 200 && held === 'durability-probe',
      `Lock answered ${locked.status}; after the restart GetLock says "${held}"`,
    )
  } finally {
    await folio.stop()
  }
  ctx.log('durability probe done')
}
