/** A measured figure as the report shows it. */
export interface Figure {
  metric: string
  value: number
  unit: string
  /** The same measure of the baseline, in the same unit. */
  baseline?: number
  baselineName?: string
  /** value / baseline. */
  ratio?: number
  /** Human text of the target, for example '≥ 0.50'. */
  target?: string
  /** Undefined when the figure has no target. */
  pass?: boolean
}

/** A correctness check; a failed one fails the run. */
export interface Check {
  name: string
  ok: boolean
  detail: string
}

/** What one scenario produced. */
export interface ScenarioOutcome {
  id: number
  title: string
  figures: Figure[]
  checks: Check[]
  /** Explanations for the report: misses, causes, what would reach a target. */
  notes: string[]
  /** Set when the scenario could not run (for example a protocol not mounted yet). */
  skipped?: string
  seconds: number
}

/** A target on a ratio: at least `min`, at most `max`. */
export interface RatioTarget {
  min?: number
  max?: number
}

/** Builds a figure compared to a baseline, with pass/miss against a ratio target. */
export function ratioFigure(input: {
  metric: string
  value: number
  baseline: number
  baselineName: string
  unit: string
  target?: RatioTarget
  /**
   * The ratio as baseline / value: for a cost such as CPU per request, where the target
   * reads "the baseline's cost is at least half of Folio's".
   */
  baselineOverValue?: boolean
}): Figure {
  const [top, bottom] = input.baselineOverValue ? [input.baseline, input.value] : [input.value, input.baseline]
  const ratio = bottom > 0 ? top / bottom : Number.NaN
  const target = input.target
  return {
    metric: input.metric,
    value: input.value,
    unit: input.unit,
    baseline: input.baseline,
    baselineName: input.baselineName,
    ratio,
    target: target ? describeTarget(target) : undefined,
    pass: target ? meets(ratio, target) : undefined,
  }
}

/** A figure with an absolute target (for example peak memory under a limit). */
export function limitFigure(input: {
  metric: string
  value: number
  unit: string
  max: number
  baseline?: number
  baselineName?: string
}): Figure {
  return {
    metric: input.metric,
    value: input.value,
    unit: input.unit,
    baseline: input.baseline,
    baselineName: input.baselineName,
    ratio: input.baseline !== undefined && input.baseline > 0 ? input.value / input.baseline : undefined,
    target: `≤ ${input.max} ${input.unit}`,
    pass: input.value <= input.max,
  }
}

function describeTarget(target: RatioTarget): string {
  const parts: string[] = []
  if (target.min !== undefined) parts.push(`≥ ${target.min.toFixed(2)}`)
  if (target.max !== undefined) parts.push(`≤ ${target.max.toFixed(2)}`)
  return parts.join(' and ')
}

function meets(ratio: number, target: RatioTarget): boolean {
  if (Number.isNaN(ratio)) return false
  if (target.min !== undefined && ratio < target.min) return false
  if (target.max !== undefined && ratio > target.max) return false
  return true
}

/** Collects the checks and figures of a scenario while it runs. */
export class Recorder {
  readonly figures: Figure[] = []
  readonly checks: Check[] = []
  readonly notes: string[] = []

  /** Records a check; returns whether it held. */
  check(name: string, ok: boolean, detail: string): boolean {
    this.checks.push({ name, ok, detail })
    return ok
  }

  figure(figure: Figure): Figure {
    this.figures.push(figure)
    return figure
  }

  note(text: string): void {
    this.notes.push(text)
  }
}
