import type Database from 'better-sqlite3'
import { DomainError } from '../../core/errors.js'
import type {
  FileDeletion,
  FileListQuery,
  FilePatch,
  FileRecord,
  FileRepository,
  FileSortField,
  VersionRecord,
} from '../../ports/metadata-store.js'
import {
  FILE_COLUMNS,
  FILE_REVISION,
  lockOnlyChange,
  type LockChange,
  toFile,
  toVersion,
  tupleToFile,
  withLockChange,
  type FileRow,
  type FileTuple,
  type VersionRow,
} from '../metadata-shared/file-rows.js'
import {
  fileWithAccessSql,
  tupleToFileWithAccess,
  withFileRow,
  type FileWithAccessTuple,
} from '../metadata-shared/access-rows.js'
import { checkPage, fileOrderBy, SORT_FIELDS } from '../metadata-shared/page-rows.js'
import { createCommitCheckedMemo } from './commit-checked-memo.js'
import type { WalIndexHeader } from './wal-index-header.js'
import { createGroupCommit, type JobShape } from './group-commit.js'
import { isUniqueViolation, toFlag } from './sqlite-errors.js'

/** How many (file, user) access reads are remembered; a few hundred bytes each. */
const MAX_REMEMBERED_ACCESS_READS = 1024

/** The parameters of the lock-only UPDATE, in the order of its placeholders. */
type LockChangeParams = [
  lockId: string | null,
  expiresAt: number | null,
  holderId: string | null,
  lockedAt: number | null,
  id: string,
  expectedRevision: number,
]

/** A lock change writes with one UPDATE, its last step (writeLockChange). */
const ONE_STATEMENT: JobShape = { singleStatement: true }

/** Bind values of the fixed patch part of both UPDATE statements. */
interface PatchParams {
  id: string
  expectedRevision: number
  setTitle: number
  title: string | null
  titleKey: string | null
  setLock: number
  lockId: string | null
  lockExpiresAt: number | null
  lockUserId: string | null
  lockLockedAt: number | null
  setUpdatedAt: number
  updatedAt: number | null
  setUpdatedBy: number
  updatedBy: string | null
  setKeyVersion: number
  keyVersion: number | null
  setFolderId: number
  folderId: string | null
  setTrashedAt: number
  trashedAt: number | null
  setOriginFolderId: number
  originFolderId: string | null
}

interface HeadParams extends PatchParams {
  version: number
  size: number
  sha256: string
  blobKey: string
}

interface ListParams {
  folderId: string
  needle: string
  suffixes: string
  limit: number
  offset: number
}

// Each patchable column keeps its value unless its flag is bound to 1, so one
// prepared statement covers every patch and no caller text reaches the SQL.
const PATCH_SET = `
  title = CASE WHEN @setTitle THEN @title ELSE title END,
  title_key = CASE WHEN @setTitle THEN @titleKey ELSE title_key END,
  lock_id = CASE WHEN @setLock THEN @lockId ELSE lock_id END,
  lock_expires_at = CASE WHEN @setLock THEN @lockExpiresAt ELSE lock_expires_at END,
  lock_user_id = CASE WHEN @setLock THEN @lockUserId ELSE lock_user_id END,
  lock_locked_at = CASE WHEN @setLock THEN @lockLockedAt ELSE lock_locked_at END,
  updated_at = CASE WHEN @setUpdatedAt THEN @updatedAt ELSE updated_at END,
  updated_by = CASE WHEN @setUpdatedBy THEN @updatedBy ELSE updated_by END,
  key_version = CASE WHEN @setKeyVersion THEN @keyVersion ELSE key_version END,
  folder_id = CASE WHEN @setFolderId THEN @folderId ELSE folder_id END,
  trashed_at = CASE WHEN @setTrashedAt THEN @trashedAt ELSE trashed_at END,
  origin_folder_id = CASE WHEN @setOriginFolderId THEN @originFolderId ELSE origin_folder_id END,
  revision = revision + 1`

/** The key that makes titles unique per folder without regard to case (any script). */
export function titleKey(title: string): string {
  return title.toLowerCase()
}

/**
 * The lookup of one file by folder and title key. Exported so a test can check that it
 * is served by the unique (folder_id, title_key) index.
 */
export const FIND_BY_TITLE_SQL = 'SELECT * FROM files WHERE folder_id = ? AND title_key = ?'

/** The creator's name in a listing's ORDER BY (a creator since removed sorts as ''). */
export const AUTHOR_NAME = "coalesce(users.display_name, '')"

// A title matches the suffix filter when it ends with one of the JSON array's strings.
const SUFFIX_FILTER = `AND EXISTS (SELECT 1 FROM json_each(@suffixes)
  WHERE substr(files.title_key, -length(value)) = value)`

// A file its owner shared: with someone, or by a link that is on ("Shared by me").
const SHARED_FILE = `(EXISTS (SELECT 1 FROM shares WHERE shares.item_kind = 'file' AND shares.item_id = files.id)
  OR EXISTS (SELECT 1 FROM share_links WHERE share_links.file_id = files.id AND share_links.revoked_at IS NULL))`

/**
 * The SELECT of one page of a listing. Exported so a test can check that
 * every sort is served by an index; only fixed column names go into it.
 */
export function listSql(
  sortBy: FileSortField,
  descending: boolean,
  filtered: boolean,
  bySuffix = false,
  shared = false,
): string {
  const order = fileOrderBy(sortBy, { table: 'files.', author: AUTHOR_NAME, descending })
  const join = sortBy === 'author' ? 'LEFT JOIN users ON users.id = files.created_by' : ''
  const filter = filtered ? 'AND instr(files.title_key, @needle) > 0' : ''
  const suffix = bySuffix ? SUFFIX_FILTER : ''
  const sharing = shared ? `AND ${SHARED_FILE}` : ''
  // instr() matches the needle literally: % and _ are plain characters here.
  return `SELECT files.* FROM files ${join} WHERE files.folder_id = @folderId ${filter} ${suffix} ${sharing}
    ORDER BY ${order} LIMIT @limit OFFSET @offset`
}

function fileParams(file: FileRecord) {
  return {
    id: file.id,
    ownerId: file.ownerId,
    title: file.title,
    titleKey: titleKey(file.title),
    version: file.version,
    size: file.size,
    sha256: file.sha256,
    blobKey: file.blobKey,
    createdAt: file.createdAt,
    createdBy: file.createdBy,
    updatedAt: file.updatedAt,
    updatedBy: file.updatedBy,
    lockId: file.lock?.lockId ?? null,
    lockExpiresAt: file.lock?.expiresAt ?? null,
    keyVersion: file.keyVersion,
    revision: file.revision,
    folderId: file.folderId,
    trashedAt: file.trashedAt,
    originFolderId: file.originFolderId,
  }
}

function versionParams(version: VersionRecord) {
  return {
    fileId: version.fileId,
    version: version.version,
    blobKey: version.blobKey,
    size: version.size,
    sha256: version.sha256,
    createdAt: version.createdAt,
    createdBy: version.createdBy,
    source: version.source,
    meta: JSON.stringify(version.meta),
  }
}

function patchParams(id: string, expectedRevision: number, patch: FilePatch): PatchParams {
  return {
    id,
    expectedRevision,
    setTitle: toFlag(patch.title !== undefined),
    title: patch.title ?? null,
    titleKey: patch.title === undefined ? null : titleKey(patch.title),
    setLock: toFlag(patch.lock !== undefined),
    lockId: patch.lock?.lockId ?? null,
    lockExpiresAt: patch.lock?.expiresAt ?? null,
    lockUserId: patch.lock?.holderId ?? null,
    lockLockedAt: patch.lock?.lockedAt ?? null,
    setUpdatedAt: toFlag(patch.updatedAt !== undefined),
    updatedAt: patch.updatedAt ?? null,
    setUpdatedBy: toFlag(patch.updatedBy !== undefined),
    updatedBy: patch.updatedBy ?? null,
    setKeyVersion: toFlag(patch.keyVersion !== undefined),
    keyVersion: patch.keyVersion ?? null,
    setFolderId: toFlag(patch.folderId !== undefined),
    folderId: patch.folderId ?? null,
    setTrashedAt: toFlag(patch.trashedAt !== undefined),
    trashedAt: patch.trashedAt ?? null,
    setOriginFolderId: toFlag(patch.originFolderId !== undefined),
    originFolderId: patch.originFolderId ?? null,
  }
}

/** Runs `write`, turning a clash on (folder, title key) into NAME_TAKEN. */
function guardTitle<T>(title: string | undefined, write: () => T): T {
  try {
    return write()
  } catch (error) {
    if (isUniqueViolation(error, 'files.title_key')) {
      throw new DomainError('NAME_TAKEN', `a file named ${title ?? ''} exists already`)
    }
    if (isUniqueViolation(error, 'versions.version')) {
      throw new DomainError('CONCURRENT_UPDATE', 'that version of the file exists already')
    }
    throw error
  }
}

/**
 * Files and their versions in SQLite; statements are prepared once per open
 * database. Writes go through a group commit, so concurrent lock changes and
 * saves share one durable commit instead of paying an fsync each.
 */
export function createFileRepository(db: Database.Database, walIndex?: WalIndexHeader): FileRepository {
  const commit = createGroupCommit(db)
  const insertFile = db.prepare<ReturnType<typeof fileParams>>(`INSERT INTO files (id, owner_id,
      title, title_key, version, size, sha256, blob_key, created_at, created_by, updated_at,
      updated_by, lock_id, lock_expires_at, key_version, revision, folder_id, trashed_at,
      origin_folder_id)
    VALUES (@id, @ownerId, @title, @titleKey, @version, @size, @sha256, @blobKey, @createdAt,
      @createdBy, @updatedAt, @updatedBy, @lockId, @lockExpiresAt, @keyVersion, @revision,
      @folderId, @trashedAt, @originFolderId)`)
  const insertVersion = db.prepare<ReturnType<typeof versionParams>>(`INSERT INTO versions
      (file_id, version, blob_key, size, sha256, created_at, created_by, source, meta)
    VALUES (@fileId, @version, @blobKey, @size, @sha256, @createdAt, @createdBy, @source, @meta)`)
  const columns = FILE_COLUMNS.join(', ')
  // Raw rows (arrays) on the hot path: read on every WOPI call.
  const byId = db.prepare<[string], FileTuple>(`SELECT ${columns} FROM files WHERE id = ?`).raw()
  // Every WOPI call's one read: the file, the user and their access facts (see access-rows.ts).
  const withAccess = db
    .prepare<{ fileId: string; userId: string }, FileWithAccessTuple>(fileWithAccessSql('@fileId', '@userId'))
    .raw()
  const titleTaken = db
    .prepare<[string, string], number>('SELECT EXISTS (SELECT 1 FROM files WHERE folder_id = ? AND title_key = ?)')
    .pluck()
  // Raw rows of withAccess by file and user, checked against every commit before each use
  // (see commit-checked-memo.ts): an editor polls the same file with the same token.
  const recentAccess = createCommitCheckedMemo<FileWithAccessTuple>(db, MAX_REMEMBERED_ACCESS_READS, walIndex)
  const byTitle = db.prepare<[string, string], FileRow>(FIND_BY_TITLE_SQL)
  // The compare-and-set: one statement, so the revision check and the write are one step.
  const updatePatch = db.prepare<PatchParams, FileRow>(`UPDATE files SET ${PATCH_SET}
    WHERE id = @id AND revision = @expectedRevision RETURNING *`)
  // A lock change (every Lock, RefreshLock and Unlock) writes the lock columns alone: no
  // CASE per column, and the title and updated_at index entries are left untouched.
  // Positional parameters (LockChangeParams): binding named ones from an object costs a
  // property lookup each through V8's API, about 0.6 µs of a 3 µs UPDATE in a loop.
  const lockUpdate = `UPDATE files SET lock_id = ?, lock_expires_at = ?, lock_user_id = ?,
      lock_locked_at = ?, revision = revision + 1
    WHERE id = ? AND revision = ?`
  const updateLock = db.prepare<LockChangeParams, FileTuple>(`${lockUpdate} RETURNING ${columns}`).raw()
  // The same without RETURNING, for when the row at the expected revision is known (a
  // remembered read): returning the row costs about as much as the UPDATE itself.
  const updateLockKnownRow = db.prepare<LockChangeParams>(lockUpdate)
  /**
   * A lock change in the running write batch: the new row, or undefined if the revision
   * moved. Its one UPDATE is its last step (the new row is derived before it), so it runs
   * without a savepoint of its own (group-commit.ts, JobShape).
   */
  const writeLockChange = (change: LockChange): FileTuple | undefined => {
    const { lockId, expiresAt, holderId, lockedAt, id, expectedRevision } = change
    const known = recentAccess.peek(id)
    if (known === undefined || known[FILE_REVISION] !== expectedRevision) {
      return updateLock.get(lockId, expiresAt, holderId, lockedAt, id, expectedRevision)
    }
    const changed = withLockChange(known, change)
    return updateLockKnownRow.run(lockId, expiresAt, holderId, lockedAt, id, expectedRevision).changes === 1
      ? changed
      : undefined
  }
  const updateHead = db.prepare<HeadParams, FileRow>(`UPDATE files SET ${PATCH_SET},
      version = @version, size = @size, sha256 = @sha256, blob_key = @blobKey
    WHERE id = @id AND revision = @expectedRevision RETURNING *`)
  const versionsOf = db.prepare<[string], VersionRow>('SELECT * FROM versions WHERE file_id = ? ORDER BY version')
  const oneVersion = db.prepare<[string, number], VersionRow>(
    'SELECT * FROM versions WHERE file_id = ? AND version = ?',
  )
  const keysInUse = db
    .prepare<[string], string>(
      // A rendition's blob is in use while some version holds its source.
      `WITH asked (key) AS (SELECT value FROM json_each(?))
       SELECT DISTINCT blob_key FROM versions WHERE blob_key IN (SELECT key FROM asked)
       UNION SELECT r.blob_key FROM renditions r WHERE r.blob_key IN (SELECT key FROM asked)
         AND EXISTS (SELECT 1 FROM versions v WHERE v.blob_key = r.source_blob_key)`,
    )
    .pluck()
  const blobKeysOf = db
    .prepare<[string, string], string>(
      `SELECT blob_key FROM (
      SELECT blob_key, version FROM versions WHERE file_id = ?
      UNION ALL SELECT blob_key, version FROM files WHERE id = ?
    ) GROUP BY blob_key ORDER BY min(version), blob_key`,
    )
    .pluck()
  const deleteVersions = db.prepare<[string]>('DELETE FROM versions WHERE file_id = ?')
  const deleteFile = db.prepare<[string]>('DELETE FROM files WHERE id = ?')
  const revisionOf = db.prepare<[string], number>('SELECT revision FROM files WHERE id = ?').pluck()
  // One row kept by triggers (migration 005), not a count over the folder's files.
  const countAll = db
    .prepare<ListParams, number>('SELECT coalesce((SELECT files FROM folder_counts WHERE folder_id = @folderId), 0)')
    .pluck()
  const countFiltered = db
    .prepare<ListParams, number>(
      `SELECT count(*) FROM files WHERE folder_id = @folderId
        AND (@needle = '' OR instr(title_key, @needle) > 0)
        AND (@suffixes = '' OR EXISTS (SELECT 1 FROM json_each(@suffixes)
          WHERE substr(title_key, -length(value)) = value))`,
    )
    .pluck()
  const countShared = db
    .prepare<ListParams, number>(
      `SELECT count(*) FROM files WHERE folder_id = @folderId
        AND (@needle = '' OR instr(title_key, @needle) > 0)
        AND (@suffixes = '' OR EXISTS (SELECT 1 FROM json_each(@suffixes)
          WHERE substr(title_key, -length(value)) = value))
        AND ${SHARED_FILE}`,
    )
    .pluck()
  const trashed = db.prepare<[number, number], FileRow>(`SELECT * FROM files
    WHERE trashed_at IS NOT NULL AND trashed_at <= ? ORDER BY trashed_at, id LIMIT ?`)
  const pages = new Map<string, Database.Statement<ListParams, FileRow>>()
  for (const sortBy of SORT_FIELDS) {
    for (const descending of [false, true]) {
      for (const filtered of [false, true]) {
        for (const bySuffix of [false, true]) {
          const sql = listSql(sortBy, descending, filtered, bySuffix)
          pages.set(sql, db.prepare<ListParams, FileRow>(sql))
        }
      }
    }
  }

  // "Shared by me" pages are prepared when first asked for (kept with the others after):
  // most stores never list them, and start-up prepares enough already.
  const pageStatement = (sql: string) => {
    const known = pages.get(sql)
    if (known !== undefined) return known
    const made = db.prepare<ListParams, FileRow>(sql)
    pages.set(sql, made)
    return made
  }

  const createTx = db.transaction((file: FileRecord, firstVersion: VersionRecord) => {
    insertFile.run(fileParams(file))
    insertVersion.run(versionParams(firstVersion))
  })
  const lockedCount = db.prepare<[number], number>('SELECT count(*) FROM files WHERE lock_expires_at > ?').pluck()
  const dropVersions = db.prepare<[string, string]>(
    'DELETE FROM versions WHERE file_id = ? AND version IN (SELECT value FROM json_each(?))',
  )
  const commitTx = db.transaction((params: HeadParams, version: VersionRecord, drop: readonly number[]) => {
    const row = updateHead.get(params)
    if (row === undefined) return undefined
    insertVersion.run(versionParams(version))
    if (drop.length > 0) dropVersions.run(version.fileId, JSON.stringify(drop))
    return toFile(row)
  })
  // The revision check and the deletes share one transaction (SQLite has one writer),
  // so a lock or save that lands first makes a conditional delete refuse, never half-run.
  const deleteTx = db.transaction((id: string, expectedRevision?: number): FileDeletion => {
    const revision = revisionOf.get(id)
    if (revision === undefined) return { outcome: 'not-found' }
    if (expectedRevision !== undefined && revision !== expectedRevision) {
      return { outcome: 'revision-moved' }
    }
    const blobKeys = blobKeysOf.all(id, id)
    deleteVersions.run(id)
    deleteFile.run(id)
    return { outcome: 'deleted', blobKeys }
  })
  // A read transaction, so total and page come from one snapshot.
  const listTx = db.transaction((query: FileListQuery) => {
    const needle = titleKey(query.titleContains ?? '')
    const filtered = needle !== ''
    const bySuffix = query.titleEndsWith !== undefined
    const params: ListParams = {
      folderId: query.folderId,
      needle,
      suffixes: bySuffix ? JSON.stringify(query.titleEndsWith) : '',
      limit: query.limit,
      offset: query.offset,
    }
    const shared = query.sharedOnly === true
    const page = pageStatement(listSql(query.sortBy, query.descending, filtered, bySuffix, shared))
    const count = shared ? countShared : filtered || bySuffix ? countFiltered : countAll
    const total = count.get(params) ?? 0
    return { total, items: page.all(params).map(toFile) }
  })

  return {
    async create(file, firstVersion) {
      if (firstVersion.fileId !== file.id) {
        throw new Error(`first version belongs to file ${firstVersion.fileId}, not ${file.id}`)
      }
      await commit(() => guardTitle(file.title, () => createTx(file, firstVersion)))
    },

    async findById(id) {
      const row = byId.get(id)
      return row === undefined ? undefined : tupleToFile(row)
    },

    async findWithAccess(fileId, userId) {
      const row = recentAccess.read(fileId, userId, () => withAccess.get({ fileId, userId }))
      // Mapped anew on every call: callers get their own records, never a shared one.
      return row === undefined ? undefined : tupleToFileWithAccess(row)
    },

    async list(query) {
      checkPage(query)
      return listTx.deferred(query)
    },

    async titleExists(folderId, title) {
      return titleTaken.get(folderId, titleKey(title)) === 1
    },

    async findByTitle(folderId, title) {
      const row = byTitle.get(folderId, titleKey(title))
      return row === undefined ? undefined : toFile(row)
    },

    async trashedBefore(before, limit) {
      return trashed.all(before, limit).map(toFile)
    },

    async update(id, expectedRevision, patch) {
      const lockOnly = lockOnlyChange(id, expectedRevision, patch)
      if (lockOnly !== undefined) {
        // One row changed, the lock columns alone: the remembered access reads of the file
        // take the new row, so the next call of a lock cycle still hits.
        const changed = await commit(
          () => writeLockChange(lockOnly),
          (row) => {
            if (row !== undefined) recentAccess.committedOwn(1, id, (read) => withFileRow(read, row))
          },
          ONE_STATEMENT,
        )
        return changed === undefined ? undefined : tupleToFile(changed)
      }
      const row = await commit(() =>
        guardTitle(patch.title, () => updatePatch.get(patchParams(id, expectedRevision, patch))),
      )
      return row === undefined ? undefined : toFile(row)
    },

    async commitVersion(id, expectedRevision, version, patch, drop = []) {
      if (version.fileId !== id) {
        throw new Error(`version belongs to file ${version.fileId}, not ${id}`)
      }
      if (drop.includes(version.version)) {
        throw new Error(`version ${version.version} cannot be committed and dropped at once`)
      }
      const params: HeadParams = {
        ...patchParams(id, expectedRevision, patch),
        version: version.version,
        size: version.size,
        sha256: version.sha256,
        blobKey: version.blobKey,
      }
      return commit(() => guardTitle(patch.title, () => commitTx(params, version, drop)))
    },

    async delete(id, expectedRevision) {
      return commit(() => deleteTx(id, expectedRevision))
    },

    async listVersions(fileId) {
      return versionsOf.all(fileId).map(toVersion)
    },

    async blobKeysInUse(blobKeys) {
      const found = new Set<string>()
      // Batches keep each statement's JSON argument small.
      for (let start = 0; start < blobKeys.length; start += 500) {
        const batch = JSON.stringify(blobKeys.slice(start, start + 500))
        for (const key of keysInUse.all(batch)) found.add(key)
      }
      return found
    },

    async getVersion(fileId, version) {
      const row = oneVersion.get(fileId, version)
      return row === undefined ? undefined : toVersion(row)
    },

    async countLocked(now) {
      return lockedCount.get(now) ?? 0
    },
  }
}
