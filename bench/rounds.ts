import type { LoadResult } from './load.js'
import type { BenchOptions } from './options.js'
import { median } from './scenario.js'
import type { ServerCpu } from './server-cpu.js'

/** Seconds after the first round's warm-up that let a later round's connections settle. */
const LATER_WARMUP_SECONDS = 1

/**
 * Length and warm-up of round `round` (from 0) when a load run of options.loadSeconds is
 * split into options.loadRounds rounds: the servers are warm after their first round.
 */
export function roundLength(options: BenchOptions, round: number): { seconds: number; warmupSeconds: number } {
  return {
    seconds: Math.max(1, Math.round(options.loadSeconds / options.loadRounds)),
    warmupSeconds: round === 0 ? options.warmupSeconds : Math.min(options.warmupSeconds, LATER_WARMUP_SECONDS),
  }
}

/** Several load runs of one server, summed up by their medians. */
export interface RoundsResult extends LoadResult {
  /** Requests per second of each round, in order. */
  perRound: number[]
}

/**
 * Runs each server's load in turn, round after round (A, B, A, B, ...), and gives each
 * server the median of its rounds. On a shared machine throughput drifts over tens of
 * seconds with other tenants' load; taking the servers in turns exposes them to the same
 * drift, and the median keeps one disturbed round from deciding a figure. Replies that
 * failed are summed over every round, so a failure in any round still fails its check.
 */
export async function alternateRounds<K extends string>(
  rounds: number,
  runs: Record<K, (round: number) => Promise<LoadResult>>,
): Promise<Record<K, RoundsResult>> {
  const names = Object.keys(runs) as K[]
  const results = new Map<K, LoadResult[]>(names.map((name) => [name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const name of names) results.get(name)?.push(await runs[name](round))
  }
  const summary = {} as Record<K, RoundsResult>
  for (const name of names) summary[name] = summarize(results.get(name) ?? [])
  return summary
}

function summarize(loads: LoadResult[]): RoundsResult {
  const sum = (pick: (load: LoadResult) => number) => loads.reduce((total, load) => total + pick(load), 0)
  return {
    rps: median(loads.map((load) => load.rps)),
    p50Ms: median(loads.map((load) => load.p50Ms)),
    p99Ms: median(loads.map((load) => load.p99Ms)),
    completed: sum((load) => load.completed),
    failedStatus: sum((load) => load.failedStatus),
    socketErrors: sum((load) => load.socketErrors),
    failures: loads.find((load) => load.failures !== undefined)?.failures,
    serverCpu: sumCpu(loads),
    perRound: loads.map((load) => load.rps),
  }
}

/** The server CPU of every round summed, when each round read it. */
function sumCpu(loads: LoadResult[]): ServerCpu | undefined {
  let ticks = 0
  let requests = 0
  for (const { serverCpu } of loads) {
    if (serverCpu === undefined) return undefined
    ticks += serverCpu.ticks
    requests += serverCpu.requests
  }
  return loads.length > 0 ? { ticks, requests } : undefined
}

/**
 * How a figure of `result` was taken, for its metric's name: "median of 3 rounds, taken in
 * turns", or undefined for a single run (quick mode).
 */
export function medianOfRounds(result: RoundsResult): string | undefined {
  const rounds = result.perRound.length
  return rounds > 1 ? `median of ${rounds} rounds, taken in turns` : undefined
}

/** One line naming each server's requests per second round by round, for a scenario's note. */
export function describeRounds(what: string, results: Record<string, RoundsResult>): string {
  const servers = Object.entries(results).map(
    ([name, result]) => `${name} ${result.perRound.map((rps) => Math.round(rps).toLocaleString('en-US')).join(', ')}`,
  )
  return `${what}, requests per second of each round in the order run: ${servers.join('; ')}.`
}
