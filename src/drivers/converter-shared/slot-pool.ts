/**
 * A fixed number of slots (one per office process) and a bounded queue of callers
 * waiting for one, served in order. A caller beyond the queue is refused at once, so a
 * burst of conversions cannot pile up without end.
 */
export class SlotPool {
  private readonly free: number[]
  private readonly waiting: Array<{ grant: (slot: number) => void; refuse: (error: Error) => void }> = []

  constructor(
    size: number,
    private readonly queueSize: number,
  ) {
    this.free = Array.from({ length: size }, (_, slot) => slot)
  }

  /** A free slot now or after the callers ahead; `busy()` is thrown when the queue is full. */
  acquire(signal: AbortSignal | undefined, busy: () => Error): Promise<number> {
    const slot = this.free.shift()
    if (slot !== undefined) return Promise.resolve(slot)
    if (this.waiting.length >= this.queueSize) return Promise.reject(busy())
    return new Promise<number>((resolve, reject) => {
      const entry = {
        grant: (granted: number) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(granted)
        },
        refuse: (error: Error) => {
          signal?.removeEventListener('abort', onAbort)
          reject(error)
        },
      }
      const onAbort = () => {
        const index = this.waiting.indexOf(entry)
        if (index >= 0) this.waiting.splice(index, 1)
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.waiting.push(entry)
    })
  }

  /** Hands the slot to the next caller, or frees it. */
  release(slot: number): void {
    const next = this.waiting.shift()
    if (next) next.grant(slot)
    else this.free.push(slot)
  }

  /** Refuses every caller still waiting. */
  close(error: () => Error): void {
    for (const entry of this.waiting.splice(0)) entry.refuse(error())
  }
}
