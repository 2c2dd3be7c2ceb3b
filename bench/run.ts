// `npm run bench [-- --quick] [--out FILE] [--only 1,3] [--cpu-prof DIR]`: measures Folio
// against baselines in the same run and writes BENCHMARKS.md. Exits non-zero when a
// correctness check fails, never because of a timing.
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { assertWrkInstalled } from './load.js'
import { describeMachine, watchOtherLoad } from './machine.js'
import { parseOptions } from './options.js'
import { writeReport } from './report.js'
import { Recorder, type ScenarioOutcome } from './results.js'
import { SkipScenario, type Scenario, type ScenarioContext } from './scenario.js'
import { conversion } from './scenarios/conversion.js'
import { docsSave } from './scenarios/docs-save.js'
import { listing } from './scenarios/listing.js'
import { scale } from './scenarios/scale.js'
import { search } from './scenarios/search.js'
import { lockContention } from './scenarios/lock-contention.js'
import { startup } from './scenarios/startup.js'
import { uploads } from './scenarios/uploads.js'
import { wopiLockCycle } from './scenarios/wopi-lock-cycle.js'
import { wopiRead } from './scenarios/wopi-read.js'
import { workers } from './scenarios/workers.js'

const SCENARIOS: Scenario[] = [
  wopiLockCycle,
  wopiRead,
  uploads,
  docsSave,
  listing,
  lockContention,
  startup,
  scale,
  workers,
  search,
  conversion,
]

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2))
  await assertWrkInstalled()
  const root = await mkdtemp(join(tmpdir(), 'folio-bench-'))
  const log = (message: string) => process.stderr.write(`[bench] ${message}\n`)
  try {
    const startedAt = new Date()
    const started = performance.now()
    const machine = await describeMachine(root)
    const otherLoad = watchOtherLoad()
    let folders = 0
    // The folders of the scenario running now, removed when it ends (see below).
    let scenarioDirs: string[] = []
    const ctx: ScenarioContext = {
      options,
      log,
      workDir: async (name) => {
        const dir = join(root, `${++folders}-${name}`)
        await mkdir(dir, { recursive: true })
        scenarioDirs.push(dir)
        return dir
      },
    }
    const selected = SCENARIOS.filter((s) => options.only.length === 0 || options.only.includes(s.id))
    const outcomes: ScenarioOutcome[] = []
    for (const scenario of selected) {
      log(`${scenario.id}. ${scenario.title}`)
      outcomes.push(await runScenario(scenario, ctx))
      // Each scenario's files go when it ends, so the next starts with the disk and the
      // page cache free of them (scenario 3 alone leaves several GiB of versions).
      for (const dir of scenarioDirs) await rm(dir, { recursive: true, force: true })
      scenarioDirs = []
    }
    const report = {
      options,
      machine,
      otherLoad: otherLoad.stop(),
      startedAt,
      seconds: (performance.now() - started) / 1000,
      outcomes,
    }
    await writeReport(report)
    const failed = outcomes.flatMap((o) => o.checks.filter((c) => !c.ok).map((c) => `${o.id}: ${c.name}: ${c.detail}`))
    const misses = outcomes.flatMap((o) => o.figures.filter((f) => f.pass === false).map((f) => `${o.id}: ${f.metric}`))
    log(`report written to ${options.out} (${report.seconds.toFixed(0)} s)`)
    for (const miss of misses) log(`target missed (not a failure): ${miss}`)
    for (const failure of failed) log(`CHECK FAILED: ${failure}`)
    // The plain closing line CI reads: correctness checks passed and failed, scenarios skipped.
    const checks = outcomes.flatMap((o) => o.checks)
    const skipped = outcomes.filter((o) => o.skipped).length
    process.stdout.write(
      `bench: ${checks.length - failed.length} passed, ${failed.length} failed` +
        (skipped > 0 ? `, ${skipped} skipped\n` : '\n'),
    )
    return failed.length === 0 ? 0 : 1
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}

/** Runs one scenario; an unexpected error becomes a failed check, a skip is reported. */
async function runScenario(scenario: Scenario, ctx: ScenarioContext): Promise<ScenarioOutcome> {
  const record = new Recorder()
  const started = performance.now()
  let skipped: string | undefined
  try {
    await scenario.run(ctx, record)
  } catch (error) {
    if (error instanceof SkipScenario) {
      skipped = error.message
      ctx.log(`skipped: ${skipped}`)
    } else {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
      record.check('the scenario ran to the end', false, message.split('\n').slice(0, 6).join(' | '))
    }
  }
  return {
    id: scenario.id,
    title: scenario.title,
    figures: record.figures,
    checks: record.checks,
    notes: record.notes,
    skipped,
    seconds: (performance.now() - started) / 1000,
  }
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`[bench] ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 2
  },
)
