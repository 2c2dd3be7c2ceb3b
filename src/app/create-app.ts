import type { Readable } from 'node:stream'
import type { Config } from '../config/load.js'
import { DomainError } from '../core/errors.js'
import { isWellFormedId, newId } from '../core/ids.js'
import { allows as allowsAction } from '../core/sharing/access-levels.js'
import type { Permission } from '../core/tokens/signed-token.js'
import type { ByteRange } from '../ports/blob-store.js'
import type { Clock } from '../ports/clock.js'
import type { Logger } from '../ports/logger.js'
import type { FileOperationRecord, FileRecord, FolderRootType, UserRecord, VersionRecord } from '../core/entities.js'
import type { FileListQuery } from '../ports/metadata-store.js'
import { authorize, userAccessFrom, type AccessLevel, type FileAction, type Principal } from './access.js'
import * as accounts from './accounts.js'
import * as archive from './archive.js'
import { fileSubject, listAudit, principalActor, recordAudit } from './audit.js'
import type { AppContext } from './context.js'
import * as editing from './editing.js'
import * as changes from './file-changes.js'
import * as files from './files.js'
import * as fileOps from './file-ops.js'
import * as folders from './folders.js'
import { runHousekeeping, type HousekeepingReport } from './garbage-collection.js'
import * as locks from './locks.js'
import * as sharing from './sharing.js'
import { sharedPage } from './shared-page.js'
import { runOperation, takeOperations, type StartedOperation } from './operations.js'
import { createTokens, type Tokens } from './tokens.js'
import { issueWopiToken, launchWopi, type WopiLaunch } from './wopi-launch.js'
import { createConversionService, NO_CONVERTER, type ConversionService } from './conversion/index.js'

// The surroundings adapters may name in their own types.
export type { Clock } from '../ports/clock.js'
export type { Logger } from '../ports/logger.js'
export type { ActionUrls, WopiActions } from '../ports/wopi-actions.js'
export type { Telemetry } from '../ports/telemetry.js'

/** A module function with its AppContext bound: `(ctx, ...args) => R` becomes `(...args) => R`. */
type Bound<F> = F extends (ctx: AppContext, ...args: infer A) => infer R ? (...args: A) => R : never

function bind<F extends (ctx: AppContext, ...args: never[]) => unknown>(ctx: AppContext, f: F): Bound<F>
function bind(ctx: AppContext, f: (ctx: AppContext, ...args: unknown[]) => unknown) {
  return (...args: unknown[]) => f(ctx, ...args)
}

/** Files: reading, creating, changing and deleting, each asking the access policy. */
export interface FilesService {
  /** The file, when `by` may do `action` on it; NOT_FOUND otherwise (also for others' files). */
  get(by: Principal, fileId: string, action?: FileAction): Promise<FileRecord>
  /** One page of the files in `by`'s 'my' root and their total count. */
  list(by: Principal, query: Omit<FileListQuery, 'folderId'>): Promise<{ total: number; items: FileRecord[] }>
  /** A blank document in `folder` ('@my' when left out); its name repaired. */
  createBlank(by: Principal, title: string, folder?: folders.FolderRef): Promise<FileRecord>
  /** Stores an upload in `folder` ('@my' when left out); its name repaired. */
  upload(
    by: Principal,
    title: string,
    body: Readable,
    expectedSize?: number,
    folder?: folders.FolderRef,
  ): Promise<FileRecord>
  rename: Bound<typeof changes.renameFile>
  delete: Bound<typeof changes.deleteFile>
  storeNewContents: Bound<typeof changes.storeNewContents>
  putRelative: Bound<typeof changes.putRelative>
  /** Every version of a file `by` may read, oldest first. */
  versions(by: Principal, fileId: string): Promise<VersionRecord[]>
  /** One version of a file `by` may read; NOT_FOUND when either is missing. */
  version(by: Principal, fileId: string, version: number): Promise<VersionRecord>
  /** Makes an older version the newest (see editing.restoreVersion). */
  restore(by: Principal, fileId: string, version: number): Promise<FileRecord>
  /** Opens stored bytes (a file's or version's blobKey, whole or a range). */
  openBlob(blobKey: string, range?: ByteRange): Promise<Readable>
  /** A small blob's bytes whole, or undefined when they must be streamed with openBlob. */
  readSmallBlob(blobKey: string): Promise<Buffer | undefined>
  /**
   * The file and version a signed link names (the link is the capability: it was issued
   * to the owner); undefined when either no longer exists.
   */
  forLink(fileId: string, version?: number): Promise<{ file: FileRecord; version: VersionRecord } | undefined>
}

/** A file operation as `GET files/fileops` reports it (see operations.ts). */
export type FileOperation = FileOperationRecord

/** An operation the call has just run, with the records it left. */
export type { StartedOperation } from './operations.js'

/** Folders, the trash and file operations, each asking the access policy. */
export interface FoldersService {
  list: Bound<typeof folders.listFolder>
  get: Bound<typeof folders.getFolder>
  create: Bound<typeof folders.createFolder>
  rename: Bound<typeof folders.renameFolder>
  /** True when the file lies in a trash (editors and WOPI refuse it). */
  isInTrash: Bound<typeof folders.isInTrash>
  /** The root folders of `by` ('my' and 'trash'), created on first use. */
  roots(by: Principal): Promise<{ my: folders.FolderListing['current']; trash: folders.FolderListing['current'] }>
  move(by: Principal, items: fileOps.ItemSelection, dest: folders.FolderRef, conflict: fileOps.ConflictResolution): Promise<StartedOperation>
  copy(by: Principal, items: fileOps.ItemSelection, dest: folders.FolderRef, conflict: fileOps.ConflictResolution): Promise<StartedOperation>
  /** `untilDone`: the call waits for the end however long it takes (it then has a result). */
  delete(by: Principal, items: fileOps.ItemSelection, immediately: boolean, untilDone?: boolean): Promise<StartedOperation>
  emptyTrash(by: Principal): Promise<StartedOperation>
  /** The files a move or copy with 'overwrite' would replace (see file-ops.moveConflicts). */
  conflicts: Bound<typeof fileOps.moveConflicts>
  /** Puts trashed items back into the folders they came from (see file-ops.restoreItems). */
  restore(by: Principal, items: fileOps.ItemSelection): Promise<StartedOperation>
  /**
   * The operations `by` has running, and those finished since the last call (oldest
   * first); a finished one is reported once, as ONLYOFFICE drops it after reporting it.
   * Kept in the store: any instance reports them.
   */
  takeOperations(by: Principal): Promise<FileOperation[]>
  /**
   * Checks a download of several items as one archive and records it as a finished
   * 'download' operation (the selected items), so clients polling the operations find it.
   */
  download(by: Principal, items: fileOps.ItemSelection): Promise<StartedOperation>
  /** What a download of several items holds now, re-checked on every download. */
  planArchive: Bound<typeof archive.planArchive>
}

/** The WOPI lock table and the WOPI user's stored info. */
export interface LocksService {
  lock: Bound<typeof locks.lockFile>
  refresh: Bound<typeof locks.refreshLock>
  unlock: Bound<typeof locks.unlockFile>
  current: Bound<typeof locks.lockOf>
  setUserInfo: Bound<typeof locks.setWopiUserInfo>
  /** Who holds a file's lock and since when (owner, admins, operator). */
  info: Bound<typeof locks.lockInfo>
  /** Releases a stuck lock whoever holds it (owner, admins, operator). */
  release: Bound<typeof locks.releaseLock>
  /** How many files hold a lock that has not expired now. */
  held(): Promise<number>
}

/** ONLYOFFICE editing sessions, saves from the editor and its history pane. */
export interface EditingService {
  recordEditors: Bound<typeof editing.recordEditors>
  endSession: Bound<typeof editing.endEditingSession>
  recordSaveError: Bound<typeof editing.recordSaveError>
  states: Bound<typeof editing.editingStates>
  resolveAuthor: Bound<typeof editing.resolveAuthor>
  saveFromEditor: Bound<typeof editing.saveFromEditor>
  /** "Save copy as" into `by`'s files from a file the editor made of `sourceFileId`. */
  saveCopy(
    by: Principal,
    input: { sourceFileId: string; title: string; fileType: string; url: string },
    fetch: editing.BodyFetcher,
  ): Promise<FileRecord>
  changesOf: typeof editing.changesOf
}

/** Accounts, sessions and the people admin (see accounts.ts). */
export interface AccountsService {
  createUser: Bound<typeof accounts.createUser>
  ensureAdmin: Bound<typeof accounts.ensureAdmin>
  signIn: Bound<typeof accounts.signIn>
  authenticateToken: Bound<typeof accounts.authenticateToken>
  signOut: Bound<typeof accounts.signOut>
  requireUser: Bound<typeof accounts.requireUser>
  changePassword: Bound<typeof accounts.changePassword>
  setAdmin: Bound<typeof accounts.setAdmin>
  removeUser: Bound<typeof accounts.removeUser>
  requireUserById: Bound<typeof accounts.requireUserById>
  listUsers: Bound<typeof accounts.listUsers>
  assertAdmin: typeof accounts.assertAdmin
  setPassword: Bound<typeof accounts.setPassword>
  updateUser: Bound<typeof accounts.updateUser>
  removeUserById: Bound<typeof accounts.removeUserById>
  unlockUser: Bound<typeof accounts.unlockUser>
  /** Display names of the given user ids (deduplicated lookups; unknown ids map to ''). */
  displayNames(ids: Iterable<string>): Promise<Map<string, string>>
}

/** One authorized WOPI request: the file, the token's user and what the token allows. */
export interface WopiAccess {
  file: FileRecord
  user: UserRecord
  /** The token's permission, narrowed to 'read' when the user's access does not allow editing. */
  permission: Permission
  principal: Principal
  /** The user's access level on the file now. */
  level: AccessLevel
}

/** WOPI access: launching a file in the client, and checking the tokens it sends back. */
export interface WopiService {
  /** Token, WOPISrc and action URLs for opening a file `by` may read (edit needs 'edit'). */
  launch(by: Principal, fileId: string, permission: Permission): Promise<WopiLaunch>
  /**
   * Token, WOPISrc and action URLs for a guest who came in through the file's share link
   * with `key` (see sharing.linkPrincipal): what the link's access allows, edit only with
   * ReadWrite. NOT_FOUND when the key is not the working link's.
   */
  launchByLink(fileId: string, key: string, guest: { id: string; name: string }, permission: Permission): Promise<WopiLaunch>
  /** A token for a file the caller has just been allowed to write (PutRelativeFile's Url). */
  issueToken(by: Principal, fileId: string, permission: Permission): { token: string; expiresAt: number }
  /**
   * Checks an access token sent for `fileId`: genuine, unexpired and issued for this file
   * (UNAUTHENTICATED), the file present (NOT_FOUND), the token's user present (UNAUTHENTICATED).
   * `address`, the client's, rides with the principal for the audit trail.
   */
  access(token: string, fileId: string, address?: string): Promise<WopiAccess>
}

/** Sharing with people and by link, and the people search behind it (see sharing.ts). */
export interface SharingService {
  list: Bound<typeof sharing.listFileShares>
  set: Bound<typeof sharing.setFileShares>
  listFolder: Bound<typeof sharing.listFolderShares>
  setFolder: Bound<typeof sharing.setFolderShares>
  sharedWith: Bound<typeof sharing.sharedWith>
  /** The '@share' section filtered, sorted and paged like a folder listing. */
  sharedPage: Bound<typeof sharedPage>
  getLink: Bound<typeof sharing.getShareLink>
  setLink: Bound<typeof sharing.setShareLink>
  linkPrincipal: Bound<typeof sharing.linkPrincipal>
  findPeople: Bound<typeof sharing.findPeople>
  linkAccess: Bound<typeof sharing.linkAccess>
}

/** The application: every use case, each over the storage the composition root chose. */
export interface App {
  /** Document conversion (download as), through the access policy (conversion/index.ts). */
  conversion: ConversionService
  files: FilesService
  folders: FoldersService
  locks: LocksService
  editing: EditingService
  accounts: AccountsService
  wopi: WopiService
  sharing: SharingService
  tokens: Tokens
  /**
   * The one access decision (see access.ts), for adapters that must refuse early: the
   * caller's access level, or NOT_FOUND / FORBIDDEN.
   */
  authorize(by: Principal, action: FileAction, file: FileRecord): Promise<AccessLevel>
  /** The audit trail, newest first (see audit.ts): for admins and the console. */
  audit: { list: Bound<typeof listAudit> }
  /** Garbage collection and purges (see garbage-collection.ts), for `folio gc`. */
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

/**
 * A trashed file is gone as far as editors are concerned, until it is restored (the access
 * policy refuses it to anyone but its owner already).
 */
function refuseTrashed(file: FileRecord, rootType: FolderRootType | undefined): void {
  if (folders.inTrashSection(file, rootType)) throw new DomainError('NOT_FOUND', 'file not found')
}

/** Builds the application over its dependencies (see AppContext). */
export function createApp(ctx: AppContext): App {
  const tokens = createTokens(ctx.signingSecret)
  const get = (by: Principal, fileId: string, action: FileAction = 'read') =>
    changes.fileFor(ctx, by, fileId, action)
  // Operations still running after their call was answered (see operations.ts).
  const inFlight = new Set<Promise<unknown>>()
  const record = (
    by: Principal,
    kind: FileOperation['kind'],
    run: () => Promise<fileOps.OperationResult>,
    untilDone = false,
  ) => runOperation(ctx, by, kind, run, untilDone ? {} : { waitMs: ctx.config.operationWaitMs, inFlight })
  const writableFolder = async (by: Principal, ref: folders.FolderRef) => {
    const folder = await folders.folderFor(ctx, by, ref, 'create')
    const { rootType } = await folders.pathOf(ctx, folder.id)
    if (rootType === 'trash') throw new DomainError('INVALID_INPUT', 'files cannot be created in the trash')
    return folder
  }
  /**
   * A WOPI call with a link guest's token: the link's access is read on every call, so
   * turning the link off (or making a new one) refuses the very next call, and a lowered
   * access stops writes at once.
   */
  const linkAccess = async (
    file: FileRecord,
    guestId: string,
    name: string,
    keyHash: string,
    granted: Permission,
    address: string | undefined,
  ): Promise<WopiAccess> => {
    const level = await sharing.linkAccess(ctx, file.id, keyHash)
    if (level === 'none') throw new DomainError('NOT_FOUND', 'file not found')
    const user = sharing.guestUser(guestId, name, ctx.clock.now())
    const permission = granted === 'write' && allowsAction(level, 'edit') ? 'write' : 'read'
    const principal: Principal = { kind: 'link', user, fileId: file.id, keyHash, grant: permission, address }
    return { file, user, permission, principal, level }
  }
  return {
    conversion: createConversionService({
      converter: ctx.converter ?? NO_CONVERTER,
      maxOutputBytes: ctx.config.maxFileSize,
      fileFor: (by, fileId) => get(by, fileId, 'download'),
      renditions: ctx.store.renditions,
      blobs: ctx.blobs,
      now: () => ctx.clock.now(),
    }),
    folders: {
      list: bind(ctx, folders.listFolder),
      get: bind(ctx, folders.getFolder),
      create: bind(ctx, folders.createFolder),
      rename: bind(ctx, folders.renameFolder),
      isInTrash: bind(ctx, folders.isInTrash),
      roots: async (by) => ({
        my: await folders.folderFor(ctx, by, '@my', 'read'),
        trash: await folders.folderFor(ctx, by, '@trash', 'read'),
      }),
      move: (by, items, dest, conflict) =>
        record(by, 'move', () => fileOps.moveItems(ctx, by, items, dest, conflict)),
      copy: (by, items, dest, conflict) =>
        record(by, 'copy', () => fileOps.copyItems(ctx, by, items, dest, conflict)),
      delete: (by, items, immediately, untilDone) =>
        record(by, 'delete', () => fileOps.deleteItems(ctx, by, items, immediately), untilDone),
      emptyTrash: (by) => record(by, 'delete', () => fileOps.emptyTrash(ctx, by)),
      restore: (by, items) => record(by, 'move', () => fileOps.restoreItems(ctx, by, items)),
      conflicts: bind(ctx, fileOps.moveConflicts),
      takeOperations: (by) => takeOperations(ctx, by),
      download: (by, items) =>
        record(by, 'download', async () => {
          const plan = await archive.planArchive(ctx, by, items)
          return { files: plan.files, folders: plan.folders, skipped: 0 }
        }),
      planArchive: bind(ctx, archive.planArchive),
    },
    files: {
      get,
      list: (by, query) => files.listFiles(ctx, by.user.id, query),
      createBlank: async (by, title, folder = '@my') => {
        const target = await writableFolder(by, folder)
        // The file belongs to the folder's owner; who made it is the caller (a sharee, say).
        return files.createBlankFile(ctx, target.ownerId, title, target.id, by.user.id)
      },
      upload: async (by, title, body, size, folder = '@my') => {
        let target: Awaited<ReturnType<typeof writableFolder>>
        try {
          target = await writableFolder(by, folder)
        } catch (error) {
          body.resume()
          throw error
        }
        return files.uploadFile(ctx, target.ownerId, title, body, size, target.id, by.user.id)
      },
      rename: bind(ctx, changes.renameFile),
      delete: bind(ctx, changes.deleteFile),
      storeNewContents: bind(ctx, changes.storeNewContents),
      putRelative: bind(ctx, changes.putRelative),
      versions: async (by, fileId) => {
        await get(by, fileId, 'read')
        return files.listVersions(ctx, fileId)
      },
      version: async (by, fileId, version) => {
        await get(by, fileId, 'read')
        return files.getVersion(ctx, fileId, version)
      },
      restore: async (by, fileId, version) => {
        await get(by, fileId, 'edit')
        const restored = await editing.restoreVersion(ctx, fileId, version, by.user.id)
        await recordAudit(ctx, 'version-restored', principalActor(by), fileSubject(restored), `version ${version}`)
        return restored
      },
      openBlob: (blobKey, range) => files.openBlob(ctx, blobKey, range),
      readSmallBlob: (blobKey) => files.readSmallBlob(ctx, blobKey),
      forLink: async (fileId, version) => {
        const file = await ctx.store.files.findById(fileId)
        if (!file) return undefined
        const record = await ctx.store.files.getVersion(fileId, version ?? file.version)
        return record ? { file, version: record } : undefined
      },
    },
    locks: {
      lock: bind(ctx, locks.lockFile),
      refresh: bind(ctx, locks.refreshLock),
      unlock: bind(ctx, locks.unlockFile),
      current: bind(ctx, locks.lockOf),
      setUserInfo: bind(ctx, locks.setWopiUserInfo),
      info: bind(ctx, locks.lockInfo),
      release: bind(ctx, locks.releaseLock),
      held: () => ctx.store.files.countLocked(ctx.clock.now()),
    },
    editing: {
      recordEditors: bind(ctx, editing.recordEditors),
      endSession: bind(ctx, editing.endEditingSession),
      recordSaveError: bind(ctx, editing.recordSaveError),
      states: bind(ctx, editing.editingStates),
      resolveAuthor: bind(ctx, editing.resolveAuthor),
      saveFromEditor: bind(ctx, editing.saveFromEditor),
      saveCopy: async (by, input, fetch) => {
        const source = await get(by, input.sourceFileId, 'read')
        return editing.saveEditorCopy(ctx, { ...input, ownerId: by.user.id, sourceFileId: source.id }, fetch)
      },
      changesOf: editing.changesOf,
    },
    accounts: {
      createUser: bind(ctx, accounts.createUser),
      ensureAdmin: bind(ctx, accounts.ensureAdmin),
      signIn: bind(ctx, accounts.signIn),
      authenticateToken: bind(ctx, accounts.authenticateToken),
      signOut: bind(ctx, accounts.signOut),
      requireUser: bind(ctx, accounts.requireUser),
      changePassword: bind(ctx, accounts.changePassword),
      setAdmin: bind(ctx, accounts.setAdmin),
      removeUser: bind(ctx, accounts.removeUser),
      requireUserById: bind(ctx, accounts.requireUserById),
      listUsers: bind(ctx, accounts.listUsers),
      assertAdmin: accounts.assertAdmin,
      setPassword: bind(ctx, accounts.setPassword),
      updateUser: bind(ctx, accounts.updateUser),
      removeUserById: bind(ctx, accounts.removeUserById),
      unlockUser: bind(ctx, accounts.unlockUser),
      displayNames: async (ids) => {
        const names = new Map<string, string>()
        for (const id of new Set(ids)) {
          const user = await ctx.store.users.findById(id)
          names.set(id, user?.displayName ?? '')
        }
        return names
      },
    },
    wopi: {
      launch: (by, fileId, permission) => launchWopi(ctx, tokens, by, fileId, permission),
      launchByLink: async (fileId, key, guest, permission) => {
        const { principal } = await sharing.linkPrincipal(ctx, fileId, key, guest)
        return launchWopi(ctx, tokens, principal, fileId, permission)
      },
      issueToken: (by, fileId, permission) => issueWopiToken(ctx, tokens, fileId, by.user, permission),
      access: async (token, fileId, address) => {
        const claims = tokens.verifyWopi(token, ctx.clock.now())
        if (claims.fileId !== fileId) {
          throw new DomainError('UNAUTHENTICATED', 'the access token was issued for another file')
        }
        // One read for the whole check: the file, the token's user, the section of the
        // file's folder and, for anyone but the owner, the share that reaches the file.
        const read = isWellFormedId(fileId) ? await ctx.store.files.findWithAccess(fileId, claims.userId) : undefined
        if (!read) throw new DomainError('NOT_FOUND', 'file not found')
        const { file } = read
        if (claims.link !== undefined) {
          refuseTrashed(file, read.rootType)
          return linkAccess(file, claims.userId, claims.name ?? '', claims.link, claims.permission, address)
        }
        // Read on every call: a removed user's tokens stop working at once, on every instance.
        const { user } = read
        if (!user) throw new DomainError('UNAUTHENTICATED', 'the user of this token no longer exists')
        // Compared with the row read now, so the verified-token memo cannot outlive a bump.
        if ((claims.generation ?? 0) !== user.tokenGeneration) {
          throw new DomainError('UNAUTHENTICATED', 'the access token was ended by a change to its user')
        }
        // The user's access is decided from the stored shares read now, never from the
        // token: a revoked share refuses the very next request, and a token issued for
        // writing writes only while the user's access still allows editing.
        const level = userAccessFrom(file, user.id, read)
        if (level === 'none') throw new DomainError('NOT_FOUND', 'file not found')
        if (level === 'owner') refuseTrashed(file, read.rootType)
        const permission = claims.permission === 'write' && allowsAction(level, 'edit') ? 'write' : 'read'
        const principal: Principal = { kind: 'user', user, grant: permission, address, checked: { fileId: file.id, level } }
        return { file, user, permission, principal, level }
      },
    },
    sharing: {
      list: bind(ctx, sharing.listFileShares),
      set: bind(ctx, sharing.setFileShares),
      listFolder: bind(ctx, sharing.listFolderShares),
      setFolder: bind(ctx, sharing.setFolderShares),
      sharedWith: bind(ctx, sharing.sharedWith),
      sharedPage: bind(ctx, sharedPage),
      getLink: bind(ctx, sharing.getShareLink),
      setLink: bind(ctx, sharing.setShareLink),
      linkPrincipal: bind(ctx, sharing.linkPrincipal),
      findPeople: bind(ctx, sharing.findPeople),
      linkAccess: bind(ctx, sharing.linkAccess),
    },
    tokens,
    authorize: (by, action, file) => authorize(ctx, by, action, file),
    audit: { list: bind(ctx, listAudit) },
    maintenance: { runHousekeeping: () => runHousekeeping(ctx) },
    drain: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight)
    },
  }
}
