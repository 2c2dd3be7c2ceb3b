import { startBaseline } from '../baselines/launch.js'
import { currentLock, uploadFile, wopiAccess, wopiPost, type WopiAccess } from '../folio-api.js'
import { startFolioProcess } from '../folio-process.js'
import { describeLoad, runLoad, type LoadStep } from '../load.js'
import { alternateRounds, describeRounds, medianOfRounds, roundLength, type RoundsResult } from '../rounds.js'
import { ratioFigure, type Recorder } from '../results.js'
import type { Scenario, ScenarioContext } from '../scenario.js'

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
      for (let i = 0; i < options.connections; i++) {
        const { id } = await uploadFile(folio, token, `lock-${i}.docx`, 1024)
        files.push(await wopiAccess(folio, token, id))
      }
      const spec = { connections: options.connections, sequences: files.map(lockCycle) }

      const rounds = options.loadRounds
      ctx.log(`bare server, then Folio: ${options.connections} connections, ${rounds} round(s) of ${roundLength(options, 0).seconds} s`)
      const bare = await startBaseline('bare-server')
      let loads: Record<'bare' | 'folio', RoundsResult>
      try {
        loads = await alternateRounds(rounds, {
          bare: (round) => runLoad({ ...spec, ...roundLength(options, round), url: bare.url }),
          folio: (round) => runLoad({ ...spec, ...roundLength(options, round), url: folio.url }),
        })
      } finally {
        await bare.stop()
      }
      const { bare: baseline, folio: measured } = loads

      record.check(
        'every Lock, RefreshLock and Unlock of the load run answered 200',
        measured.failedStatus === 0 && measured.socketErrors === 0 && measured.completed > 0,
        describeLoad(measured),
      )
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
      addFigures(record, measured, baseline)
      record.note(describeRounds('Lock cycle', { 'bare node:http': baseline, Folio: measured }))
      // The note explains the figure whether the target is met or missed.
      record.note(LOCK_CYCLE_NOTE)
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

/** Where a lock call's CPU goes (from perf profiles). */
const LOCK_CYCLE_NOTE = [
  'Every Lock, RefreshLock and Unlock is a durable SQLite write (WAL, synchronous = FULL):',
  'the driver group-commits the writes that arrive together (one commit, one fsync per batch;',
  'each caller resolves only after its commit is durable), so the commit\'s share of the CPU',
  'falls as the load grows. Issue 14 cut the per-call work the profile showed: one read per',
  'call (the file, the token\'s user, the section of the file\'s folder and, for a sharee, the',
  'share that reaches the file, in one statement returning a raw row mapped by index; the',
  'level it decides is carried to the lock use case, which reads nothing more), and a lock',
  'change is an UPDATE of the lock columns alone returning a raw row (the generic patch UPDATE',
  'evaluated a CASE per column and rewrote the title and updated_at index entries), made on',
  'the row the call read, with no read before it. On SQLite that one read is answered, while',
  'nothing else was committed, from a memo of the connection checked before every use against',
  'PRAGMA data_version (any other connection\'s commit) and total_changes() (its own writes);',
  'a lock change of its own puts its new row into the memo right after its commit, so',
  'the next call of the cycle skips the read (src/drivers/metadata-sqlite/commit-checked-memo.ts;',
  'bench/cpu-per-request.ts lock, medians of 3 interleaved runs at load 12-15: 89 µs of CPU per',
  'call before, 56 after; lock runs are the noisiest, as other work\'s fsyncs share the disk).',
  '/wopi is answered by a route table on',
  'node:http before Fastify (src/protocols/http/raw-routes.ts), which cut Folio\'s CPU per lock',
  'call by about a tenth (bench/cpu-per-request.ts lock). What remains per call (perf record',
  'with node --perf-basic-prof): the commit and its fsync, the socket write (which the bare',
  'server pays too), the lock UPDATE and garbage collection. Beyond one process: FOLIO_WORKERS (scenario',
  '9) runs several on one data folder; the lock decisions stay correct across them (the',
  'compare-and-set on the row\'s revision), but every commit takes the one SQLite write lock.',
  'Tried without a gain beyond the noise (bench/cpu-per-request.ts lock 1 8, 3 interleaved',
  'runs each: 50 µs per call before, 52 with it): skipping the SAVEPOINT and RELEASE of a',
  'batch of one write (a perf profile puts them at about 1% of a lock call; the lock UPDATE',
  'with RETURNING is about 12%, the commit about 9%, the socket writes and the HTTP parse most',
  'of the rest). The memo\'s check is dominated by PRAGMA data_version, which takes a read',
  'lock on the WAL index to answer (about 3 µs in a tight loop on a loaded machine, against',
  '0.1 µs for total_changes()); it is now asked only when the WAL-index header changed since',
  'it was last asked (scenario 2\'s note), which every lock commit does, so a lock call still',
  'pays it about once per batch (30.5 instead of 31.5 µs, within the noise). In a perf',
  'profile on the VM of the latest run, young-generation',
  'garbage collection took about 11% of a lock call\'s samples (5% of a CheckFileInfo\'s): the',
  'calls waiting for their group commit keep their objects alive through collections of the 1',
  'MiB young generation npm start sets; 4 MiB took about 10% off the CPU per lock call but',
  'raises idle memory over its target (scenario 2\'s note). On Node.js 20 npm start added',
  '--no-parallel-scavenge: that small young generation is collected on the main thread alone,',
  'without handing work to V8\'s helper thread and waiting for it: a lock call took a median',
  '61.4 instead of 64.2 µs of CPU (5 interleaved pairs, lower in each), CheckFileInfo the same',
  'within noise, idle memory unchanged. A lock change of a row the memo holds at the expected',
  'revision is now written without RETURNING, its new row derived from the remembered one',
  '(every write of a row moves its revision, so the row the UPDATE matched is the row that was',
  'read): in a loop the UPDATE with RETURNING cost 5.6 µs, without it 2.8 (SQLite builds the',
  'returned row in a temporary table), and a lock call\'s CPU went from a median 36.7 to 34.8 µs',
  '(3 interleaved pairs on the AMD EPYC (Zen 5) VM of the latest run, lower in each). On that',
  'VM a perf profile of the lock cycle puts about 24% of the samples in the socket write,',
  '12% in young-generation collection, 9% in the UPDATE, 8% in the commit and its fsync (a',
  'batch holds about 40 calls at 50 connections), 7% in the memo\'s check and 8% in the HTTP',
  'parse. Measured and left: dropping the partial index on lock_expires_at (about 0.15 µs per',
  'UPDATE, but counting locked files would scan every row) and the virtual extension column',
  '(about 0.35 µs per UPDATE, which recomputes it). The young generation: at 100 connections',
  '(this scenario) a batch holds about 90 calls, and every call parsed and waiting for its',
  'commit is alive when a young-generation collection runs; a heap snapshot taken in the',
  'group commit\'s flush with 100 calls queued held about 6.5 KB more per waiting call than one',
  'taken between batches (node:http\'s request and response, the suspended async functions,',
  'their promises and closures, the rows). With the 1 MiB young generation npm start had,',
  'about 650 KB of those were copied at nearly every collection (21 per 1000 calls, 11-17 ms',
  'of collection per 1000 calls; bench/cpu-per-request.ts lock with 100 connections), and a',
  'lock call took 74-79 µs of CPU; with 2 MiB 52 µs (9 collections per 1000 calls, 7 ms), with',
  '4 MiB 52 µs; in side runs this scenario measured 0.34 and 0.38 of the bare server with 1 MiB,',
  '0.56 with 2 (0.45 in the full run after them, one run of each side; this VM\'s figures',
  'moved a lot from run to run).',
  'npm start now sets 2 MiB, paid for at idle by keeping start-up\'s code away from the',
  'optimizing compiler (scenario 7). Also since the run before: a lock change, one UPDATE as',
  'the last step of its job, runs without a savepoint of its own (a failing statement is undone',
  'by SQLite alone; two statements fewer per call), the UPDATE binds positional parameters',
  '(named ones are looked up one by one through V8\'s API, about 0.6 of 3 µs in a loop), and',
  'the lock path allocates less (the access read mapped in place instead of copied in parts,',
  'no rest copy in lockOnlyChange, no per-call closure in the access check, no async function',
  'for an access level already decided or for the first compare-and-set attempt): 17.9',
  'instead of 23.8 collections per 1000 calls at 50 connections, and a median 48.7 instead of',
  '63 µs of CPU per call over 6 interleaved pairs (this VM\'s figures swing by a third between',
  'runs). Measured and left out: flushing a batch once 16 or 32 calls wait (fewer objects alive',
  'per collection, but more commits: no gain); a class instead of closures for each queued job',
  '(no change in collections beyond the noise); preparing statements on first use (no change',
  'in idle memory). The figure is now the median of three rounds of 5 s, the bare server and',
  'Folio taken in turns (Method): in three runs of this scenario with one 15 s run of each side,',
  'on the AMD EPYC VM of the latest run, Folio measured 0.57, 0.62 and 0.50 of the bare server,',
  'and within one run with rounds its rounds answered 28,376, 34,899 and 38,479 requests a',
  'second while the bare server\'s stayed within 51,000-60,400; three runs with rounds measured',
  '0.60, 0.59 and 0.56. A perf profile of this scenario (100 connections, 28.8 µs of CPU per',
  'call, bare server 14.7) on that VM puts about 28% of the samples in the socket write (most of',
  'it the kernel\'s TCP send, with waking the load generator\'s thread), 23% in the HTTP parse',
  'with the request handler run from it, 14% in the group commit\'s flush (the UPDATE about 8%),',
  'about 11% in young-generation collection and 3% in the memo\'s WAL-index read. A data',
  'folder on tmpfs (an fsync that costs nothing) measured the same within the noise (33,800 and',
  '36,800 against 37,100 and 33,800 requests a second): the lock cycle is bound by CPU, not by',
  'the disk.',
  'Since the move to Node.js 24 npm start passes neither --no-parallel-scavenge nor',
  '--no-memory-reducer (flags internal to V8, which a release may drop; README "Node.js").',
  'bench/cpu-per-request.ts on Node.js 24 at load 11-19, 3 interleaved pairs, medians without',
  'and with the two flags: lock 65.5 and 56.7 µs of CPU per call, CheckFileInfo 36.3 and 31.5',
  '(lower with the flags in 2 of 3 pairs each): a gain of about a tenth may be lost, within',
  'this machine\'s noise; the load after a quiet spell was not measured again.',
].join(' ')

function addFigures(record: Recorder, measured: RoundsResult, baseline: RoundsResult): void {
  const baselineName = 'bare node:http'
  const taken = medianOfRounds(measured)
  record.figure(
    ratioFigure({
      metric: taken === undefined ? 'lock-cycle requests/s' : `lock-cycle requests/s (${taken})`,
      value: measured.rps,
      baseline: baseline.rps,
      baselineName,
      unit: 'req/s',
      target: { min: 0.5 },
    }),
  )
  record.figure(
    ratioFigure({
      metric: 'lock-cycle latency p50',
      value: measured.p50Ms,
      baseline: baseline.p50Ms,
      baselineName,
      unit: 'ms',
    }),
  )
  record.figure(
    ratioFigure({
      metric: 'lock-cycle latency p99',
      value: measured.p99Ms,
      baseline: baseline.p99Ms,
      baselineName,
      unit: 'ms',
    }),
  )
}
