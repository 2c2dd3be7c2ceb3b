import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { delay } from './child.js'

/** The machine a run measured, as the report shows it. */
export interface MachineInfo {
  cpu: string
  cores: number
  memoryGiB: number
  node: string
  os: string
  disk: string
  /** Load averages (1, 5, 15 min) at the start of the run. */
  loadAtStart: number[]
  /** Other processes busy on a CPU at the start (a shared machine skews timings). */
  busyAtStart: string[]
}

/** Describes this machine; `dir` is where the bench writes (its disk is named). */
export async function describeMachine(dir: string): Promise<MachineInfo> {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: osName(),
    disk: diskOf(dir),
    loadAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
    busyAtStart: await busyProcesses(1000),
  }
}

/** CPU used by other processes while the bench ran (jiffies outside this process tree). */
export interface OtherLoad {
  wallSeconds: number
  /** CPU-seconds used by processes outside the bench and its children. */
  otherCpuSeconds: number
  /** otherCpuSeconds / wallSeconds: how many cores others kept busy on average. */
  otherCores: number
}

/**
 * Starts counting the CPU time of the whole machine minus that of this process
 * and its finished children (Folio, baselines, wrk); stop() says how much
 * other processes used meanwhile.
 */
export function watchOtherLoad(): { stop(): OtherLoad } {
  const started = Date.now()
  const machine0 = machineBusyTicks()
  const own0 = ownTicks()
  return {
    stop() {
      const wallSeconds = (Date.now() - started) / 1000
      const ticks = machineBusyTicks() - machine0 - (ownTicks() - own0)
      const otherCpuSeconds = Math.max(0, ticks / TICKS_PER_SECOND)
      return { wallSeconds, otherCpuSeconds, otherCores: otherCpuSeconds / wallSeconds }
    },
  }
}

// USER_HZ: 100 on every Linux build that matters here.
const TICKS_PER_SECOND = 100

function machineBusyTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? ''
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number)
  return [user, nice, system, irq, softirq, steal].reduce<number>((sum, n) => sum + (n ?? 0), 0)
}

/** utime + stime + cutime + cstime of this process (children counted once reaped). */
function ownTicks(): number {
  const fields = statFields('self')
  return fields.slice(11, 15).reduce((sum, n) => sum + Number(n), 0)
}

/** Fields of /proc/<pid>/stat after the command name (field 3 onwards). */
function statFields(pid: string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
}

/** Processes other than this one that used more than 5% of a CPU over `ms`. */
async function busyProcesses(ms: number): Promise<string[]> {
  const before = processTicks()
  await delay(ms)
  const after = processTicks()
  const busy: { text: string; percent: number }[] = []
  for (const [pid, end] of after) {
    const start = before.get(pid)
    if (!start || pid === String(process.pid)) continue
    const percent = ((end.ticks - start.ticks) / TICKS_PER_SECOND / (ms / 1000)) * 100
    if (percent > 5) busy.push({ text: `${end.name} (${percent.toFixed(0)}% CPU)`, percent })
  }
  return busy
    .sort((a, b) => b.percent - a.percent)
    .slice(0, 8)
    .map((b) => b.text)
}

function processTicks(): Map<string, { name: string; ticks: number }> {
  const result = new Map<string, { name: string; ticks: number }>()
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = statFields(pid)
      result.set(pid, { name, ticks: Number(fields[11]) + Number(fields[12]) })
    } catch {
      // The process ended meanwhile.
    }
  }
  return result
}

function osName(): string {
  try {
    const release = readFileSync('/etc/os-release', 'utf8')
    return /^PRETTY_NAME="?([^"\n]*)"?/m.exec(release)?.[1] ?? process.platform
  } catch {
    return process.platform
  }
}

function diskOf(dir: string): string {
  try {
    const line = execFileSync('df', ['-PT', dir], { encoding: 'utf8' }).trim().split('\n')[1] ?? ''
    const [device, type, blocks] = line.split(/\s+/)
    const gib = Number(blocks) / 1024 / 1024
    return `${device} (${type}, ${gib.toFixed(0)} GiB)`
  } catch {
    return 'unknown'
  }
}
