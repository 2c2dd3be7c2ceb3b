import type { AuditAction } from './audit.js'

export type { AuditAction } from './audit.js'

/**
 * The records Folio keeps: users, sessions, files, versions, locks and editing states.
 * Plain data shared by every layer; the storage ports persist them, the application
 * returns them, adapters present them.
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
  /**
   * Embedded in the user's WOPI access tokens; bumped by a password change or a withdrawn
   * admin right, which ends every token issued before.
   */
  tokenGeneration: number
  /**
   * An admin disabled the account: it cannot sign in, and its sessions, WOPI tokens and the
   * links to its files are refused until it is enabled again. Its files and shares stay.
   */
  disabled: boolean
  createdAt: number
  updatedAt: number
}

export interface SessionRecord {
  /** SHA-256 (hex) of the bearer token; the token itself is never stored. */
  tokenHash: string
  userId: string
  createdAt: number
  expiresAt: number
}

/** A WOPI lock as stored. It may have expired: core/lock decides that from `now`. */
export interface FileLock {
  lockId: string
  expiresAt: number
  /** The user whose WOPI client took the lock (absent for locks older than this field). */
  holderId?: string
  /** When the lock was taken, ms since epoch (refreshes keep it). */
  lockedAt?: number
}

export type VersionSource = 'create' | 'upload' | 'wopi' | 'exit-save' | 'force-save' | 'restore' | 'copy'

export interface FileRecord {
  /** URL-safe, unguessable id. */
  id: string
  ownerId: string
  /** The folder holding the file (a FolderRecord id). */
  folderId: string
  /** Name with extension, no path. Unique per folder without regard to case. */
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
  lock: FileLock | null
  /**
   * The version at which the current ONLYOFFICE document key was minted.
   * Every new version moves it except a force save, so co-editors keep one key.
   */
  keyVersion: number
  /** Bumped by every write to the row; the token of compare-and-set updates. */
  revision: number
  /** When the file was moved to a trash (null when it was not put there itself). */
  trashedAt: number | null
  /** The folder the file was in when it was trashed (null when not trashed). */
  originFolderId: string | null
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

/** The sections every user has: their own documents and their trash. */
export type FolderRootType = 'my' | 'trash'

/**
 * A folder. Each user has one root folder per FolderRootType (parentId null); every
 * other folder has a parent, and its section is its root's (see the store's path()),
 * so moving a folder is one change of its parentId and its content follows.
 */
export interface FolderRecord {
  /** URL-safe, unguessable id. */
  id: string
  ownerId: string
  /** null for a root folder only. */
  parentId: string | null
  /** Unique among the parent's folders without regard to case. */
  title: string
  /** The section of a root folder; null for every other folder. */
  rootType: FolderRootType | null
  createdAt: number
  createdBy: string
  updatedAt: number
  updatedBy: string
  /** Bumped by every write to the row; the token of compare-and-set updates. */
  revision: number
  /** When the folder was moved to a trash (null when it was not put there itself). */
  trashedAt: number | null
  /** The folder it was in when it was trashed (null when not trashed). */
  originFolderId: string | null
}

/** How many files and folders a folder holds directly. */
export interface FolderCounts {
  files: number
  folders: number
}

/** What a list of files can be sorted by. */
/** 'type' orders files by extension, 'author' by the creator's display name; both then by title. */
export type FileSortField = 'title' | 'created' | 'updated' | 'size' | 'type' | 'author'

/**
 * One entry of the audit trail: who did what, to what, when and from which address.
 * Kept as plain text so it stays readable after the user or file it names is gone.
 */
export interface AuditEvent {
  id: string
  at: number
  action: AuditAction
  /** The acting user's id ('' when nobody was signed in, as for a failed sign-in). */
  actorId: string
  /** The acting user's name, or the name tried for a failed sign-in ('cli' at the console). */
  actorName: string
  /** The client address the request came from ('' when unknown, 'local' for the CLI). */
  address: string
  /** What was acted on: 'user', 'file' or '' for the actor's own session. */
  targetType: 'user' | 'file' | 'folder' | ''
  targetId: string
  /** The user or file name at the time. */
  targetName: string
  /** A short description of what changed (for example 'version 3'); '' when nothing more. */
  detail: string
}

/** What a share entry names: a file, or a folder and everything below it. */
export type ShareItemKind = 'file' | 'folder'

/** One person's access to one file or folder, granted by its owner or an admin. */
export interface ShareRecord {
  itemKind: ShareItemKind
  itemId: string
  userId: string
  /** FileShare number: 1 ReadWrite, 2 Read, 3 Restrict, 5 Review, 6 Comment, 7 FillForms. */
  access: number
  grantedBy: string
  grantedAt: number
}

/** A file's link for people without an account. Only the SHA-256 of its key is kept. */
export interface ShareLinkRecord {
  fileId: string
  /** SHA-256 (hex) of the link's unguessable key. */
  keyHash: string
  /** FileShare number: 1 ReadWrite, 2 Read, 5 Review, 6 Comment. */
  access: number
  createdAt: number
  /** When the link was turned off; null while it works. */
  revokedAt: number | null
}

/**
 * A folder's link for people without an account: it reaches every file and folder below
 * the folder at the moment of each request. Only the SHA-256 of its key is kept.
 */
export interface FolderLinkRecord {
  folderId: string
  /** SHA-256 (hex) of the link's unguessable key. */
  keyHash: string
  /** FileShare number: 1 ReadWrite, 2 Read, 5 Review, 6 Comment (what it gives on each file). */
  access: number
  /** True when guests may view but not download (DocSpace's denyDownload). */
  denyDownload: boolean
  /** When the link stops working by itself; null: never. */
  expiresAt: number | null
  createdAt: number
  /** When the link was turned off; null while it works. */
  revokedAt: number | null
}

/** What a file operation does (ONLYOFFICE's operation types Move 0, Copy 1, Delete 2). */
export type FileOperationKind = 'move' | 'copy' | 'delete' | 'download'

/** An item a file operation acted on, as it was then. */
export interface OperationItem {
  id: string
  title: string
  /** The format a download sends this file in (converted), when not as stored. */
  convertTo?: string
}

/**
 * A file operation (move, copy, delete, empty trash) one user started, kept in the store so
 * that whichever instance the user asks next reports it (`GET files/fileops`).
 */
export interface FileOperationRecord {
  id: string
  userId: string
  kind: FileOperationKind
  startedAt: number
  /** When it finished; null while it runs. */
  finishedAt: number | null
  /** Why it failed; '' when it did not. */
  error: string
  /** The files and folders it left at their destination (or deleted). */
  files: OperationItem[]
  folders: OperationItem[]
}
