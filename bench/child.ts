import { spawn, type ChildProcess } from 'node:child_process'
import { get } from 'node:http'
import { createServer } from 'node:net'
import { performance } from 'node:perf_hooks'

/** A server running in its own process, so its CPU and memory are its own. */
export interface ChildServer {
  label: string
  url: string
  pid: number
  /** Milliseconds from spawn to the first answered request. */
  startMs: number
  /** The last lines the process printed (for error messages). */
  output(): string
  /** Signals the process and resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
}

/**
 * Spawns `node <args>` with `env` added to this process's environment and waits
 * until GET `readyPath` on `port` answers (polled every 2 ms), timing the start.
 */
export async function spawnServer(input: {
  label: string
  args: string[]
  env: Record<string, string>
  port: number
  readyPath: string
  timeoutMs?: number
}): Promise<ChildServer> {
  const started = performance.now()
  const child = spawn(process.execPath, input.args, {
    env: { ...process.env, ...input.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let tail = ''
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-8000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  // A bench that dies halfway must not leave servers behind.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      process.off('exit', killOnExit)
      resolve()
    }),
  )
  const url = `http://127.0.0.1:${input.port}`
  const deadline = started + (input.timeoutMs ?? 30_000)
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${input.label} exited before answering (${child.exitCode}):\n${tail}`)
    }
    if (await answers(url + input.readyPath)) break
    if (performance.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${input.label} did not answer within ${input.timeoutMs ?? 30_000} ms:\n${tail}`)
    }
    await delay(2)
  }
  const startMs = performance.now() - started
  const pid = child.pid
  if (pid === undefined) throw new Error(`${input.label} has no pid`)
  return {
    label: input.label,
    url,
    pid,
    startMs,
    output: () => tail,
    stop: (signal = 'SIGTERM') => stopChild(child, exited, signal),
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>, signal: NodeJS.Signals) {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill(signal)
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}

function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode === 200))
    })
    request.on('error', () => resolve(false))
  })
}

/** Waits `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
