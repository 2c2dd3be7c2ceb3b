import { MINIMAL_SERVER_SOURCE } from '../baselines/minimal-server.js'
import { delay, freePort, spawnServer, type ChildServer } from '../child.js'
import { startFolioProcess } from '../folio-process.js'
import { readMemory } from '../memory.js'
import { MiB } from '../options.js'
import { limitFigure, ratioFigure, type Recorder } from '../results.js'
import { median, type Scenario, type ScenarioContext } from '../scenario.js'

const STARTS = 3
/** How long a started server is left alone before its idle memory is read. */
const SETTLE_MS = 1000

/** Start time and idle resident memory of one start. */
interface Start {
  ms: number
  idleBytes: number
}

/**
 * Scenario 7: time from spawning the process to the first answered request
 * (GET /healthz, polled every 2 ms), and resident memory once idle, against the
 * smallest node:http server started the same way.
 */
export const startup: Scenario = {
  id: 7,
  title: 'Start-up time and idle memory',
  async run(ctx: ScenarioContext, record: Recorder) {
    const dataDir = await ctx.workDir('startup')
    // First start: creates the database, runs migrations, makes the admin account.
    const fresh = await measure(() => startFolioProcess({ dataDir }))
    const again: Start[] = []
    for (let i = 0; i < STARTS; i++) again.push(await measure(() => startFolioProcess({ dataDir })))
    const minimal: Start[] = []
    for (let i = 0; i < STARTS; i++) minimal.push(await measure(startMinimal))

    const baseline = { ms: median(minimal.map((s) => s.ms)), idle: median(minimal.map((s) => s.idleBytes)) }
    const baselineName = 'minimal node:http (node -e)'
    record.figure(
      ratioFigure({
        metric: 'start to first answer, new data folder (migrations, admin account)',
        value: fresh.ms,
        baseline: baseline.ms,
        baselineName,
        unit: 'ms',
      }),
    )
    record.figure(
      ratioFigure({
        metric: `start to first answer, existing data folder (median of ${STARTS})`,
        value: median(again.map((s) => s.ms)),
        baseline: baseline.ms,
        baselineName,
        unit: 'ms',
      }),
    )
    record.figure(
      ratioFigure({
        metric: 'idle resident memory after start',
        value: median(again.map((s) => s.idleBytes)) / MiB,
        baseline: baseline.idle / MiB,
        baselineName,
        unit: 'MiB',
      }),
    )
    // Issue 14's absolute targets: first answer within 500 ms on an existing data folder,
    // and at most 70 MiB resident when idle.
    record.figure(
      limitFigure({
        metric: 'start to first answer, existing data folder (target)',
        value: median(again.map((s) => s.ms)),
        unit: 'ms',
        max: 500,
      }),
    )
    record.figure(
      limitFigure({
        metric: 'idle resident memory after start (target)',
        value: median(again.map((s) => s.idleBytes)) / MiB,
        unit: 'MiB',
        max: 70,
      }),
    )
    record.note(STARTUP_NOTE)
    record.check(
      'Folio starts and answers on a new and on an existing data folder',
      fresh.ms > 0 && again.every((s) => s.ms > 0),
      `${fresh.ms.toFixed(0)} ms new, ${again.map((s) => s.ms.toFixed(0)).join(' / ')} ms existing`,
    )
  },
}

const STARTUP_NOTE = [
  'Targets (issue 14): first answer within 500 ms on an existing data folder, idle RSS at most 70 MiB.',
  'Folio runs from one esbuild bundle (dist/bundle/, scripts/bundle.mjs) since issue 14: Node\'s',
  'ES module loader resolving, reading and linking some 560 modules was about half the CPU time',
  'of a start. In side runs (same VM, load average 3-5) the first answer came after 312 instead',
  'of 503 ms (this scenario, each side its own run) and the CPU time to it (utime+stime, which',
  'load inflates less than wall time) fell from 570 to 290 ms (median of 7 interleaved starts);',
  'what remains is mostly V8 compiling the bundle, Fastify building its routes, SQLite opening',
  'and the migrations check. The web UI\'s gzip and brotli forms are written by the build',
  '(brotli quality 11 took about 0.1 s of CPU at every start). Idle memory (/proc/<pid>/smaps):',
  'about 45 MiB are pages of the node binary and its libraries (the minimal server maps 38 of',
  'them), the V8 heap about 17 MiB, the rest malloc. What took it from 78 to about 67 MiB',
  '(side runs, median RSS 1 s after each of 4-5 starts, as measured here): validation with',
  'zod/mini instead of classic zod, whose 600 KB (every method on every schema, every locale)',
  'no longer load (78 to 72); the portal API\'s routes and schemas built on its first request,',
  'in a Fastify instance of its own (src/protocols/http/lazy-mount.ts; 72 to 69.6; the first',
  'portal request then adds them back); node --v8-pool-size=1, one V8 helper thread instead',
  'of four and their malloc arenas (about 1 MiB; CPU per CheckFileInfo unchanged within noise,',
  'bench/cpu-per-request.ts); one full collection once Folio listens (collectStartUpGarbage in',
  'src/process/collector.ts, with no node flag; about 0.6 MiB); and short local names in the bundle, whose',
  'source V8 keeps in memory (0.8 instead of 1.2 MB, 0.3 MiB). Earlier: undici and jose load',
  'on first use (only with ONLYOFFICE Docs or a WOPI client configured) and prom-client only',
  'with metrics on; npm start (and deploy/) caps the young generation at 2 MiB',
  '(--max-semi-space-size=2; the default of up to 16 MiB was 10-13 MiB more idle, and 1 MiB',
  'cost the lock cycle about 30% of its CPU, scenario 1\'s note). The first use of V8\'s',
  'optimizing compiler costs about 4 MiB of resident memory (its code and its working memory):',
  'with --no-opt a fresh Folio read 64.4 instead of 68.6 MiB. Start-up used it for a few small',
  'functions called often while modules load (path normalisation, the bundle\'s name helper);',
  'on Node.js 20, npm start\'s --ticks-before-optimization=20 --max-bytecode-size-for-early-opt=0 (20 profiler',
  'ticks before a function is optimized instead of 3, and none on its first tick) leave them',
  'unoptimized: no function is optimized before Folio answers, and it idles at about 66 MiB',
  'with the 2 MiB young generation (70.5 with the default tiering; with 10 ticks one function',
  'still was, and a Folio with the 1 MiB young generation read 68.5 as without them). The',
  'price is a slower warm-up: in the first second of a CheckFileInfo load a fresh Folio',
  'answered 12,000-13,000 requests against 25,000-29,000 with the old flags,',
  'the same from the third second on. A Folio that has served requests has paid those 4 MiB',
  '(about 100 MiB resident 5 s after 12 s of WOPI load, with the old flags as with the new).',
  'Preparing the SQLite statements on first use instead of at start (11 instead of 161',
  'prepared by the time Folio answers) left idle memory where it was (68.6 MiB): their memory',
  'fits in what start-up leaves free in malloc\'s arenas.',
  'Tried and left out: MALLOC_ARENA_MAX=2 (the same 1 MiB as the smaller V8 pool, not on top',
  'of it, and a launcher cannot set it through node flags); V8\'s --lite-mode reaches less',
  'but gives up the optimizing compiler the hot path needs. This figure is read 1 s after',
  'start; on Node.js 20 npm start\'s --no-memory-reducer (scenario 2\'s note: V8 shrinking a quiet heap left',
  'every later load slower) keeps Folio there while it idles (68.8 MiB at 60 s) instead of',
  'letting it fall to about 64.7 MiB some seconds after start.',
  'Node.js 24 (README "Node.js"): npm start keeps only flags Node.js documents. The two tiering',
  'flags no longer exist there; --no-parallel-scavenge --no-memory-reducer changed idle memory',
  'by nothing (82.3 MiB without, 82.5 and 84.0 with; this scenario, side runs at load 8-11),',
  'and with Maglev and Turbofan both off a fresh Folio read 77.4 MiB, so the optimizing',
  'compilers again cost start-up about 5 MiB. Folio idles at about 82 MiB on Node.js 24',
  '(smaps: about 9 MiB more resident pages of the node binary, 127 MB on disk against 99,',
  'and about 8 MiB more anonymous memory) against 66 on Node.js 20;',
  'the minimal server 48.2 against 44.4.',
].join(' ')

async function measure(start: () => Promise<ChildServer>): Promise<Start> {
  const server = await start()
  try {
    await delay(SETTLE_MS)
    return { ms: server.startMs, idleBytes: readMemory(server.pid).rss }
  } finally {
    await server.stop()
  }
}

async function startMinimal(): Promise<ChildServer> {
  const port = await freePort()
  return spawnServer({
    label: 'minimal node:http',
    args: ['-e', MINIMAL_SERVER_SOURCE],
    env: { PORT: String(port) },
    port,
    readyPath: '/healthz',
  })
}
