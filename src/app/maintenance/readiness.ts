import { Readable } from 'node:stream'
import type { BlobStore } from '../../ports/blob-store.js'
import type { Logger } from '../../ports/logger.js'
import type { MetadataStore } from '../../ports/metadata-store.js'

/** Whether storage can serve, per dependency; reasons for a failure go to the log. */
export interface StorageReadiness {
  ready: boolean
  checks: { database: 'ok' | 'failed'; blobs: 'ok' | 'failed' }
}

const PROBE = Buffer.from('folio readiness probe\n')

/**
 * Checks storage the way requests use it: the database answers a query (a settings
 * read), and the blob store writes a small probe blob and removes it again. Never
 * throws; a failed check is logged at warn with its reason.
 */
export async function checkStorageReadiness(parts: {
  store: Pick<MetadataStore, 'settings'>
  blobs: BlobStore
  logger: Logger
}): Promise<StorageReadiness> {
  const [database, blobs] = await Promise.all([
    attempt(parts.logger, 'database', async () => {
      await parts.store.settings.get('signing-secret')
    }),
    attempt(parts.logger, 'blobs', async () => {
      const probe = await parts.blobs.put(Readable.from([PROBE]), {
        maxBytes: PROBE.length,
        expectedSize: PROBE.length,
      })
      await parts.blobs.delete(probe.key)
    }),
  ])
  return { ready: database === 'ok' && blobs === 'ok', checks: { database, blobs } }
}

async function attempt(logger: Logger, name: string, check: () => Promise<void>): Promise<'ok' | 'failed'> {
  try {
    await check()
    return 'ok'
  } catch (error) {
    logger.warn({ check: name, err: error }, 'readiness check failed')
    return 'failed'
  }
}
