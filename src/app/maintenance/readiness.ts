import { Readable } from 'node:stream'
import { isDomainError } from '../../core/errors.js'
import type { BlobStore } from '../../ports/blob-store.js'
import type { Logger } from '../../ports/logger.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import type { SpaceReport } from './disk-space.js'

/** The outcome of one check: 'full' when the blob store has no room for even the probe. */
export type CheckOutcome = 'ok' | 'failed' | 'full'

/** Whether storage can serve, per dependency; reasons for a failure go to the log. */
export interface StorageReadiness {
  ready: boolean
  checks: { database: CheckOutcome; blobs: CheckOutcome }
  /** The data folder's free space and reserve, when the blobs are on a local disk. */
  space?: SpaceReport
}

const PROBE = Buffer.from('folio readiness probe\n')

/**
 * Checks storage the way requests use it: the database answers a query (a settings
 * read), and the blob store writes a small probe blob and removes it again; and reports
 * the free space of the data folder's disk. Never throws; a failed check is logged at
 * warn with its reason. A disk with no room even for the probe is 'full' and stays ready:
 * reads, sign-ins and deletes (which free space) still work there, and an instance taken
 * out of service could not be used to free it.
 */
export async function checkStorageReadiness(parts: {
  store: Pick<MetadataStore, 'settings'>
  blobs: BlobStore
  logger: Logger
  space?: () => Promise<SpaceReport | undefined>
}): Promise<StorageReadiness> {
  const [database, blobs, space] = await Promise.all([
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
    parts.space?.().catch((error: unknown) => {
      parts.logger.warn({ err: error }, 'could not read the free space of the data folder')
      return undefined
    }),
  ])
  const ready = database === 'ok' && blobs !== 'failed'
  return { ready, checks: { database, blobs }, ...(space ? { space } : {}) }
}

async function attempt(logger: Logger, name: string, check: () => Promise<void>): Promise<CheckOutcome> {
  try {
    await check()
    return 'ok'
  } catch (error) {
    if (isDomainError(error) && error.code === 'INSUFFICIENT_STORAGE') {
      logger.error({ check: name, err: error.cause ?? error }, 'readiness check: no room left on the data folder')
      return 'full'
    }
    logger.warn({ check: name, err: error }, 'readiness check failed')
    return 'failed'
  }
}
