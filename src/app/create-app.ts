import type { Config } from '../config/load.js'
import type { FileRecord } from '../core/entities.js'
import type { Clock } from '../ports/clock.js'
import type { Logger } from '../ports/logger.js'
import { createAccountsService, type AccountsService } from './accounts/index.js'
import { authorize, fileFor, type AccessLevel, type FileAction, type Principal } from './access.js'
import { thumbnailStatuses } from './conversion/thumbnail-job.js'
import { ooxmlConversionStatus, startOoxmlConversion } from './conversion/to-ooxml.js'
import { createConversionService, NO_CONVERTER, type ConversionService } from './conversion/index.js'
import { listAudit } from './audit.js'
import { bind, type Bound } from './bind.js'
import type { AppContext } from './context.js'
import { createEditingService, type EditingService } from './editing/index.js'
import { createFilesService, type FilesService } from './files/index.js'
import { createFoldersService, type FoldersService } from './folders/index.js'
import { runHousekeeping, type HousekeepingReport } from './maintenance/garbage-collection.js'
import { createSearchService, type SearchService } from './search/index.js'
import { createSharingService, type SharingService } from './sharing/index.js'
import { createTokens, type Tokens } from './tokens.js'
import { createLocksService, createWopiService, type LocksService, type WopiService } from './wopi/index.js'

/** The application: every use case, each over the storage the composition root chose. */
export interface App {
  files: FilesService
  folders: FoldersService
  locks: LocksService
  editing: EditingService
  accounts: AccountsService
  wopi: WopiService
  sharing: SharingService
  /** Document conversion (download as), through the access policy (conversion/index.ts). */
  conversion: ConversionService
  /** Search by name and content, and its index (src/app/search/). */
  search: SearchService
  tokens: Tokens
  /**
   * The one access decision (see access.ts), for adapters that must refuse early: the
   * caller's access level, or NOT_FOUND / FORBIDDEN.
   */
  authorize(by: Principal, action: FileAction, file: FileRecord): Promise<AccessLevel>
  /** The audit trail, newest first (see audit.ts): for admins and the console. */
  audit: { list: Bound<typeof listAudit> }
  /** Garbage collection and purges (see maintenance/garbage-collection.ts), for `folio gc`. */
  maintenance: { runHousekeeping(): Promise<HousekeepingReport> }
  /**
   * Resolves once the file operations that outlasted their call's wait have ended (a
   * graceful stop waits for them before closing the store).
   */
  drain(): Promise<void>
}

/** What a protocol adapter receives: the application and the non-secret surroundings. */
export interface AdapterContext {
  app: App
  config: Config
  clock: Clock
  logger: Logger
}

/** Builds the application over its dependencies (see AppContext): it only assembles the services. */
export function createApp(ctx: AppContext): App {
  const tokens = createTokens(ctx.signingSecret)
  // Operations still running after their call was answered (see folders/operations.ts).
  const inFlight = new Set<Promise<unknown>>()
  return {
    files: createFilesService(ctx, tokens),
    folders: createFoldersService(ctx, inFlight),
    locks: createLocksService(ctx),
    editing: createEditingService(ctx),
    accounts: createAccountsService(ctx),
    wopi: createWopiService(ctx, tokens),
    sharing: createSharingService(ctx),
    search: createSearchService(ctx),
    conversion: createConversionService({
      converter: ctx.converter ?? NO_CONVERTER,
      maxOutputBytes: ctx.config.maxFileSize,
      fileFor: (by, fileId, action) => fileFor(ctx, by, fileId, action),
      renditions: ctx.store.renditions,
      blobs: ctx.blobs,
      now: () => ctx.clock.now(),
      statuses: (files) => thumbnailStatuses(ctx, files),
      toOoxml: {
        startToOoxml: (by, fileId, options) => startOoxmlConversion(ctx, by, fileId, options),
        toOoxmlStatus: (by, fileId) => ooxmlConversionStatus(ctx, by, fileId),
      },
    }),
    tokens,
    authorize: (by, action, file) => authorize(ctx, by, action, file),
    audit: { list: bind(ctx, listAudit) },
    maintenance: { runHousekeeping: () => runHousekeeping(ctx) },
    drain: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight)
    },
  }
}
