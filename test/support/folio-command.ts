/**
 * The real `folio` command (bin/folio.js, the bundle `npm start` runs) in a process of its
 * own, for the tests that need one: a command run to its end (`runFolio`), or `folio serve`
 * left running in the background (`serveFolio`). Only PATH and the settings a test gives
 * reach the child, so the runner's own environment never changes what is tested.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { ADMIN_PASSWORD, freePort } from './folio-server.js'

export const FOLIO_BIN = join(import.meta.dirname, '..', '..', 'bin', 'folio.js')

/** How a command run ended, with everything it printed. */
export interface CommandRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

function childEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', FOLIO_LOG_LEVEL: 'warn', ...env }
}

/**
 * Runs `folio ...args` to its end. `stdin` is written and closed (no input by default);
 * `killWhen` kills it with SIGKILL at the first line of stdout it accepts.
 */
export function runFolio(
  args: string[],
  env: Record<string, string>,
  options: { stdin?: string; killWhen?: (line: string) => boolean } = {},
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FOLIO_BIN, ...args], {
      env: childEnv(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let pending = ''
    const { killWhen } = options
    child.stdout.on('data', (data: Buffer) => {
      stdout += data
      if (!killWhen) return
      pending += data
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      if (lines.some(killWhen)) child.kill('SIGKILL')
    })
    child.stderr.on('data', (data: Buffer) => (stderr += data))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
    child.stdin.end(options.stdin ?? '')
  })
}

/** A `folio serve` running in the background; stdout and stderr are collected as one log. */
export interface ServedFolio {
  readonly child: ChildProcess
  /** Everything printed so far (at FOLIO_LOG_LEVEL info unless the settings say otherwise). */
  log(): string
  /** Resolves with the first match of `pattern` in the log; fails if the process ends first or after `timeoutMs`. */
  waitForLog(pattern: RegExp, what: string, timeoutMs?: number): Promise<RegExpExecArray>
  /** Resolves once the process has ended on its own (exit code, signal). */
  ended(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Sends `signal` (SIGTERM: a graceful stop) unless it has ended, and waits for the end. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

/** Starts `folio serve` with `env` as its settings. */
export function serveFolio(env: Record<string, string>): ServedFolio {
  const child = spawn(process.execPath, [FOLIO_BIN, 'serve'], {
    env: { ...childEnv({ FOLIO_LOG_LEVEL: 'info' }), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  const keep = (data: Buffer) => {
    log += String(data)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }))
  })
  const running = () => child.exitCode === null && child.signalCode === null

  return {
    child,
    log: () => log,
    waitForLog(pattern, what, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now()
        const poll = setInterval(() => {
          const match = pattern.exec(log)
          if (match) {
            clearInterval(poll)
            resolve(match)
          } else if (Date.now() - started > timeoutMs || !running()) {
            clearInterval(poll)
            reject(new Error(`${what} not in the log: ${log.slice(-2000)}`))
          }
        }, 20)
      })
    },
    ended: () => closed,
    async stop(signal = 'SIGTERM') {
      if (running()) child.kill(signal)
      await closed
    },
  }
}

/**
 * Starts `folio serve` on a free loopback port over `dataDir`, with the tests' admin
 * password and `settings` added, and waits until it listens (with FOLIO_WORKERS, until
 * every worker serves).
 */
export async function serveFolioAt(
  dataDir: string,
  settings: Record<string, string> = {},
): Promise<{ folio: ServedFolio; url: string }> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const folio = serveFolio({
    FOLIO_DATA_DIR: dataDir,
    FOLIO_PORT: String(port),
    FOLIO_HOST: '127.0.0.1',
    FOLIO_PUBLIC_URL: url,
    FOLIO_ADMIN_PASSWORD: ADMIN_PASSWORD,
    ...settings,
  })
  const ready = settings.FOLIO_WORKERS === undefined ? /Folio is listening/ : /all workers are serving/
  await folio.waitForLog(ready, 'the server ready')
  return { folio, url }
}
