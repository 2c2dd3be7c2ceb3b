import type { LoadSpec, LoadStep } from './load.js'
import { runLoad } from './load.js'
import { alternateRounds, describeRounds, medianOfRounds, roundLength, type RoundsResult } from './rounds.js'
import { ratioFigure, type RatioTarget, type Recorder } from './results.js'
import type { ScenarioContext } from './scenario.js'
import { cpuMicrosPerRequest } from './server-cpu.js'

/** bare CPU per request / Folio CPU per request, for the lock cycle, CheckFileInfo and GetFile. */
export const CPU_RATIO_TARGET: RatioTarget = { min: 0.5 }

/** A server under load: where to send requests and whose CPU to read. */
export interface LoadedServer {
  url: string
  pids: LoadSpec['serverPids']
}

/** The servers compared, with the sequences their connections cycle through. */
export interface Contender {
  server: LoadedServer
  /** The sequences for a run of `connections` connections. */
  sequences(connections: number): LoadStep[][]
}

/** Each server's rounds at one connection count. */
export interface Comparison<K extends string> {
  connections: number
  loads: Record<K, RoundsResult>
}

/**
 * Runs every contender at each of options.connectionCounts, in turns round after round
 * (bench/rounds.ts), reading each server's CPU around every measured run.
 */
export async function compareAtEachCount<K extends string>(
  ctx: ScenarioContext,
  what: string,
  contenders: Record<K, Contender>,
): Promise<Comparison<K>[]> {
  const { options } = ctx
  const comparisons: Comparison<K>[] = []
  for (const connections of options.connectionCounts) {
    ctx.log(
      `${what}: ${Object.keys(contenders).join(', ')} in turns, ${connections} connections, ${options.loadRounds} round(s)`,
    )
    const runs = {} as Record<K, (round: number) => ReturnType<typeof runLoad>>
    for (const name of Object.keys(contenders) as K[]) {
      const { server, sequences } = contenders[name]
      const spec: LoadSpec = {
        url: server.url,
        connections,
        sequences: sequences(connections),
        serverPids: server.pids,
        seconds: 0,
        warmupSeconds: 0,
      }
      runs[name] = (round) => runLoad({ ...spec, ...roundLength(options, round) })
    }
    comparisons.push({ connections, loads: await alternateRounds(options.loadRounds, runs) })
  }
  return comparisons
}

/** Microseconds of server CPU per request over a server's rounds (NaN when not read). */
export function cpuPerRequest(result: RoundsResult): number {
  return result.serverCpu === undefined ? Number.NaN : cpuMicrosPerRequest([result.serverCpu])
}

/**
 * The figures of Folio against a baseline at each connection count: the servers' own CPU
 * per request first (the figure of record, with the target), then requests per second and
 * latencies (reported only), and a note with every round's requests per second.
 */
export function recordComparison<K extends string>(
  record: Recorder,
  input: {
    name: string
    comparisons: Comparison<K>[]
    folio: K
    /** What the measured side is called in the notes ('Folio' unless said). */
    folioName?: string
    baseline: K
    baselineName: string
    /** On the CPU ratio (baseline / Folio); the same at every connection count. */
    cpuTarget?: RatioTarget
    /** Whether to add latency rows (true unless said). */
    latencies?: boolean
  },
): void {
  const { name, comparisons, baselineName } = input
  const folioName = input.folioName ?? 'Folio'
  const sides = (c: Comparison<K>) => ({ measured: c.loads[input.folio], base: c.loads[input.baseline] })
  for (const c of comparisons) {
    const { measured, base } = sides(c)
    record.figure(
      ratioFigure({
        metric: `${name} server CPU per request, ${c.connections} connections (ratio ${baselineName} / ${folioName})`,
        value: cpuPerRequest(measured),
        baseline: cpuPerRequest(base),
        baselineName,
        unit: 'µs',
        target: input.cpuTarget,
        baselineOverValue: true,
      }),
    )
  }
  for (const c of comparisons) {
    const { measured, base } = sides(c)
    const taken = medianOfRounds(measured)
    record.figure(
      ratioFigure({
        metric: `${name} requests/s, ${c.connections} connections${taken === undefined ? '' : ` (${taken})`}`,
        value: measured.rps,
        baseline: base.rps,
        baselineName,
        unit: 'req/s',
      }),
    )
  }
  for (const c of input.latencies === false ? [] : comparisons) {
    const { measured, base } = sides(c)
    for (const [label, value, baseline] of [
      ['p50', measured.p50Ms, base.p50Ms],
      ['p99', measured.p99Ms, base.p99Ms],
    ] as const) {
      record.figure(
        ratioFigure({
          metric: `${name} latency ${label}, ${c.connections} connections`,
          value,
          baseline,
          baselineName,
          unit: 'ms',
        }),
      )
    }
  }
  const named = (c: Comparison<K>) => ({ [baselineName]: c.loads[input.baseline], [folioName]: c.loads[input.folio] })
  record.note(comparisons.map((c) => describeRounds(`${name} at ${c.connections} connections`, named(c))).join(' '))
}
