// Which Node.js runs Folio. Folio needs the Node.js major that package.json's `engines`
// names (its SQLite module and its start flags are chosen for it); `npm ci` installs that
// Node.js as node_modules/.bin/node on Linux x64 and arm64, first on the PATH of npm
// scripts. The `folio` command started by an older Node.js (a machine's own, through the
// #! line) runs itself again under that one instead of crashing in the SQLite module.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '..')

/** The lowest Node.js major `engines.node` (">=N") allows. */
export function requiredMajor(engines) {
  const match = /^>=(\d+)$/.exec(String(engines ?? '').trim())
  if (!match) throw new Error(`package.json engines.node must read ">=N", got ${JSON.stringify(engines)}`)
  return Number(match[1])
}

/**
 * What to do on `version` (process.version): 'run' here, 'reexec' under the shipped
 * Node.js, or 'refuse' with a message (too old, and none shipped or already tried).
 */
export function chooseRuntime({ version, engines, shipped, reexeced }) {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1] ?? 0)
  const needed = requiredMajor(engines)
  if (major >= needed) return { action: 'run' }
  if (shipped && !reexeced) return { action: 'reexec' }
  return {
    action: 'refuse',
    message:
      `folio: Folio runs on Node.js ${needed} or newer; this is Node.js ${version} (${process.execPath}).\n` +
      `Run \`npm ci\` in ${ROOT} to install the Node.js Folio ships with (node_modules/.bin/node, ` +
      `Linux x64 and arm64), or install Node.js ${needed}.\n`,
  }
}

/** Set in the environment of the re-run, so a wrong shipped Node.js cannot loop. */
const REEXEC_MARK = 'FOLIO_NODE_REEXEC'

/** The shipped Node.js, or undefined where `npm ci` installed none. */
export function shippedNode() {
  const path = join(ROOT, 'node_modules', '.bin', 'node')
  return existsSync(path) ? path : undefined
}

/** Resolves true to go on in this process; otherwise this process ends as the re-run ends. */
export async function ensureRuntime() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const shipped = shippedNode()
  const choice = chooseRuntime({
    version: process.version,
    engines: pkg.engines?.node,
    shipped,
    reexeced: process.env[REEXEC_MARK] === '1',
  })
  if (choice.action === 'run') return true
  if (choice.action === 'refuse') {
    process.stderr.write(choice.message)
    process.exitCode = 1
    return false
  }
  const { spawn } = await import('node:child_process')
  const child = spawn(shipped, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [REEXEC_MARK]: '1' },
  })
  // A stop asked of this process (systemd, kill) is passed on; the terminal's Ctrl-C
  // reaches both already, and the child decides.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP']
  const forward = (signal) => child.kill(signal)
  for (const signal of signals) process.on(signal, forward)
  const [code, signal] = await new Promise((resolve) => {
    child.on('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal]))
    child.on('error', (error) => {
      process.stderr.write(`folio: could not start ${shipped}: ${error.message}\n`)
      resolve([1, null])
    })
  })
  for (const each of signals) process.off(each, forward)
  // Ended by a signal: end the same way, so whoever waits sees what the child saw.
  if (signal) process.kill(process.pid, signal)
  else process.exitCode = code ?? 1
  return false
}
