import { readFileSync } from 'node:fs'

/**
 * A server's own CPU time, read from /proc/<pid>/stat: utime + stime, in clock ticks of
 * USER_HZ, which Linux fixes at 100 for what it reports to user space. CPU time per request
 * is the bench's figure of record for load runs: it counts only the work the server did,
 * so it does not move when the load generator (or anything else on the machine) takes CPU
 * the server would otherwise have used, which is what makes throughput ratios drift.
 */
export const TICKS_PER_SECOND = 100

/**
 * utime + stime of one /proc/<pid>/stat line. The command name (field 2) is in
 * parentheses and may itself hold spaces and ')', so fields are counted from the last ')'.
 */
export function parseStatTicks(stat: string): number {
  const end = stat.lastIndexOf(')')
  if (end < 0) throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 60)}`)
  // After the name: state (field 3) is the first, utime (14) the 12th, stime (15) the 13th.
  const fields = stat.slice(end + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) {
    throw new Error(`no utime/stime in /proc/<pid>/stat: ${stat.slice(0, 60)}`)
  }
  return utime + stime
}

/** CPU ticks used so far by the processes `pids` (a process gone counts as 0). */
export function readCpuTicks(pids: number[]): number {
  let ticks = 0
  for (const pid of pids) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    } catch {
      continue
    }
    ticks += parseStatTicks(stat)
  }
  return ticks
}

/** `pid` and its direct children (FOLIO_WORKERS forks its workers from the first process). */
export function processFamily(pid: number): number[] {
  let children = ''
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()
  } catch {
    // no children file (older kernels): the process alone
  }
  return [pid, ...(children === '' ? [] : children.split(/\s+/).map(Number))]
}

/** CPU a server used over a measured run, and the requests it served in it. */
export interface ServerCpu {
  ticks: number
  requests: number
}

/**
 * Microseconds of server CPU per request over one or more runs: all their ticks over all
 * their requests (not a median of per-run figures: a run with more requests weighs more).
 * NaN when nothing was served.
 */
export function cpuMicrosPerRequest(runs: ServerCpu[]): number {
  const ticks = runs.reduce((total, run) => total + run.ticks, 0)
  const requests = runs.reduce((total, run) => total + run.requests, 0)
  if (requests <= 0) return Number.NaN
  return (ticks * 1e6) / (TICKS_PER_SECOND * requests)
}
