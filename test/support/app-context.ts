import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import type { AppContext } from '../../src/app/context.js'
import { buildConfig } from '../../src/config/load.js'
import { createContext, openStorage } from '../../src/main.js'
import { testMetadata } from './postgres.js'
import type { DocsCommands } from '../../src/ports/docs-commands.js'

/** Extra settings (FOLIO_* variables) and outbound ports for a test context. */
export interface TestContextOptions {
  env?: Record<string, string>
  docsCommands?: DocsCommands
}

/**
 * An application context over real drivers (a SQLite file and a blob folder in a
 * temporary directory; the metadata in a PostgreSQL schema of its own instead under
 * FOLIO_TEST_METADATA=postgres), for use-case tests that need no HTTP server.
 */
export async function openTestContext(
  prefix: string,
  options: TestContextOptions = {},
): Promise<{ ctx: AppContext; dispose: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix))
  const metadata = testMetadata()
  const config = buildConfig({
    FOLIO_DATA_DIR: dataDir,
    FOLIO_LOG_LEVEL: 'silent',
    // Every save its own version, as suites counting versions expect; retention tests set it.
    FOLIO_VERSION_SQUASH_WINDOW: '0',
    ...metadata.settings,
    ...options.env,
  })
  const storage = await openStorage(config)
  const ctx = await createContext(config, storage, {
    logger: pino({ level: 'silent' }),
    ...(options.docsCommands ? { docsCommands: options.docsCommands } : {}),
  })
  return {
    ctx,
    dispose: async () => {
      await ctx.store.close()
      await rm(dataDir, { recursive: true, force: true })
      await metadata.dispose()
    },
  }
}
