import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { pino, type Logger } from 'pino'
import { buildConfig } from '../../src/config/load.js'
import { startFolio, type RunningFolio } from '../../src/main.js'
import type { Clock } from '../../src/ports/clock.js'
import { testMetadata, type TestMetadata } from './postgres.js'

/** A clock tests can move; starts at the real time. */
export class FakeClock implements Clock {
  private offset = 0
  now(): number {
    return Date.now() + this.offset
  }
  advance(ms: number): void {
    this.offset += ms
  }
}

export interface TestServer extends RunningFolio {
  dataDir: string
  adminPassword: string
  /** Stops the server; the data folder stays for a restart. */
  stop(): Promise<void>
  /** Starts a new server on the same data folder (a fresh port). */
  restart(): Promise<TestServer>
  /** Stops and deletes the data folder. */
  dispose(): Promise<void>
}

/** A port that was free a moment ago (the server binds it right after). */
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

export const ADMIN_PASSWORD = 'admin-password-for-tests'

/**
 * Starts a real Folio on 127.0.0.1 with a free port and a temporary data
 * folder (a real SQLite file and blob folder; under FOLIO_TEST_METADATA=postgres the
 * metadata goes to a PostgreSQL schema of its own, dropped by dispose()). Extra settings
 * use the environment names (FOLIO_MAX_FILE_SIZE, ...).
 */
export async function startTestServer(
  settings: Record<string, string> = {},
  options: { clock?: Clock; dataDir?: string; metadata?: TestMetadata; logger?: Logger } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'folio-test-')))
  const metadata = options.metadata ?? testMetadata()
  const port = await freePort()
  const config = buildConfig({
    FOLIO_PORT: String(port),
    FOLIO_HOST: '127.0.0.1',
    FOLIO_DATA_DIR: dataDir,
    FOLIO_ADMIN_PASSWORD: ADMIN_PASSWORD,
    FOLIO_LOG_LEVEL: 'silent',
    // Every save its own version, as suites counting versions expect; retention tests set it.
    FOLIO_VERSION_SQUASH_WINDOW: '0',
    ...metadata.settings,
    ...settings,
  })
  const logger = options.logger ?? pino({ level: process.env.FOLIO_TEST_LOG ?? 'silent' })
  const running = await startFolio(config, { clock: options.clock, logger })
  const server: TestServer = {
    ...running,
    dataDir,
    adminPassword: ADMIN_PASSWORD,
    stop: () => closeNow(running),
    restart: async () => {
      await closeNow(running).catch(() => undefined)
      return startTestServer(settings, { ...options, dataDir, metadata })
    },
    dispose: async () => {
      await closeNow(running).catch(() => undefined)
      await rm(dataDir, { recursive: true, force: true })
      await metadata.dispose()
    },
  }
  return server
}

/**
 * Closes Folio without waiting for its clients. A keep-alive connection whose last
 * response finished just before the close is not "idle" to Node yet, so the server's own
 * close would wait out keepAliveTimeout (65 s) for it; a test server has no one left to
 * serve, so every connection is cut once the close has begun.
 */
async function closeNow(running: RunningFolio): Promise<void> {
  const closing = running.close()
  running.app.server.closeAllConnections()
  await closing
}
