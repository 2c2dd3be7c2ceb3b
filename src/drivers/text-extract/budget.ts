import type { TextSink } from './text-sink.js'

/** Ends an extraction early: the document cannot be read within its limits. */
export class ExtractionStop extends Error {
  constructor(readonly reason: string) {
    super(reason)
    this.name = 'ExtractionStop'
  }
}

/**
 * What one extraction may still spend: time until `deadline` (ms since the epoch) and
 * uncompressed bytes up to `maxInflated`; `done()` once the sink holds all it may.
 */
export class Budget {
  private inflatedBytes = 0

  constructor(
    readonly sink: TextSink,
    private readonly deadline: number,
    private readonly maxInflated: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws once the time is up. */
  check(): void {
    if (this.now() > this.deadline) throw new ExtractionStop('took longer than the time limit')
  }

  /** Counts bytes coming out of a decompressor; throws past the bound (a zip bomb). */
  inflated(bytes: number): void {
    this.inflatedBytes += bytes
    if (this.inflatedBytes > this.maxInflated) throw new ExtractionStop('expands past the decompression bound')
  }

  done(): boolean {
    return this.sink.full
  }

  get msLeft(): number {
    return Math.max(0, this.deadline - this.now())
  }
}
