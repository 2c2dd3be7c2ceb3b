/**
 * The application's face: the one module protocol adapters import (a dependency rule
 * holds them to it). Everything an adapter may name, it finds here; the storage, the
 * signing secret and the use cases' inner modules stay behind it.
 */
export { createApp, type AdapterContext, type App } from './create-app.js'
export { userPrincipal, type AccessLevel, type FileAction, type Principal } from './access.js'
export { actorOf } from './audit.js'
export type { AccountsService } from './accounts/index.js'
export type { ConversionService, DownloadedAs, OoxmlConversionView, Preview } from './conversion/index.js'
export { changesOf, type BodyFetcher, type EditingService } from './editing/index.js'
export type { FilesService, RelativeTarget, StagedUpload, UserSettings } from './files/index.js'
export type {
  ArchivePlan,
  FileOperation,
  FolderListQuery,
  FolderRef,
  FoldersService,
  StartedOperation,
} from './folders/index.js'
export type { SearchItem, SearchRequest, SearchService } from './search/index.js'
export type { FolderLink, FolderLinkPage, ShareEntry, ShareLink, SharingService } from './sharing/index.js'
export { wopiSrcFor, type LockInfo, type LocksService, type WopiAccess, type WopiService } from './wopi/index.js'

export type { StorageUsage } from '../ports/metadata-store.js'

// The surroundings adapters may name in their own types.
export type { Clock } from '../ports/clock.js'
export type { Logger } from '../ports/logger.js'
export type { ActionUrls, WopiActions } from '../ports/wopi-actions.js'
export type { Telemetry } from '../ports/telemetry.js'
