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
    'Folio\'s speed and memory, each figure measured against a baseline in the same run on the',
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
    machine.busyAtStart.length > 0
      ? `busy at start: ${machine.busyAtStart.join(', ')}`
      : 'none busy at start'
  lines.push(
    `- Other processes: ${busy}; ` +
      `during the run they used ${otherLoad.otherCpuSeconds.toFixed(0)} CPU-seconds ` +
      `(${otherLoad.otherCores.toFixed(2)} of ${machine.cores} cores on average)` +
      (otherLoad.otherCores > 0.1
        ? '. Other work was running during the measurement, so ratios are noisier than on an idle machine.'
        : '.'),
  )
  const checkText =
    failed.length === 0
      ? 'every correctness check passed'
      : `${failed.length} correctness check(s) FAILED`
  lines.push(
    `- Outcome: ${checkText}; ` +
      `${misses.length === 0 ? 'every target met' : `${misses.length} target(s) missed`}`,
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
  lines.push('Ratios are Folio / baseline. For rates and throughputs higher is better; for times and')
  lines.push('memory lower is better. Targets come from issue 14 (and issue 6 before it); figures without one are reported only.')
  lines.push('')

  lines.push('## Correctness checks', '')
  lines.push('A failed check fails the run (non-zero exit); timings never do.', '')
  for (const outcome of outcomes) {
    for (const check of outcome.checks) {
      lines.push(`- ${check.ok ? 'PASS' : '**FAIL**'} (${outcome.id}) ${check.name}: ${check.detail}`)
    }
  }
  lines.push('')

  const withNotes = outcomes.filter((o) => o.notes.length > 0 || o.skipped)
  if (withNotes.length > 0) {
    lines.push('## Notes, misses and what would reach them', '')
    for (const outcome of withNotes) {
      lines.push(`### ${outcome.id}. ${outcome.title}`, '')
      if (outcome.skipped) lines.push(`Skipped: ${outcome.skipped}.`, '')
      for (const note of outcome.notes) lines.push(note, '')
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
  can cycle through its own requests (its own file and lock ID). autocannon was tried first: on this
  2-core machine it tops out near 25-30k requests/s, below what the bare server answers with wrk
  (35-50k), so it would understate the baseline and flatter Folio's ratio. Each load run follows a
  warm-up run of the same kind; the baseline is measured right before Folio. The lock cycle and
  CheckFileInfo of scenarios 1, 8 and 9 are split into 3 rounds of 5 s (1 in quick mode), the servers
  taken in turns (bare, Folio, bare, Folio, ...; bench/rounds.ts), and each figure is the median of
  its rounds, whose values the scenario's notes list: on a shared VM one server's throughput
  moved by up to a third within a minute (a Folio lock cycle of 28,000 then 38,000 requests/s),
  and taking the servers in turns exposes each to the same drift.
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
