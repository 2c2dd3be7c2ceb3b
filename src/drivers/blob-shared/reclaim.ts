import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * Bytes of a body that pass between two young-generation collections while a blob is
 * stored. Node reads a socket into a fresh 64 KiB buffer per chunk; those buffers are
 * garbage as soon as they are written and hashed, but V8 frees them only at its next
 * collection, which a body's few small objects barely bring closer. Measured with a
 * 300 MiB upload (curl, raw body): left to V8, resident memory rose 35-40 MiB above idle;
 * a scavenge every 16 MiB kept the rise near 20 MiB, every 8 MiB near 11, every 4 MiB
 * near 8. Each scavenge took about 0.5 ms (--trace-gc), as almost nothing young is alive
 * mid-stream. 4 MiB, because a body Folio downloads (an ONLYOFFICE save, node:http client)
 * makes twice the garbage per byte (the socket's buffer and the parser's copy of the body):
 * at 8 MiB a 100 MiB save peaked 20-25 MiB above idle, at 4 MiB near 12 (bench scenario 4).
 * At 300 MiB/s that is one scavenge every ~13 ms, about 4% of the event loop.
 */
export const RECLAIM_EVERY_BYTES = 4 * 1024 * 1024

/** V8's collector: a young-generation ('minor') or a full ('major') collection. */
type Collector = (type: 'minor' | 'major') => void

/**
 * V8's collector, or a no-op where the runtime does not allow one. It is taken from a
 * fresh context, so no global `gc` appears for the rest of the process (`--expose-gc`
 * would install one everywhere), and Folio needs no node flag for it.
 */
function loadCollector(): Collector {
  try {
    setFlagsFromString('--expose-gc')
    const gc: unknown = runInNewContext('gc')
    if (typeof gc !== 'function') return () => undefined
    return (type) => {
      gc({ type })
    }
  } catch {
    return () => undefined
  }
}

let collector: Collector | undefined

/** Runs a young-generation collection now (see RECLAIM_EVERY_BYTES). */
export function reclaimBodyBuffers(): void {
  collector ??= loadCollector()
  collector('minor')
}

/**
 * Runs a full collection now. Used once a server listens: its start leaves a few MiB of
 * garbage (module initialisation, the configuration, the migrations check) that V8
 * would collect only after some seconds of quiet (BENCHMARKS.md, scenario 7).
 */
export function collectStartUpGarbage(): void {
  collector ??= loadCollector()
  collector('major')
}
