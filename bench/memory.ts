import { readFileSync, writeFileSync } from 'node:fs'

/** Resident memory of a process, from /proc/<pid>/status (Linux only). */
export interface MemorySample {
  /** Current resident set (VmRSS), bytes. */
  rss: number
  /** Peak resident set since start or the last resetPeak (VmHWM), bytes. */
  peak: number
}

/** Reads VmRSS and VmHWM of a live process. */
export function readMemory(pid: number): MemorySample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return { rss: kibField(status, 'VmRSS') * 1024, peak: kibField(status, 'VmHWM') * 1024 }
}

/**
 * Resets the kernel's peak-RSS mark of a process (writing 5 to clear_refs),
 * so the next VmHWM covers only what follows. False when the kernel refuses.
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

/** Polls VmRSS every `everyMs` and keeps the highest value, as a cross-check of VmHWM. */
export function sampleRss(pid: number, everyMs = 10): { stop(): number } {
  let highest = 0
  const take = () => {
    try {
      highest = Math.max(highest, readMemory(pid).rss)
    } catch {
      // The process ended; keep what was seen.
    }
  }
  take()
  const timer = setInterval(take, everyMs)
  return {
    stop() {
      clearInterval(timer)
      take()
      return highest
    },
  }
}

function kibField(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)
  if (!match?.[1]) throw new Error(`no ${name} in /proc status`)
  return Number(match[1])
}
