import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout } from 'node:timers/promises'
import { readCpuTicks, type ServerCpu } from './server-cpu.js'

/**
 * The load generator: wrk (Debian's `wrk` package), one thread per connection.
 * wrk and not autocannon because on this 2-core machine autocannon tops out
 * near 25-30k requests/s, below what a bare node:http server answers (35-50k
 * with wrk): it would understate the baseline and flatter Folio's ratio. One
 * thread per connection lets each connection run its own sequence (Lock,
 * RefreshLock, Unlock on its own file) with no cross-talk.
 */

/** One request of a sequence a connection cycles through. */
export interface LoadStep {
  method: string
  /** Path and query, from the server's root. */
  path: string
  headers?: Record<string, string>
}

export interface LoadSpec {
  /** Base URL of the server (http://127.0.0.1:port). */
  url: string
  connections: number
  seconds: number
  warmupSeconds: number
  /** Connection i cycles through sequences[i % sequences.length], in order. */
  sequences: LoadStep[][]
  /**
   * The server's processes, whose CPU time is read right before and after the measured run;
   * a function is asked after the warm-up (PostgreSQL backends a pool opens on demand).
   */
  serverPids?: number[] | (() => Promise<number[]>)
}

/** What one load run measured. */
export interface LoadResult {
  /** Completed requests per second. */
  rps: number
  p50Ms: number
  p99Ms: number
  completed: number
  /** Replies with a status of 400 or more. */
  failedStatus: number
  /** Connect, read, write errors and timeouts. */
  socketErrors: number
  /**
   * When some replies failed: what a short second run of the same sequences answered, by
   * status, with the start of one body of each ("409 x120: the file is locked…"). wrk can
   * count statuses only through a Lua response() hook, which slows it down, so the measured
   * run has none and this one is made only after a failure.
   */
  failures?: string
  /** The server's CPU over the measured run (not the warm-up), when serverPids was given. */
  serverCpu?: ServerCpu
}

/** Fails with a clear message when wrk is not installed. */
export async function assertWrkInstalled(): Promise<void> {
  try {
    await run('wrk', ['--version'])
  } catch (error) {
    // wrk --version prints its banner and exits 1; only a missing binary is a problem.
    if (hasCode(error, 'ENOENT')) {
      throw new Error('the bench needs wrk: apt-get install wrk (Debian/Ubuntu)')
    }
  }
}

/**
 * How long the measured run waits after the warm-up. wrk stops mid-request: what the
 * warm-up sent last is still answered after wrk has exited, and a warm-up Unlock answered
 * after the measured run's first Lock of the same file would make that run's next call a
 * 409 (seen about once in 70 runs with two workers). Far above any reply time of a run.
 */
const SETTLE_MS = 500

/** A warm-up run (JIT, open connections), then the measured run. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), 'folio-bench-wrk-'))
  try {
    const script = join(dir, 'load.lua')
    await writeFile(script, luaScript(spec.sequences))
    if (spec.warmupSeconds > 0) {
      await runWrk(spec, script, spec.warmupSeconds)
      await setTimeout(SETTLE_MS)
    }
    const pids = typeof spec.serverPids === 'function' ? await spec.serverPids() : (spec.serverPids ?? [])
    const ticksBefore = readCpuTicks(pids)
    const result = await runWrk(spec, script, spec.seconds)
    // Read as soon as wrk exits: the replies wrk counted are all served; the few requests
    // still in flight (at most one per connection) add their CPU to hundreds of thousands.
    if (spec.serverPids !== undefined) {
      result.serverCpu = { ticks: readCpuTicks(pids) - ticksBefore, requests: result.completed }
    }
    if (result.failedStatus > 0) {
      const diagnosis = join(dir, 'failures.lua')
      await writeFile(diagnosis, luaScript(spec.sequences, true))
      await setTimeout(SETTLE_MS)
      const output = await run('wrk', wrkArgs(spec, diagnosis, FAILURE_SAMPLE_SECONDS))
      result.failures = output
        .split('\n')
        .find((l) => l.startsWith('BENCH_FAILURES '))
        ?.slice('BENCH_FAILURES '.length)
        .trim()
    }
    return result
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** How long the second run that sorts failed replies by status lasts. */
const FAILURE_SAMPLE_SECONDS = 2

function wrkArgs(spec: LoadSpec, script: string, seconds: number): string[] {
  return [`-t${spec.connections}`, `-c${spec.connections}`, `-d${seconds}s`, '--timeout', '30s', '-s', script, spec.url]
}

async function runWrk(spec: LoadSpec, script: string, seconds: number): Promise<LoadResult> {
  const output = await run('wrk', wrkArgs(spec, script, seconds))
  const line = output.split('\n').find((l) => l.startsWith('BENCH_RESULT '))
  if (!line) throw new Error(`wrk printed no result:\n${output}`)
  const parsed: unknown = JSON.parse(line.slice('BENCH_RESULT '.length))
  const value = (name: string): number => {
    const found = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, name) : 0
    return typeof found === 'number' ? found : 0
  }
  const durationSeconds = value('durationUs') / 1e6
  return {
    rps: durationSeconds > 0 ? value('requests') / durationSeconds : 0,
    p50Ms: value('p50Us') / 1000,
    p99Ms: value('p99Us') / 1000,
    completed: value('requests'),
    failedStatus: value('status'),
    socketErrors: value('connect') + value('read') + value('write') + value('timeout'),
  }
}

/**
 * The Lua script: one sequence per thread (= connection), results as one JSON line. With
 * `countStatuses`, each thread also counts replies by status and keeps the start of one
 * failed body per status, and done() prints them as one BENCH_FAILURES line.
 */
function luaScript(sequences: LoadStep[][], countStatuses = false): string {
  const table = sequences.map((steps) => `{ ${steps.map(luaStep).join(', ')} }`).join(',\n  ')
  return `-- generated by bench/load.ts
local sequences = {
  ${table}
}
local counter = 0
local threads = {}
function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
  table.insert(threads, thread)
end
local prepared = {}
local step = 0
-- wrk calls request() once on thread 0 before it starts, only to check the request;
-- that call must not move the sequence on, or thread 0 would start mid-cycle.
local verifying = false
function init(args)
  local steps = sequences[(index % #sequences) + 1]
  for i, s in ipairs(steps) do
    prepared[i] = wrk.format(s.method, s.path, s.headers)
  end
  verifying = index == 0
end
function request()
  if verifying then
    verifying = false
    return prepared[1]
  end
  step = (step % #prepared) + 1
  return prepared[step]
end
${countStatuses ? STATUS_COUNTING : ''}
function done(summary, latency, requests)
  ${countStatuses ? 'reportStatuses()' : ''}
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,' ..
    '"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect, e.read, e.write, e.timeout))
end
`
}

/** The Lua of the failure run: counts per status in each thread, summed in done(). */
const STATUS_COUNTING = `
statuses = {}
samples = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status >= 400 and samples[status] == nil then
    samples[status] = string.sub(body or "", 1, 80)
  end
end
function reportStatuses()
  local total, sample = {}, {}
  for _, t in ipairs(threads) do
    for status, n in pairs(t:get("statuses")) do total[status] = (total[status] or 0) + n end
    for status, text in pairs(t:get("samples")) do sample[status] = sample[status] or text end
  end
  local parts = {}
  for status, n in pairs(total) do
    local text = sample[status] and (": " .. string.gsub(sample[status], "%s+", " ")) or ""
    table.insert(parts, status .. " x" .. n .. text)
  end
  table.sort(parts)
  io.write("BENCH_FAILURES " .. table.concat(parts, "; ") .. "\\n")
end
`

function luaStep(step: LoadStep): string {
  const headers = Object.entries(step.headers ?? {})
    .map(([name, value]) => `[${luaString(name)}] = ${luaString(value)}`)
    .join(', ')
  return `{ method = ${luaString(step.method)}, path = ${luaString(step.path)}, headers = { ${headers} } }`
}

function luaString(text: string): string {
  return JSON.stringify(text)
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { output: stdout + stderr }))
      else resolve(stdout + stderr)
    })
  })
}

function hasCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code
}

/** "1234 ok, 3 failed statuses, 0 socket errors" for messages. */
export function describeLoad(result: LoadResult): string {
  const { completed, failedStatus, socketErrors, failures } = result
  const sorted =
    failures === undefined ? '' : ` (a second run of ${FAILURE_SAMPLE_SECONDS} s answered ${failures || 'nothing'})`
  return `${completed} replies, ${failedStatus} with status ≥ 400${sorted}, ${socketErrors} socket errors`
}
