import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

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

/** Runs a V8 collection now, of the young generation or of the whole heap. */
export function collectGarbage(type: 'minor' | 'major'): void {
  collector ??= loadCollector()
  collector(type)
}

/**
 * Runs a full collection now. Used once a server listens: its start leaves a few MiB of
 * garbage (module initialisation, the configuration, the migrations check) that V8
 * would collect only after some seconds of quiet, or not at all when its memory reducer
 * is off (BENCHMARKS.md, scenario 7).
 */
export function collectStartUpGarbage(): void {
  collectGarbage('major')
}
