import type { FileLock, FileRecord, VersionRecord, VersionSource } from '../../core/entities.js'
import type { FilePatch } from '../../ports/metadata-store.js'

/**
 * The rows of the files and versions tables and their mapping to records, the same in
 * every SQL driver (SQLite and PostgreSQL store the same columns under the same names).
 */

export interface FileRow {
  id: string
  owner_id: string
  title: string
  title_key: string
  version: number
  size: number
  sha256: string
  blob_key: string
  created_at: number
  created_by: string
  updated_at: number
  updated_by: string
  lock_id: string | null
  lock_expires_at: number | null
  lock_user_id: string | null
  lock_locked_at: number | null
  key_version: number
  revision: number
  folder_id: string
  trashed_at: number | null
  origin_folder_id: string | null
}

export interface VersionRow {
  file_id: string
  version: number
  blob_key: string
  size: number
  sha256: string
  created_at: number
  created_by: string
  source: string
  meta: string
}

// Keyed by the union, so adding a source to the port fails the typecheck here.
const VERSION_SOURCES: Record<VersionSource, true> = {
  create: true,
  upload: true,
  wopi: true,
  'exit-save': true,
  'force-save': true,
  restore: true,
  copy: true,
}

function isVersionSource(value: string): value is VersionSource {
  return Object.hasOwn(VERSION_SOURCES, value)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function toFile(row: FileRow): FileRecord {
  const lock: FileLock | null =
    row.lock_id === null || row.lock_expires_at === null
      ? null
      : { lockId: row.lock_id, expiresAt: row.lock_expires_at }
  if (lock !== null && row.lock_user_id !== null) lock.holderId = row.lock_user_id
  if (lock !== null && row.lock_locked_at !== null) lock.lockedAt = row.lock_locked_at
  return {
    id: row.id,
    ownerId: row.owner_id,
    title: row.title,
    version: row.version,
    size: row.size,
    sha256: row.sha256,
    blobKey: row.blob_key,
    createdAt: row.created_at,
    createdBy: row.created_by,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    lock,
    keyVersion: row.key_version,
    revision: row.revision,
    folderId: row.folder_id,
    trashedAt: row.trashed_at,
    originFolderId: row.origin_folder_id,
  }
}

/**
 * The columns of `files` in a fixed order, for statements that read raw rows (arrays):
 * better-sqlite3 builds an array about twice as fast as an object with named keys, which
 * shows on the WOPI hot path (a file is read on every call).
 */
export const FILE_COLUMNS = [
  'id',
  'owner_id',
  'title',
  'title_key',
  'version',
  'size',
  'sha256',
  'blob_key',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
  'lock_id',
  'lock_expires_at',
  'lock_user_id',
  'lock_locked_at',
  'key_version',
  'revision',
  'folder_id',
  'trashed_at',
  'origin_folder_id',
] as const satisfies readonly (keyof FileRow)[]

/** Where a file's revision is in a FileTuple (and a row that starts with one). */
export const FILE_REVISION = 17

/** One row of `files` as the values of FILE_COLUMNS, in that order. */
export type FileTuple = [
  id: string,
  owner_id: string,
  title: string,
  title_key: string,
  version: number,
  size: number,
  sha256: string,
  blob_key: string,
  created_at: number,
  created_by: string,
  updated_at: number,
  updated_by: string,
  lock_id: string | null,
  lock_expires_at: number | null,
  lock_user_id: string | null,
  lock_locked_at: number | null,
  key_version: number,
  revision: number,
  folder_id: string,
  trashed_at: number | null,
  origin_folder_id: string | null,
]

/** A FileTuple, or a longer row that starts with one (a row of fileWithAccessSql). */
export type StartsWithFile = readonly [...FileTuple, ...unknown[]]

/**
 * A raw row (see FILE_COLUMNS) as a record, with the same rules as toFile. Only the
 * file's columns of a longer row are read.
 */
export function tupleToFile(t: StartsWithFile): FileRecord {
  const lock: FileLock | null = t[12] === null || t[13] === null ? null : { lockId: t[12], expiresAt: t[13] }
  if (lock !== null && t[14] !== null) lock.holderId = t[14]
  if (lock !== null && t[15] !== null) lock.lockedAt = t[15]
  return {
    id: t[0],
    ownerId: t[1],
    title: t[2],
    version: t[4],
    size: t[5],
    sha256: t[6],
    blobKey: t[7],
    createdAt: t[8],
    createdBy: t[9],
    updatedAt: t[10],
    updatedBy: t[11],
    lock,
    keyVersion: t[16],
    revision: t[17],
    folderId: t[18],
    trashedAt: t[19],
    originFolderId: t[20],
  }
}

/** One lock-only change of a file row, applied only if the row is still at `expectedRevision`. */
export interface LockChange {
  id: string
  expectedRevision: number
  lockId: string | null
  expiresAt: number | null
  holderId: string | null
  lockedAt: number | null
}

/**
 * The row `file` becomes once `change` is written, when `file` is the row as stored at
 * `change.expectedRevision`: its lock columns replaced and its revision the next. Exact,
 * because every write of a file row moves its revision and ids are never reused: a row
 * read at the revision a compare-and-set then matched is the row that write changed.
 */
export function withLockChange(file: StartsWithFile, change: LockChange): FileTuple {
  if (file[0] !== change.id || file[FILE_REVISION] !== change.expectedRevision) {
    throw new Error(`row ${file[0]} at revision ${file[FILE_REVISION]} is not the row of this lock change`)
  }
  // The file's columns only: `file` may be a longer row that starts with them.
  const next = file.slice(0, FILE_COLUMNS.length) as FileTuple
  next[12] = change.lockId
  next[13] = change.expiresAt
  next[14] = change.holderId
  next[15] = change.lockedAt
  next[FILE_REVISION] = change.expectedRevision + 1
  return next
}

/**
 * The lock a patch writes when it changes the lock and nothing else (every Lock,
 * RefreshLock and Unlock; nulls unlock), for the lock-only UPDATE of each driver: it
 * writes the lock columns alone, with no CASE per column and no index entry of the title
 * or dates touched. undefined for any other patch.
 */
export function lockOnlyChange(id: string, expectedRevision: number, patch: FilePatch): LockChange | undefined {
  const lock = patch.lock
  if (lock === undefined) return undefined
  // A loop over the keys, not a rest copy and its values: this runs on every lock call.
  for (const key in patch) if (key !== 'lock' && patch[key as keyof FilePatch] !== undefined) return undefined
  return {
    id,
    expectedRevision,
    lockId: lock?.lockId ?? null,
    expiresAt: lock?.expiresAt ?? null,
    holderId: lock?.holderId ?? null,
    lockedAt: lock?.lockedAt ?? null,
  }
}

export function toVersion(row: VersionRow): VersionRecord {
  if (!isVersionSource(row.source)) {
    const which = `version ${row.version} of file ${row.file_id}`
    throw new Error(`${which} has unknown source ${row.source}`)
  }
  const meta: unknown = JSON.parse(row.meta)
  return {
    fileId: row.file_id,
    version: row.version,
    blobKey: row.blob_key,
    size: row.size,
    sha256: row.sha256,
    createdAt: row.created_at,
    createdBy: row.created_by,
    source: row.source,
    meta: isRecord(meta) ? meta : {},
  }
}
