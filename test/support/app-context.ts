import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import type { AppContext } from '../../src/app/context.js'
import { buildConfig } from '../../src/config/load.js'
import { createContext, openStorage } from '../../src/main.js'

/**
 * An application context over real drivers (a SQLite file and a blob folder in a
 * temporary directory), for use-case tests that need no HTTP server.
 */
export async function openTestContext(
  prefix: string,
): Promise<{ ctx: AppContext; dispose: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix))
  const config = buildConfig({ FOLIO_DATA_DIR: dataDir, FOLIO_LOG_LEVEL: 'silent' })
  const storage = await openStorage(config)
  const ctx = await createContext(config, storage, { logger: pino({ level: 'silent' }) })
  return {
    ctx,
    dispose: async () => {
      await ctx.store.close()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
