import type { BenchOptions } from './options.js'
import type { Recorder } from './results.js'

/** What every scenario gets from the runner. */
export interface ScenarioContext {
  options: BenchOptions
  /** A fresh, empty folder of this run (deleted at the end). */
  workDir(name: string): Promise<string>
  /** A progress line on stderr. */
  log(message: string): void
}

/** One numbered scenario of the bench (numbered as in issue 6). */
export interface Scenario {
  id: number
  title: string
  run(ctx: ScenarioContext, record: Recorder): Promise<void>
}

/** Thrown when a scenario cannot run here (for example a protocol not mounted yet). */
export class SkipScenario extends Error {
  override name = 'SkipScenario'
}

/** The median of a non-empty list. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const upper = sorted[middle] ?? Number.NaN
  if (sorted.length % 2 === 1) return upper
  return ((sorted[middle - 1] ?? upper) + upper) / 2
}
