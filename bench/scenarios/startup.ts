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
    record.check(
      'Folio starts and answers on a new and on an existing data folder',
      fresh.ms > 0 && again.every((s) => s.ms > 0),
      `${fresh.ms.toFixed(0)} ms new, ${again.map((s) => s.ms.toFixed(0)).join(' / ')} ms existing`,
    )
  },
}

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
