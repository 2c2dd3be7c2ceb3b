import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * Bytes of a body that pass between two young-generation collections while a blob is
 * stored. Node reads a socket into a fresh 64 KiB buffer per chunk; those buffers are
 * garbage as soon as they are written and hashed, but V8 frees them only at its next
 * collection, which a body's few small objects barely bring closer. Left to V8, a big
 * body lifted resident memory by 35-60 MiB (its external-memory trigger); a scavenge
 * every 16 MiB keeps the lift near 16 MiB, and costs well under a millisecond because
 * almost nothing in the young generation is alive mid-stream.
 */
export const RECLAIM_EVERY_BYTES = 16 * 1024 * 1024

type MinorCollector = () => void

/**
 * A function that runs a young-generation collection, or a no-op where the runtime does
 * not allow one. The collector is taken from a fresh context, so no global `gc` appears
 * for the rest of the process (`--expose-gc` would install one everywhere).
 */
function loadCollector(): MinorCollector {
  try {
    setFlagsFromString('--expose-gc')
    const gc: unknown = runInNewContext('gc')
    if (typeof gc !== 'function') return () => undefined
    return () => {
      gc({ type: 'minor' })
    }
  } catch {
    return () => undefined
  }
}

let collector: MinorCollector | undefined

/** Runs a young-generation collection now (see RECLAIM_EVERY_BYTES). */
export function reclaimBodyBuffers(): void {
  collector ??= loadCollector()
  collector()
}
