import type { Config } from '../config/load.js'
import type { BlobStore } from '../ports/blob-store.js'
import type { Clock } from '../ports/clock.js'
import type { Logger } from '../ports/logger.js'
import type { MetadataStore } from '../ports/metadata-store.js'

/** Everything a use case may touch, built once by the composition root. */
export interface AppContext {
  config: Config
  store: MetadataStore
  blobs: BlobStore
  clock: Clock
  logger: Logger
  /** HMAC key for access tokens and signed links; shared by every instance via the store. */
  signingSecret: Buffer
}
