import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createInterface, type Interface } from 'node:readline'
import { writeProfile } from './profile.js'

/** How to start one worker: a Python UNO bridge and the office it runs. */
export interface OfficeWorkerOptions {
  python: string
  bridgeScript: string
  officeBinary: string
  /** The worker's own folder: its profile lives here. */
  folder: string
  /** Address-space limit of the office process, bytes (0: none). */
  memoryBytes: number
  /** Largest file the office process may write, bytes (0: none). */
  fileSizeBytes: number
  /** Run the bridge and the office in a network namespace of their own (no network at all). */
  isolateNetwork: boolean
  /** How long the office has to answer on its pipe. */
  startTimeoutMs: number
}

/** One job for the bridge: paths inside the job's temporary folder. */
export interface OfficeJob {
  input: string
  output: string
  target: string
  thumbnailPixels: number
}

/** What became of a job. `crash`: the office died under it; `timeout`: it ran too long. */
export type OfficeOutcome =
  { ok: true } | { ok: false; error: 'load' | 'store' | 'unsupported' | 'crash' | 'timeout'; message: string }

interface BridgeMessage {
  id?: number
  ready?: boolean
  pid?: number
  ok?: boolean
  error?: string
  message?: string
}

function parseMessage(line: string): BridgeMessage | undefined {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const field = (name: string): unknown => (name in value ? Reflect.get(value, name) : undefined)
  const number = (name: string) => (typeof field(name) === 'number' ? Number(field(name)) : undefined)
  const text = (name: string) => (typeof field(name) === 'string' ? String(field(name)) : undefined)
  const message: BridgeMessage = {}
  const id = number('id')
  const pid = number('pid')
  const error = text('error')
  const note = text('message')
  if (id !== undefined) message.id = id
  if (pid !== undefined) message.pid = pid
  if (typeof field('ready') === 'boolean') message.ready = field('ready') === true
  if (typeof field('ok') === 'boolean') message.ok = field('ok') === true
  if (error !== undefined) message.error = error
  if (note !== undefined) message.message = note
  return message
}

function outcomeOf(message: BridgeMessage): OfficeOutcome {
  if (message.ok === true) return { ok: true }
  const error = message.error
  const text = typeof message.message === 'string' ? message.message : 'conversion failed'
  if (error === 'load' || error === 'store' || error === 'unsupported') return { ok: false, error, message: text }
  return { ok: false, error: 'crash', message: text }
}

/** True while the process exists and is not a zombie waiting to be reaped. */
async function running(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    // The state follows the parenthesised command name.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/**
 * One long-lived headless office and the Python bridge that drives it over UNO on a
 * private pipe. Jobs run one at a time; the pool decides when a worker is replaced.
 */
export class OfficeWorker {
  /** Jobs this office has finished. */
  conversions = 0
  private pending: { id: number; settle: (outcome: OfficeOutcome) => void } | undefined
  private nextId = 1
  private exited = false

  private constructor(
    private readonly bridge: ChildProcess,
    lines: Interface,
    /** The office process (soffice.bin), leader of its own process group. */
    readonly officePid: number,
    /** The worker's folder, named in the office's command line (its profile). */
    private readonly folder: string,
  ) {
    // A bridge that died between two jobs fails the next write; its exit settles the job.
    bridge.stdin?.on('error', () => undefined)
    bridge.once('exit', () => {
      this.exited = true
      this.pending?.settle({ ok: false, error: 'crash', message: 'the office process ended' })
      this.pending = undefined
    })
    lines.on('line', (line) => {
      const message = parseMessage(line)
      if (message?.id === undefined || message.id !== this.pending?.id) return
      const pending = this.pending
      this.pending = undefined
      pending.settle(outcomeOf(message))
    })
  }

  /** Starts a worker and waits until its office answers. */
  static async start(options: OfficeWorkerOptions): Promise<OfficeWorker> {
    const profile = await writeProfile(`${options.folder}/profile`)
    const pipe = `folio-${randomBytes(8).toString('hex')}`
    const bridgeArgs = [
      options.bridgeScript,
      options.officeBinary,
      profile,
      pipe,
      String(options.memoryBytes),
      String(options.fileSizeBytes),
    ]
    // unshare --net in a user namespace: a loopback of its own that is down, no route out.
    const [command, args] = options.isolateNetwork
      ? ['unshare', ['--user', '--map-root-user', '--net', '--', options.python, ...bridgeArgs]]
      : [options.python, bridgeArgs]
    const bridge = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'ignore'],
      // Nothing from Folio's environment (secrets) reaches the office; HOME is its folder.
      env: { PATH: '/usr/bin:/bin', HOME: options.folder, LANG: 'C.UTF-8', SAL_USE_VCLPLUGIN: 'svp' },
    })
    if (!bridge.stdout) throw new Error('the office bridge has no output')
    const lines = createInterface({ input: bridge.stdout })
    try {
      const ready = await new Promise<BridgeMessage>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the office did not start in time')), options.startTimeoutMs)
        bridge.once('error', (error) => {
          clearTimeout(timer)
          reject(error)
        })
        bridge.once('exit', (code) => {
          clearTimeout(timer)
          reject(new Error(`the office bridge exited while starting (${code})`))
        })
        lines.once('line', (line) => {
          clearTimeout(timer)
          const message = parseMessage(line)
          if (message?.ready === true && typeof message.pid === 'number') resolve(message)
          else reject(new Error(`the office did not start: ${message?.message ?? line.slice(0, 200)}`))
        })
      })
      if (ready.pid === undefined) throw new Error('the office reported no process id')
      return new OfficeWorker(bridge, lines, ready.pid, options.folder)
    } catch (error) {
      lines.close()
      bridge.kill('SIGKILL')
      throw error
    }
  }

  /** False once the office or the bridge has ended. */
  get alive(): boolean {
    return !this.exited
  }

  /** Runs one job; a job over `timeoutMs` is answered `timeout` (the caller kills the worker). */
  run(job: OfficeJob, timeoutMs: number): Promise<OfficeOutcome> {
    if (this.exited) return Promise.resolve({ ok: false, error: 'crash', message: 'the office process ended' })
    if (this.pending) throw new Error('one job at a time')
    const id = this.nextId++
    return new Promise<OfficeOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.pending = undefined
        resolve({ ok: false, error: 'timeout', message: `no result within ${Math.round(timeoutMs / 1000)} s` })
      }, timeoutMs)
      this.pending = {
        id,
        settle: (outcome) => {
          clearTimeout(timer)
          if (outcome.ok) this.conversions += 1
          resolve(outcome)
        },
      }
      this.bridge.stdin?.write(`${JSON.stringify({ id, ...job })}\n`)
    })
  }

  /** Kills the office (its whole process group) and the bridge, and waits until both are gone. */
  async kill(): Promise<void> {
    // Only while that process is still this worker's office: a process id is reused once
    // its process has gone and been reaped.
    const cmdline = await readFile(`/proc/${this.officePid}/cmdline`, 'utf8').catch(() => '')
    if (cmdline.includes('soffice.bin') && cmdline.includes(this.folder)) {
      try {
        process.kill(-this.officePid, 'SIGKILL')
      } catch {
        // gone meanwhile
      }
    }
    if (!this.exited) {
      const exited = new Promise<void>((resolve) => this.bridge.once('exit', () => resolve()))
      this.bridge.kill('SIGKILL')
      await exited
    }
    // The office was the bridge's child: once orphaned, init reaps it.
    for (let i = 0; i < 100 && (await running(this.officePid)); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
