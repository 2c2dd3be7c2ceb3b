/**
 * Metadata ports. Every method is async so a networked driver (PostgreSQL) fits
 * behind the same interface as the embedded SQLite one. Times are milliseconds
 * since the epoch. Drivers translate their own errors (unique violations and so
 * on) into DomainError codes; nothing above this line sees SQL.
 */

export interface UserRecord {
  /** URL-safe random id; never reused. */
  id: string
  /** Login name as typed at creation; unique without regard to case. */
  userName: string
  displayName: string
  email: string
  isAdmin: boolean
  /** Self-describing scrypt hash (see core/passwords). Never the password. */
  passwordHash: string
  /** Opaque string a WOPI client stored with PutUserInfo ('' when none). */
  wopiUserInfo: string
  createdAt: number
  updatedAt: number
}

export type UserPatch = Partial<
  Pick<UserRecord, 'displayName' | 'email' | 'isAdmin' | 'passwordHash' | 'wopiUserInfo'>
> & { updatedAt: number }

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

export interface SessionRecord {
  /** SHA-256 (hex) of the bearer token; the token itself is never stored. */
  tokenHash: string
  userId: string
  createdAt: number
  expiresAt: number
}

export interface SessionRepository {
  create(session: SessionRecord): Promise<void>
  find(tokenHash: string): Promise<SessionRecord | undefined>
  /** Ends one session (logout). */
  revoke(tokenHash: string): Promise<void>
  revokeAllForUser(userId: string): Promise<void>
  purgeExpired(now: number): Promise<number>
}

export interface ThrottleWindow {
  failures: number
  windowStartedAt: number
}

/** Failed-login counters, stored so a throttle survives a restart. */
export interface ThrottleRepository {
  /**
   * Adds one failure to `key`; a window older than windowMs starts over.
   * Returns the window after the increment.
   */
  recordFailure(key: string, now: number, windowMs: number): Promise<ThrottleWindow>
  get(key: string): Promise<ThrottleWindow | undefined>
  clear(key: string): Promise<void>
}

/** A WOPI lock as stored. It may have expired: core/lock decides that from `now`. */
export interface StoredLock {
  lockId: string
  expiresAt: number
}

export type VersionSource =
  | 'create'
  | 'upload'
  | 'wopi'
  | 'exit-save'
  | 'force-save'
  | 'restore'
  | 'copy'

export interface FileRecord {
  /** URL-safe, unguessable id. */
  id: string
  ownerId: string
  /** Name with extension, no path. Unique per owner without regard to case. */
  title: string
  /** Current version number, from 1. */
  version: number
  /** Size, SHA-256 and blob of the current version, copied here for one-row reads. */
  size: number
  sha256: string
  blobKey: string
  createdAt: number
  createdBy: string
  updatedAt: number
  updatedBy: string
  lock: StoredLock | null
  /**
   * The version at which the current ONLYOFFICE document key was minted.
   * Every new version moves it except a force save, so co-editors keep one key.
   */
  keyVersion: number
  /** Bumped by every write to the row; the token of compare-and-set updates. */
  revision: number
}

export interface VersionRecord {
  fileId: string
  version: number
  blobKey: string
  size: number
  sha256: string
  createdAt: number
  createdBy: string
  source: VersionSource
  /** Free-form facts about the save (WOPI flags, forcesavetype, history...). */
  meta: Record<string, unknown>
}

export type FilePatch = Partial<
  Pick<FileRecord, 'title' | 'lock' | 'updatedAt' | 'updatedBy' | 'keyVersion'>
>

export type FileSortField = 'title' | 'created' | 'updated' | 'size'

export interface FileListQuery {
  ownerId: string
  offset: number
  limit: number
  sortBy: FileSortField
  descending: boolean
  /** Case-insensitive substring of the title. */
  titleContains?: string
}

/**
 * What FileRepository.delete did: removed the file (with every blob key its versions
 * used), found no such file, or left it alone because its revision had moved on.
 */
export type FileDeletion =
  | { outcome: 'deleted'; blobKeys: string[] }
  | { outcome: 'not-found' }
  | { outcome: 'revision-moved' }

export interface FileRepository {
  /**
   * Inserts the file and its first version in one transaction.
   * Throws NAME_TAKEN when the owner already has that title.
   */
  create(file: FileRecord, firstVersion: VersionRecord): Promise<void>
  findById(id: string): Promise<FileRecord | undefined>
  list(query: FileListQuery): Promise<{ total: number; items: FileRecord[] }>
  /** True when the owner has a file with this title (case-insensitive). */
  titleExists(ownerId: string, title: string): Promise<boolean>
  /** The owner's file with this title compared without regard to case, in one lookup. */
  findByTitle(ownerId: string, title: string): Promise<FileRecord | undefined>
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
   */
  commitVersion(
    id: string,
    expectedRevision: number,
    version: VersionRecord,
    patch: FilePatch,
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
  getVersion(fileId: string, version: number): Promise<VersionRecord | undefined>
}

/** Small named values shared by every instance (for example the signing secret). */
export interface SettingsRepository {
  get(name: string): Promise<string | undefined>
  /** Stores value unless the name is set already; returns what is stored. */
  setIfAbsent(name: string, value: string): Promise<string>
}

/** Why the last editor save of a file failed (ONLYOFFICE status 3/7, or a failed download). */
export interface SaveError {
  /** Callback status that reported it (3, 7), or the status whose save Folio could not finish. */
  status: number
  /** Document key of the editing session concerned. */
  documentKey: string
  message: string
  at: number
}

/** Who is editing a file in ONLYOFFICE Docs now, and how its last save went. */
export interface EditingState {
  fileId: string
  /** Key of the session the editors are in ('' before any status 1). */
  documentKey: string
  /** Ids of the users editing now, as Docs listed them (status 1 `users`). */
  editors: string[]
  updatedAt: number
  /** The last save error; cleared by the next successful save. */
  lastError: SaveError | null
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
}

export interface MetadataStore {
  users: UserRepository
  sessions: SessionRepository
  throttle: ThrottleRepository
  files: FileRepository
  settings: SettingsRepository
  editing: EditingRepository
  close(): Promise<void>
}
