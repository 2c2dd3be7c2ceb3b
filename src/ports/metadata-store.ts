import type { ThrottleState } from '../core/accounts/throttle.js'
import type { JobRepository } from './job-queue.js'
import type { MetadataTransfer } from './metadata-transfer.js'
import type { SearchIndexRepository } from './search-index.js'

/**
 * Metadata ports. Every method is async so a networked driver (PostgreSQL) fits
 * behind the same interface as the embedded SQLite one. Times are milliseconds
 * since the epoch. Drivers translate their own errors (unique violations and so
 * on) into DomainError codes; nothing above this line sees SQL.
 */

import type {
  FileOperationRecord,
  OperationItem,
  UserRecord,
  SessionRecord,
  FileLock,
  VersionSource,
  FileRecord,
  VersionRecord,
  SaveError,
  EditingState,
  FileSortField,
  AuditEvent,
  ShareItemKind,
  ShareRecord,
  ShareLinkRecord,
  FolderLinkRecord,
  FolderCounts,
  FolderRecord,
  FolderRootType,
} from '../core/entities.js'

// The entity types live in core; they are re-exported for the drivers written against this port.
export type {
  FileOperationRecord,
  OperationItem,
  UserRecord,
  SessionRecord,
  FileLock,
  VersionSource,
  FileRecord,
  VersionRecord,
  SaveError,
  EditingState,
  FileSortField,
  AuditEvent,
  AuditAction,
  ShareItemKind,
  ShareRecord,
  ShareLinkRecord,
  FolderLinkRecord,
  FolderCounts,
  FolderRecord,
  FolderRootType,
} from '../core/entities.js'

/** The stored lock (the same type as core's FileLock). */
export type StoredLock = FileLock

export type UserPatch = Partial<
  Pick<UserRecord, 'displayName' | 'email' | 'isAdmin' | 'passwordHash' | 'wopiUserInfo' | 'disabled'>
> & {
  updatedAt: number
  /** Adds one to the user's token generation in the same statement (ends their WOPI tokens). */
  bumpTokenGeneration?: boolean
}

export interface UserRepository {
  /** Throws USER_EXISTS when the name is taken (case-insensitively). */
  create(user: UserRecord): Promise<void>
  findById(id: string): Promise<UserRecord | undefined>
  /** Case-insensitive lookup. */
  findByUserName(userName: string): Promise<UserRecord | undefined>
  list(): Promise<UserRecord[]>
  update(id: string, patch: UserPatch): Promise<boolean>
  /** Removes the user and their sessions; their files stay owned by the id. */
  remove(id: string): Promise<boolean>
}

export interface SessionRepository {
  create(session: SessionRecord): Promise<void>
  find(tokenHash: string): Promise<SessionRecord | undefined>
  /** Ends one session (logout). */
  revoke(tokenHash: string): Promise<void>
  /** Ends every session of the user, but the one of `exceptTokenHash` when given. */
  revokeAllForUser(userId: string, exceptTokenHash?: string): Promise<void>
  purgeExpired(now: number): Promise<number>
}

export type { ThrottleState } from '../core/accounts/throttle.js'

/** What ThrottleRepository.update hands back: the state to store and the caller's result. */
export interface ThrottleStep<T> {
  /** The key's new state; undefined deletes the key. */
  next: ThrottleState | undefined
  result: T
}

/**
 * Sign-in throttle state per key (a user name or a client address), stored so the
 * throttle survives a restart and holds across every instance sharing the store.
 */
export interface ThrottleRepository {
  /**
   * Reads the key's state, passes it to `step` (a pure rule) and stores what it
   * returns, atomically: no other update of the key, from this process or another
   * instance, can interleave. Returns the step's result.
   */
  update<T>(key: string, step: (current: ThrottleState | undefined) => ThrottleStep<T>): Promise<T>
  get(key: string): Promise<ThrottleState | undefined>
  clear(key: string): Promise<void>
  /**
   * Deletes every key whose last attempt and lock both ended at least `quietMs`
   * before `now` (keys that would start over anyway). Returns how many went.
   */
  purgeStale(now: number, quietMs: number): Promise<number>
}

export type FilePatch = Partial<
  Pick<
    FileRecord,
    'title' | 'lock' | 'updatedAt' | 'updatedBy' | 'keyVersion' | 'folderId' | 'trashedAt' | 'originFolderId'
  >
>

export interface FileListQuery {
  /** The folder whose files are listed (not those of its sub-folders). */
  folderId: string
  offset: number
  limit: number
  sortBy: FileSortField
  descending: boolean
  /** Case-insensitive substring of the title. */
  titleContains?: string
  /**
   * Only titles ending with one of these lower-case suffixes (for example '.docx');
   * undefined lists every file.
   */
  titleEndsWith?: readonly string[]
  /** Only files shared with someone or by a link that is on ("Shared by me"). */
  sharedOnly?: boolean
}

/**
 * What FileRepository.delete did: removed the file (with every blob key its versions
 * used), found no such file, or left it alone because its revision had moved on.
 */
export type FileDeletion =
  { outcome: 'deleted'; blobKeys: string[] } | { outcome: 'not-found' } | { outcome: 'revision-moved' }

/**
 * A file read together with what deciding one user's access to it needs (see
 * FileRepository.findWithAccess): the decision itself is the access policy's.
 */
export interface FileWithAccess {
  file: FileRecord
  /** The user the id names; undefined when there is none (removed, or a link guest's id). */
  user: UserRecord | undefined
  /**
   * The section the file's folder lies in: the root type of its topmost folder; undefined
   * when the folder does not exist.
   */
  rootType: FolderRootType | undefined
  /**
   * The access number of the most specific share entry naming the user: the file's own
   * entry, else that of the nearest folder above the file that has one; undefined when
   * there is none. Not looked up (undefined) when the user owns the file.
   */
  shareAccess: number | undefined
}

export interface FileRepository {
  /**
   * Inserts the file and its first version in one transaction.
   * Throws NAME_TAKEN when the folder already holds that title.
   */
  create(file: FileRecord, firstVersion: VersionRecord): Promise<void>
  findById(id: string): Promise<FileRecord | undefined>
  /**
   * The file with the facts that decide `userId`'s access to it (the user's row, the
   * folder's section, the share that reaches the file) in ONE statement, so a WOPI call
   * costs one read (one round trip on a networked store) whatever its access path.
   * undefined when the file does not exist.
   */
  findWithAccess(id: string, userId: string): Promise<FileWithAccess | undefined>
  list(query: FileListQuery): Promise<{ total: number; items: FileRecord[] }>
  /** True when the folder holds a file with this title (case-insensitive). */
  titleExists(folderId: string, title: string): Promise<boolean>
  /** The folder's file with this title compared without regard to case, in one lookup. */
  findByTitle(folderId: string, title: string): Promise<FileRecord | undefined>
  /**
   * Files put in a trash (trashedAt set) at or before `before`, oldest first, at most
   * `limit` (for the automatic emptying of trashes).
   */
  trashedBefore(before: number, limit: number): Promise<FileRecord[]>
  /**
   * Compare-and-set: applies the patch only while the row's revision equals
   * expectedRevision, and bumps the revision. Returns the updated record, or
   * undefined when the revision moved on or the file is gone (the caller
   * re-reads and decides again). Throws NAME_TAKEN on a title clash.
   */
  update(id: string, expectedRevision: number, patch: FilePatch): Promise<FileRecord | undefined>
  /**
   * Compare-and-set as update(), and in the same transaction appends the
   * version and moves the file's head (version, size, sha256, blobKey) to it.
   * The versions numbered in `drop` (older ones: squashed or past the retention limit)
   * are removed in that same transaction; the caller frees their bytes afterwards.
   * Throws when `drop` names the version being committed.
   */
  commitVersion(
    id: string,
    expectedRevision: number,
    version: VersionRecord,
    patch: FilePatch,
    drop?: readonly number[],
  ): Promise<FileRecord | undefined>
  /**
   * Removes the file and its versions, and reports every blob key they used. With
   * expectedRevision it is a compare-and-set like update(): the file goes only while its
   * revision still equals expectedRevision (checked and deleted in one transaction),
   * otherwise nothing changes and the outcome is 'revision-moved' (the caller re-reads
   * and decides again). Without it the file goes whatever its revision.
   */
  delete(id: string, expectedRevision?: number): Promise<FileDeletion>
  listVersions(fileId: string): Promise<VersionRecord[]>
  /**
   * Which of `blobKeys` some version of some file uses (a file's current blob is always
   * one of its versions'), or some rendition of contents a version uses. For the garbage collector: a key not returned may be deleted
   * once it is old enough that no write in progress can still commit it.
   */
  blobKeysInUse(blobKeys: string[]): Promise<Set<string>>
  getVersion(fileId: string, version: number): Promise<VersionRecord | undefined>
  /** How many files hold a lock that has not expired at `now` (one indexed count, for metrics). */
  countLocked(now: number): Promise<number>
}

export type FolderPatch = Partial<
  Pick<FolderRecord, 'title' | 'parentId' | 'updatedAt' | 'updatedBy' | 'trashedAt' | 'originFolderId'>
>

/** What a list of folders can be sorted by (their size is not kept: by title instead). */
export interface FolderListQuery {
  parentId: string
  offset: number
  limit: number
  sortBy: FileSortField
  descending: boolean
  /** Case-insensitive substring of the title. */
  titleContains?: string
  /** Only folders shared with someone ("Shared by me"). */
  sharedOnly?: boolean
}

/** What FolderRepository.delete did. */
export type FolderDeletion =
  | {
      outcome: 'deleted'
      /** Ids of every file that went with the folder's tree. */
      fileIds: string[]
      /** Every blob key the versions of those files used. */
      blobKeys: string[]
    }
  | { outcome: 'not-found' }
  | { outcome: 'revision-moved' }

/**
 * Folders: a tree per user under each root. A folder's content follows it by
 * reference, so a move is one row update and a crash leaves the old or the new tree.
 */
export interface FolderRepository {
  /**
   * The owner's root folder of candidate.rootType, stored as `candidate` (a root:
   * parentId null) when the owner has none yet. Concurrent calls, from any instance,
   * all get the one stored root.
   */
  ensureRoot(candidate: FolderRecord): Promise<FolderRecord>
  /** The owner's root of that section, if created. */
  findRoot(ownerId: string, rootType: FolderRootType): Promise<FolderRecord | undefined>
  /**
   * Inserts a folder under folder.parentId (never a root: use ensureRoot). Throws
   * NAME_TAKEN when the parent holds a folder with that title (any case) and NOT_FOUND
   * when the parent does not exist.
   */
  create(folder: FolderRecord): Promise<void>
  findById(id: string): Promise<FolderRecord | undefined>
  /** The folder and its ancestors, root first; empty when the folder does not exist. */
  path(id: string): Promise<FolderRecord[]>
  /**
   * The section a folder lies in: the root type of its topmost ancestor (itself for a
   * root); undefined when the folder does not exist. One short query, for checks made on
   * every call (is this file in a trash?) that need no other part of the path.
   */
  rootTypeOf(id: string): Promise<FolderRootType | undefined>
  /** The folders directly under parentId, with their total. */
  list(query: FolderListQuery): Promise<{ total: number; items: FolderRecord[] }>
  /** Direct content counts of those folders (a folder without content counts zeros). */
  counts(ids: string[]): Promise<Map<string, FolderCounts>>
  /** True when the parent holds a folder with this title (case-insensitive). */
  titleExists(parentId: string, title: string): Promise<boolean>
  /**
   * Compare-and-set as FileRepository.update. A new parentId moves the folder with
   * everything under it in one row update; throws INVALID_INPUT when that parent is the
   * folder itself or lies under it, NOT_FOUND when it does not exist, NAME_TAKEN on a
   * title clash in the target. Root folders cannot be moved or renamed (INVALID_INPUT).
   */
  update(id: string, expectedRevision: number, patch: FolderPatch): Promise<FolderRecord | undefined>
  /**
   * Removes the folder with every folder and file under it (and their versions and
   * editing states) in one transaction, reporting the files and blob keys that went.
   * With expectedRevision it refuses as FileRepository.delete does. Roots cannot be
   * deleted (INVALID_INPUT).
   */
  delete(id: string, expectedRevision?: number): Promise<FolderDeletion>
  /** Folders put in a trash at or before `before`, oldest first, at most `limit`. */
  trashedBefore(before: number, limit: number): Promise<FolderRecord[]>
  /**
   * The files in the folder or anywhere under it that someone has open: a WOPI lock that
   * has not expired at `now`, or ONLYOFFICE editors on record. One query over the tree.
   */
  busyFilesInside(id: string, now: number): Promise<FileRecord[]>
}

/** Small named values shared by every instance (for example the signing secret). */
export interface SettingsRepository {
  get(name: string): Promise<string | undefined>
  /** Stores value unless the name is set already; returns what is stored. */
  setIfAbsent(name: string, value: string): Promise<string>
  /** Stores value under the name, replacing what it held (state that changes, such as a conversion's). */
  put(name: string, value: string): Promise<void>
}

/** A user's own portal settings (files/settings); every field has a default. */
export interface UserSettings {
  /** An upload under a name the folder holds already stores a new version of that file. */
  updateIfExist: boolean
  /** The web interface's language (ONLYOFFICE's cultureName: 'de', 'fr-FR'); '' follows the browser. */
  cultureName: string
}

/** Each user's settings; a user who never changed one reads undefined (the defaults). */
export interface UserSettingsRepository {
  get(userId: string): Promise<UserSettings | undefined>
  /** Stores the user's settings whole (removed with the user). */
  set(userId: string, settings: UserSettings): Promise<void>
}

/** A user's storage figures (see QuotaRepository). */
export interface StorageUsage {
  /** Bytes of every stored version of the files the user owns, trash included. */
  usedSpace: number
  /** The admin's limit in bytes; undefined when there is none. */
  quotaLimit: number | undefined
}

/**
 * Per-user quotas and the space each owner's files hold. The used space is kept by the
 * store itself in the transaction that adds or removes a version, so every instance on
 * the store reads the same figure, in one row read.
 */
export interface QuotaRepository {
  /** The user's used space and limit (an owner without files uses 0). */
  get(userId: string): Promise<StorageUsage>
  /** Those of several users in one read; every id given has an entry. */
  getMany(userIds: readonly string[]): Promise<Map<string, StorageUsage>>
  /** Sets the limit of each user (undefined removes it); ids of no user are ignored. */
  setLimit(userIds: readonly string[], quotaLimit: number | undefined): Promise<void>
}

/**
 * Editing sessions and save errors, one row per file, removed with the file.
 * Writes to a file that does not exist throw NOT_FOUND.
 */
export interface EditingRepository {
  /** Status 1: replaces the editor list and remembers the session key. */
  setEditors(fileId: string, documentKey: string, editors: string[], now: number): Promise<void>
  /**
   * Status 2/3/4: empties the editor list, but only while the stored session key is
   * documentKey, so a late callback of an old session never hides a newer one.
   * True when it cleared something.
   */
  endSession(fileId: string, documentKey: string, now: number): Promise<boolean>
  /** Keeps the error with the file (the editor list is untouched). */
  recordError(fileId: string, error: SaveError): Promise<void>
  clearError(fileId: string): Promise<void>
  get(fileId: string): Promise<EditingState | undefined>
  /** The states of those files that have one, in one query (for a page of a listing). */
  getMany(fileIds: string[]): Promise<EditingState[]>
  /** The states whose editor list holds `userId` (the sessions a disabled user is in). */
  findByEditor(userId: string): Promise<EditingState[]>
}

/** Which audit events to list: newest first, `offset`/`limit` paging, optional time bounds. */
export interface AuditQuery {
  offset: number
  limit: number
  /** Only events at or after this time. */
  since?: number
  /** Only events before this time. */
  until?: number
}

/** The audit trail: append-only, read newest first. */
export interface AuditRepository {
  append(event: AuditEvent): Promise<void>
  /**
   * One page of events, newest first (events recorded in the same millisecond come in
   * the reverse of the order they were appended), and how many match in all.
   */
  list(query: AuditQuery): Promise<{ total: number; items: AuditEvent[] }>
}

/**
 * Who was given access to which file or folder: at most one entry per (item, user). A
 * file's entries are removed with the file.
 */
export interface ShareRepository {
  /** Stores the entry, replacing the user's earlier entry on the same item. */
  put(share: ShareRecord): Promise<void>
  /** Removes the user's entry on the item; true when there was one. */
  remove(itemKind: ShareItemKind, itemId: string, userId: string): Promise<boolean>
  find(itemKind: ShareItemKind, itemId: string, userId: string): Promise<ShareRecord | undefined>
  /** Every entry on the item, oldest grant first. */
  listForItem(itemKind: ShareItemKind, itemId: string): Promise<ShareRecord[]>
  /** Every entry naming the user, newest grant first. */
  listForUser(userId: string): Promise<ShareRecord[]>
  /** Every entry on any of these items, in one read (a listing's markers), oldest grant first. */
  listForItems(itemKind: ShareItemKind, itemIds: readonly string[]): Promise<ShareRecord[]>
}

/** The link of each file (at most one), removed with the file. */
export interface ShareLinkRepository {
  /** Stores the file's link, replacing (and so invalidating) any earlier one. */
  put(link: ShareLinkRecord): Promise<void>
  find(fileId: string): Promise<ShareLinkRecord | undefined>
  /** The links that are on among these files, in one read (a listing's markers). */
  listWorking(fileIds: readonly string[]): Promise<ShareLinkRecord[]>
  /** Changes the access of a working link; false when the file has none or it is off. */
  setAccess(fileId: string, access: number): Promise<boolean>
  /** Turns the link off at `now`; false when there was no working link. */
  revoke(fileId: string, now: number): Promise<boolean>
}

/** The link of each folder (at most one), removed with the folder. */
export interface FolderLinkRepository {
  /** Stores the folder's link, replacing (and so invalidating) any earlier one. */
  put(link: FolderLinkRecord): Promise<void>
  find(folderId: string): Promise<FolderLinkRecord | undefined>
  /** The link whose key has this hash, on or off (a guest's key names its link). */
  findByKeyHash(keyHash: string): Promise<FolderLinkRecord | undefined>
  /** The links that are on (not revoked; expired ones included) among these folders, in one read. */
  listWorking(folderIds: readonly string[]): Promise<FolderLinkRecord[]>
  /** Changes the settings of a working link (same key); false when the folder has none or it is off. */
  update(folderId: string, settings: Pick<FolderLinkRecord, 'access' | 'denyDownload' | 'expiresAt'>): Promise<boolean>
  /** Turns the link off at `now`; false when there was no working link. */
  revoke(folderId: string, now: number): Promise<boolean>
}

/** What a finished file operation records. */
export interface OperationOutcome {
  finishedAt: number
  error: string
  files: OperationItem[]
  folders: OperationItem[]
}

/**
 * File operations of every user, shared by every instance. An operation is reported to
 * its user until it has finished and been reported once (ONLYOFFICE drops a finished
 * operation after reporting it); purge() expires the ones nobody asked about.
 */
export interface FileOperationRepository {
  /** Records an operation that has started (finishedAt null). */
  start(operation: FileOperationRecord): Promise<void>
  /** Records how it ended; false when there is no such running operation. */
  finish(id: string, outcome: OperationOutcome): Promise<boolean>
  /**
   * The user's operations, oldest first: running ones stay, finished ones are removed in
   * the same transaction, so two instances never both report one; finished ones named in
   * `keep` are reported and stay, for the next take.
   */
  take(userId: string, keep?: readonly string[]): Promise<FileOperationRecord[]>
  /**
   * Removes operations that finished before `finishedBefore`, and those still marked
   * running that started before `startedBefore` (their process died); returns how many.
   */
  purge(finishedBefore: number, startedBefore: number): Promise<number>
  /** Records that the process running operation `id` is alive at `now` (its heartbeat). */
  beat(id: string, now: number): Promise<void>
  /**
   * Ends, with `error` at `now`, every operation still marked running whose last heartbeat
   * (its start, before the first) is older than `silentSince`: its process died. Returns how many.
   */
  endSilent(silentSince: number, now: number, error: string): Promise<number>
}

/**
 * A stored conversion of some contents: the blob `sourceBlobKey` converted to `target`.
 * Blobs never change, so one rendition serves every version holding that source.
 */
export interface RenditionRecord {
  sourceBlobKey: string
  /** The format, as in the conversion format table ('pdf', 'png', ...). */
  target: string
  blobKey: string
  size: number
  sha256: string
  createdAt: number
}

/** The renditions made of stored contents. */
export interface RenditionRepository {
  /** The rendition of that source in that format, when one was made. */
  get(sourceBlobKey: string, target: string): Promise<RenditionRecord | undefined>
  /**
   * Records a rendition; when the pair has one already (another request or instance made
   * it meanwhile) that one stays and is returned, and the caller drops its own blob.
   */
  add(record: RenditionRecord): Promise<RenditionRecord>
  /** Which of these sources have a rendition in that format (one query, for listings). */
  presentAmong(sourceBlobKeys: readonly string[], target: string): Promise<Set<string>>
  /** Forgets a rendition whose blob turned out to be gone (it is made again). */
  forget(sourceBlobKey: string, target: string): Promise<void>
  /**
   * Removes the renditions of these sources (contents no version holds any more) and
   * returns the blob keys they used, for the caller to delete.
   */
  removeBySources(sourceBlobKeys: string[]): Promise<string[]>
}

export interface MetadataStore {
  /** Conversions of stored contents, kept while a version holds their source. */
  renditions: RenditionRepository
  users: UserRepository
  sessions: SessionRepository
  throttle: ThrottleRepository
  files: FileRepository
  folders: FolderRepository
  settings: SettingsRepository
  userSettings: UserSettingsRepository
  /** Storage quotas and used space (see QuotaRepository). */
  quotas: QuotaRepository
  editing: EditingRepository
  audit: AuditRepository
  shares: ShareRepository
  shareLinks: ShareLinkRepository
  folderLinks: FolderLinkRepository
  /** Export and import of the whole store, ids kept (`folio migrate-storage`). */
  transfer: MetadataTransfer
  operations: FileOperationRepository
  /** Background jobs shared by every instance (src/ports/job-queue.ts). */
  jobs: JobRepository
  /** The words of each file's current version (src/ports/search-index.ts). */
  search: SearchIndexRepository
  close(): Promise<void>
}
