import { writeFile, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { MachineInfo, OtherLoad } from './machine.js'
import type { BenchOptions } from './options.js'
import type { Figure, ScenarioOutcome } from './results.js'

/** Everything the report is written from. */
export interface RunReport {
  options: BenchOptions
  machine: MachineInfo
  otherLoad: OtherLoad
  startedAt: Date
  seconds: number
  outcomes: ScenarioOutcome[]
}

/** Writes BENCHMARKS.md (or --out) from a finished run. */
export async function writeReport(report: RunReport): Promise<void> {
  await mkdir(dirname(report.options.out), { recursive: true })
  await writeFile(report.options.out, renderReport(report))
}

/** The Markdown text of the report. */
export function renderReport(report: RunReport): string {
  const { options, machine, otherLoad, outcomes } = report
  const failed = outcomes.flatMap((o) => o.checks.filter((c) => !c.ok))
  const misses = outcomes.flatMap((o) => o.figures.filter((f) => f.pass === false))
  const lines: string[] = []
  lines.push('# Benchmarks', '')
  lines.push(
    "Folio's speed and memory, each figure measured against a baseline in the same run on the",
    'same machine (absolute times on shared machines drift; ratios hold). Produced by',
    '`npm run bench` (full) or `npm run bench -- --quick` (CI); the bench lives in `bench/`.',
    '',
  )
  lines.push('## This run', '')
  lines.push(`- Date: ${report.startedAt.toISOString()}`)
  const mode = options.quick ? 'quick' : 'full'
  lines.push(`- Command: \`${options.command}\` (${mode} mode, ${report.seconds.toFixed(0)} s)`)
  const { cpu, cores, memoryGiB, os } = machine
  lines.push(`- Machine: ${cpu}, ${cores} cores, ${memoryGiB} GiB memory, ${os}`)
  lines.push(`- Node.js: ${machine.node}`)
  lines.push(`- Disk: ${machine.disk}`)
  lines.push(`- Load generator: wrk (one thread per connection); see "Method"`)
  lines.push(`- Load average at start: ${machine.loadAtStart.join(', ')}`)
  const busy =
    machine.busyAtStart.length > 0 ? `busy at start: ${machine.busyAtStart.join(', ')}` : 'none busy at start'
  lines.push(
    `- Other processes: ${busy}; ` +
      `during the run they used ${otherLoad.otherCpuSeconds.toFixed(0)} CPU-seconds ` +
      `(${otherLoad.otherCores.toFixed(2)} of ${machine.cores} cores on average)` +
      (otherLoad.otherCores > 0.1
        ? '. Other work was running during the measurement, so ratios are noisier than on an idle machine;' +
          " server CPU per request, which counts only the server's own CPU, is much less sensitive to that than throughput."
        : '.'),
  )
  const checkText =
    failed.length === 0 ? 'every correctness check passed' : `${failed.length} correctness check(s) FAILED`
  lines.push(
    `- Outcome: ${checkText}; ` + `${misses.length === 0 ? 'every target met' : `${misses.length} target(s) missed`}`,
    '',
  )

  lines.push('## Figures', '')
  lines.push('| # | Figure | Folio | Baseline | Ratio | Target | Result |')
  lines.push('|---|---|---|---|---|---|---|')
  for (const outcome of outcomes) {
    if (outcome.skipped) {
      lines.push(`| ${outcome.id} | ${outcome.title} | skipped: ${outcome.skipped} | | | | |`)
      continue
    }
    for (const figure of outcome.figures) lines.push(figureRow(outcome.id, figure))
  }
  lines.push('')
  lines.push('Ratios are Folio / baseline, except for server CPU per request, where the ratio is')
  lines.push("baseline / Folio (the share of Folio's CPU per request the baseline needs; higher is better).")
  lines.push('CPU per request is the figure of record for load runs ("Method"); their requests per second')
  lines.push('and latencies are reported at both connection counts, without a target. For rates and')
  lines.push('throughputs higher is better; for times and memory lower is better. Targets come from issue 30')
  lines.push('(CPU per request), issue 14 and issue 6; figures without one are reported only.')
  lines.push('')

  lines.push('## Correctness checks', '')
  lines.push('A failed check fails the run (non-zero exit); timings never do.', '')
  for (const outcome of outcomes) {
    for (const check of outcome.checks) {
      lines.push(`- ${check.ok ? 'PASS' : '**FAIL**'} (${outcome.id}) ${check.name}: ${check.detail}`)
    }
  }
  lines.push('')

  if (outcomes.length > 0) {
    lines.push('## Notes of this run', '')
    lines.push(
      "Where each scenario's time goes, what was tried and what would reach a missed target:",
      '[docs/benchmarks-notes.md](docs/benchmarks-notes.md), one section per scenario.',
      '',
    )
    for (const outcome of outcomes) {
      lines.push(`### ${outcome.id}. ${outcome.title}`, '')
      if (outcome.skipped) lines.push(`Skipped: ${outcome.skipped}.`, '')
      for (const note of outcome.notes) lines.push(note, '')
      lines.push(
        `Background: [docs/benchmarks-notes.md, scenario ${outcome.id}](docs/benchmarks-notes.md#scenario-${outcome.id}).`,
        '',
      )
    }
  }

  lines.push(METHOD)
  return lines.join('\n')
}

function figureRow(id: number, figure: Figure): string {
  const base =
    figure.baseline === undefined
      ? '—'
      : `${format(figure.baseline)} ${figure.unit} (${figure.baselineName ?? 'baseline'})`
  const ratio = figure.ratio === undefined || Number.isNaN(figure.ratio) ? '—' : figure.ratio.toFixed(2)
  const result = figure.pass === undefined ? '—' : figure.pass ? 'pass' : '**miss**'
  const value = `${format(figure.value)} ${figure.unit}`
  return `| ${id} | ${figure.metric} | ${value} | ${base} | ${ratio} | ${figure.target ?? '—'} | ${result} |`
}

function format(value: number): string {
  if (!Number.isFinite(value)) return String(value)
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en')
  if (Math.abs(value) >= 10) return value.toFixed(1)
  return value.toFixed(2)
}

const METHOD = `## Method

- Folio runs as a separate process, \`node <flags> bin/folio.js serve\` with the node flags and the built
  \`dist/\` of \`npm start\` (\`--max-semi-space-size=2\` and the other flags of deploy/; README, "Deployment"),
  with a fresh temporary \`FOLIO_DATA_DIR\` on the same disk as every baseline, so its CPU is not
  shared with the load generator's and its memory can be read from \`/proc/<pid>/status\`
  (peak = \`VmHWM\`, reset before each save by writing 5 to \`/proc/<pid>/clear_refs\`, cross-checked
  by sampling \`VmRSS\` every 10 ms).
- Baselines, each its own process on the same machine and disk, measured in the same run:
  - *bare node:http* (\`bench/baselines/bare-server.ts\`): reads each request and answers a fixed reply
    of the same length as Folio's; the ceiling of any Node.js server. Same paths, headers, connections
    and durations as the Folio run.
  - *raw stream to disk + fsync* (\`bench/baselines/raw-save.ts\`): streams each request body to a file
    and fsyncs it before answering; no hashing, database or rename. Sent by the same client code.
  - *raw download + fsync* (\`bench/baselines/raw-download.ts\`): downloads a URL from a plain
    node:http server holding the same bytes, to a file, with fsync; the ceiling of an editor save.
  - *minimal node:http* (\`node -e\`, no loader): the floor of a Node.js server's start-up and memory.
- Load runs use wrk (Debian package \`wrk\`) with one thread per connection, so each connection
  can cycle through its own requests (its own file and lock ID): wrk keeps its Lua state per thread,
  and connections sharing a thread would interleave one sequence (a RefreshLock sent on a connection
  whose file another connection just unlocked). The same setting is kept for every load run so the
  scenarios compare with each other. autocannon was tried first: on a 2-core machine it tops out
  near 25-30k requests/s, below what the bare server answers with wrk (35-50k).
- **The figure of record for a load run is the server's own CPU time per request**: user + system
  ticks of the server's processes from \`/proc/<pid>/stat\`, read right before and right after each
  measured run (not the warm-up), summed over the rounds and divided by the requests wrk counted
  (\`bench/server-cpu.ts\`): for FOLIO_WORKERS (scenario 9) the first process and its workers,
  for PostgreSQL + S3 (scenario 8) Folio and the PostgreSQL backends serving its pool. Its target
  is on the ratio bare server / Folio (at least 0.50 for the lock cycle, CheckFileInfo and
  GetFile; in scenario 8 SQLite + disk / PostgreSQL + S3 at least 0.50), to be met at every
  connection count measured. On 2 cores, wrk's threads, the server and everything else on the
  machine share the CPU: the more load threads, the more CPU wrk takes from whichever server answers
  fastest, and a throughput ratio rises toward 1 (measured from outside with 32 connections, the
  lock cycle reached 0.27 of the bare server's requests per second where this report, then taken at
  100 connections, said 0.58). CPU per request counts only what the server itself spent, so the
  load generator's share of the machine cannot flatter it; what load still moves is the cost of each
  request (cache misses, and waking a load thread that went to sleep: scenario 2's notes), which is
  why it is measured at both counts and its target holds at each.
- Requests per second and latencies are reported at 32 and at 100 connections, without a target,
  so that no connection count is picked for looking best. Each comparison is split into 3 rounds of
  5 s at each count (1 round of 2 s in quick mode, which passes or fails only on correctness), the
  servers taken in turns (bare, Folio, bare, Folio, ...; bench/rounds.ts), and each throughput
  figure is the median of its rounds, whose values the scenario's notes list: on a shared VM one
  server's throughput moved by up to a third within a minute, and taking the servers in turns
  exposes each to the same drift. Each round follows a warm-up run of the same kind.
- Each scenario's folders (data folders, saved bodies) are removed when it ends, so the next
  runs without them in the disk cache (scenario 4's note: beside scenario 3's several GiB of
  versions, Folio's saves took up to twice as long).
- Saves are timed from the first byte sent to the last byte of the reply; the figure is the median
  over the repetitions (10 for 1 MiB, 3 for 100 MiB, 2 for 1 GiB), baseline and Folio interleaved.
  Before each timed save (baselines too) the bench writes, syncs and deletes a scratch file of the
  body's size (\`bench/page-cache.ts\`), so every save writes into memory the page cache has just
  freed: on a VM whose host backs memory on first touch, a 1 GiB write into memory not used lately
  took about 6 times as long, and whichever save came after a deletion got the cheap pages.
- Listing libraries are seeded straight through the SQLite store (\`openSqliteStore\`) before Folio
  starts on that data folder; a page is timed over HTTP as the median of 200 sequential calls after
  30 warm-up calls.
- Correctness checks run inside the bench; a failed one exits non-zero. Timings never fail a run.
`
