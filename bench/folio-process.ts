import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnServer, freePort, type ChildServer } from './child.js'
import { readMemory, resetPeak, type MemorySample } from './memory.js'
import { jsonCall, pick } from './http.js'

const FOLIO_BIN = join(import.meta.dirname, '..', 'bin', 'folio.js')

/**
 * The node flags of `npm start` (`node <flags> bin/folio.js serve` in package.json), so the
 * bench measures Folio as it is run; the deploy files use the same ones (a test checks).
 */
function startFlags(): string[] {
  const pkg: unknown = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'))
  const start = pick(pkg, 'scripts', 'start')
  const match = typeof start === 'string' ? /^node((?: --\S+)*) bin\/folio\.js serve$/.exec(start) : null
  if (!match) throw new Error(`package.json start is not "node [flags] bin/folio.js serve": ${String(start)}`)
  return (match[1] ?? '').split(' ').filter((flag) => flag !== '')
}

/** The admin password every bench instance of Folio gets. */
export const BENCH_ADMIN_PASSWORD = 'bench-admin-password'

/** Folio running as `node bin/folio.js serve` in a child process. */
export interface FolioProcess extends ChildServer {
  dataDir: string
  /** Signs in as admin and returns the portal token. */
  signIn(): Promise<string>
  memory(): MemorySample
  /** Starts a new peak-RSS window; false when the kernel cannot. */
  resetPeak(): boolean
}

/**
 * Starts Folio from the built sources (dist/, as `npm start` does) on a free
 * loopback port with `dataDir` as its data folder; `env` adds settings. With
 * `cpuProfDir` Folio writes a V8 CPU profile there when it stops.
 */
export async function startFolioProcess(input: {
  dataDir: string
  env?: Record<string, string>
  cpuProfDir?: string
  /** Extra flags for node itself (for experiments such as --trace-gc). */
  nodeArgs?: string[]
  label?: string
}): Promise<FolioProcess> {
  const port = await freePort()
  const profile = input.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', input.cpuProfDir] : []
  // BENCH_FOLIO_NODE_ARGS: node flags for every Folio the bench starts, to compare V8
  // settings run against run without touching the bench process itself.
  const fromEnv = (process.env.BENCH_FOLIO_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '')
  const server = await spawnServer({
    label: input.label ?? 'Folio',
    args: [...startFlags(), ...fromEnv, ...(input.nodeArgs ?? []), ...profile, FOLIO_BIN, 'serve'],
    env: {
      FOLIO_PORT: String(port),
      FOLIO_HOST: '127.0.0.1',
      // Not 'localhost': it may resolve to ::1, where Folio does not listen.
      FOLIO_PUBLIC_URL: `http://127.0.0.1:${port}`,
      FOLIO_DATA_DIR: input.dataDir,
      FOLIO_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
      FOLIO_LOG_LEVEL: 'warn',
      FOLIO_MAX_FILE_SIZE: '2GiB',
      ...input.env,
    },
    port,
    readyPath: '/healthz',
  })
  return {
    ...server,
    dataDir: input.dataDir,
    async signIn() {
      const reply = await jsonCall(server.url, 'POST', '/api/2.0/authentication.json', {
        body: { userName: 'admin', password: BENCH_ADMIN_PASSWORD },
      })
      const token = pick(reply.json, 'response', 'token')
      if (reply.status !== 201 || typeof token !== 'string') {
        throw new Error(`sign-in failed: ${reply.status} ${reply.text}`)
      }
      return token
    },
    memory: () => readMemory(server.pid),
    resetPeak: () => resetPeak(server.pid),
  }
}
