import type { Config } from '../config/load.js'
import type { BlobStore } from '../ports/blob-store.js'
import type { Clock } from '../ports/clock.js'
import type { DocsCommands } from '../ports/docs-commands.js'
import type { Logger } from '../ports/logger.js'
import type { MetadataStore } from '../ports/metadata-store.js'
import type { Telemetry } from '../ports/telemetry.js'
import type { TextExtractor } from '../ports/text-extractor.js'
import type { WopiActions } from '../ports/wopi-actions.js'
import type { SpaceReport } from './maintenance/disk-space.js'
import type { Converter } from '../ports/converter.js'

/** The setting holding the signing secret, made by the first start on a store. */
export const SIGNING_SECRET_SETTING = 'signing-secret'

/**
 * Everything a use case may touch, built once by the composition root. Only src/app sees
 * it: adapters receive the services of createApp instead, which hold it in their closures.
 */
export interface AppContext {
  config: Config
  store: MetadataStore
  blobs: BlobStore
  clock: Clock
  logger: Logger
  /** HMAC key for access tokens and signed links; shared by every instance via the store. */
  signingSecret: Buffer
  /** The Docs command service, when ONLYOFFICE Docs is configured. */
  docsCommands?: DocsCommands
  /** The WOPI client's action URLs, when a WOPI client is configured. */
  wopiActions?: WopiActions
  /** Where saves and storage failures are reported, when metrics are on. */
  telemetry?: Telemetry
  /**
   * The free space of the data folder's disk and the reserve kept on it (`blobs` refuses
   * writes of file contents below it); undefined for a store without a local disk (S3).
   */
  space(): Promise<SpaceReport | undefined>
  /** Loads the reader of documents' text for the search index (on first use). */
  loadTextExtractor?: () => Promise<TextExtractor>
  /** The document converter FOLIO_CONVERTER picked (absent in command-line tools). */
  converter?: Converter
}
