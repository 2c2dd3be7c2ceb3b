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
  VersionSource,
} from '../../ports/metadata-store.js'
import { createGroupCommit } from './group-commit.js'
import { isUniqueViolation, toFlag } from './sqlite-errors.js'

interface FileRow {
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
  key_version: number
  revision: number
}

interface VersionRow {
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
  setUpdatedAt: number
  updatedAt: number | null
  setUpdatedBy: number
  updatedBy: string | null
  setKeyVersion: number
  keyVersion: number | null
}

interface HeadParams extends PatchParams {
  version: number
  size: number
  sha256: string
  blobKey: string
}

interface ListParams {
  ownerId: string
  needle: string
  limit: number
  offset: number
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

// The only column names that ever reach ORDER BY; each has an index led by owner_id.
const SORT_COLUMNS: Record<FileSortField, string> = {
  title: 'title_key',
  created: 'created_at',
  updated: 'updated_at',
  size: 'size',
}

const SORT_FIELDS: readonly FileSortField[] = ['title', 'created', 'updated', 'size']

// Each patchable column keeps its value unless its flag is bound to 1, so one
// prepared statement covers every patch and no caller text reaches the SQL.
const PATCH_SET = `
  title = CASE WHEN @setTitle THEN @title ELSE title END,
  title_key = CASE WHEN @setTitle THEN @titleKey ELSE title_key END,
  lock_id = CASE WHEN @setLock THEN @lockId ELSE lock_id END,
  lock_expires_at = CASE WHEN @setLock THEN @lockExpiresAt ELSE lock_expires_at END,
  updated_at = CASE WHEN @setUpdatedAt THEN @updatedAt ELSE updated_at END,
  updated_by = CASE WHEN @setUpdatedBy THEN @updatedBy ELSE updated_by END,
  key_version = CASE WHEN @setKeyVersion THEN @keyVersion ELSE key_version END,
  revision = revision + 1`

/** The key that makes titles unique per owner without regard to case (any script). */
export function titleKey(title: string): string {
  return title.toLowerCase()
}

/**
 * The lookup of one file by owner and title key. Exported so a test can check that it
 * is served by the unique (owner_id, title_key) index.
 */
export const FIND_BY_TITLE_SQL = 'SELECT * FROM files WHERE owner_id = ? AND title_key = ?'

/**
 * The SELECT of one page of a listing. Exported so a test can check that
 * every sort is served by an index; only fixed column names go into it.
 */
export function listSql(sortBy: FileSortField, descending: boolean, filtered: boolean): string {
  const column = SORT_COLUMNS[sortBy]
  const direction = descending ? 'DESC' : 'ASC'
  const filter = filtered ? 'AND instr(title_key, @needle) > 0' : ''
  // instr() matches the needle literally: % and _ are plain characters here.
  return `SELECT * FROM files WHERE owner_id = @ownerId ${filter}
    ORDER BY ${column} ${direction}, id ${direction} LIMIT @limit OFFSET @offset`
}

function isVersionSource(value: string): value is VersionSource {
  return Object.hasOwn(VERSION_SOURCES, value)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function toFile(row: FileRow): FileRecord {
  const lock = row.lock_id === null || row.lock_expires_at === null
    ? null
    : { lockId: row.lock_id, expiresAt: row.lock_expires_at }
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
  }
}

function toVersion(row: VersionRow): VersionRecord {
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
    setUpdatedAt: toFlag(patch.updatedAt !== undefined),
    updatedAt: patch.updatedAt ?? null,
    setUpdatedBy: toFlag(patch.updatedBy !== undefined),
    updatedBy: patch.updatedBy ?? null,
    setKeyVersion: toFlag(patch.keyVersion !== undefined),
    keyVersion: patch.keyVersion ?? null,
  }
}

function checkPage(query: FileListQuery): void {
  if (!Number.isSafeInteger(query.offset) || query.offset < 0) {
    const message = 'offset must be a whole number >= 0'
    throw new DomainError('INVALID_INPUT', message, { field: 'offset' })
  }
  if (!Number.isSafeInteger(query.limit) || query.limit < 0) {
    throw new DomainError('INVALID_INPUT', 'limit must be a whole number >= 0', { field: 'limit' })
  }
}

/** Runs `write`, turning a clash on (owner, title key) into NAME_TAKEN. */
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
export function createFileRepository(db: Database.Database): FileRepository {
  const commit = createGroupCommit(db)
  const insertFile = db.prepare<ReturnType<typeof fileParams>>(`INSERT INTO files (id, owner_id,
      title, title_key, version, size, sha256, blob_key, created_at, created_by, updated_at,
      updated_by, lock_id, lock_expires_at, key_version, revision)
    VALUES (@id, @ownerId, @title, @titleKey, @version, @size, @sha256, @blobKey, @createdAt,
      @createdBy, @updatedAt, @updatedBy, @lockId, @lockExpiresAt, @keyVersion, @revision)`)
  const insertVersion = db.prepare<ReturnType<typeof versionParams>>(`INSERT INTO versions
      (file_id, version, blob_key, size, sha256, created_at, created_by, source, meta)
    VALUES (@fileId, @version, @blobKey, @size, @sha256, @createdAt, @createdBy, @source, @meta)`)
  const byId = db.prepare<[string], FileRow>('SELECT * FROM files WHERE id = ?')
  const titleTaken = db
    .prepare<[string, string], number>(
      'SELECT EXISTS (SELECT 1 FROM files WHERE owner_id = ? AND title_key = ?)',
    )
    .pluck()
  const byTitle = db.prepare<[string, string], FileRow>(FIND_BY_TITLE_SQL)
  // The compare-and-set: one statement, so the revision check and the write are one step.
  const updatePatch = db.prepare<PatchParams, FileRow>(`UPDATE files SET ${PATCH_SET}
    WHERE id = @id AND revision = @expectedRevision RETURNING *`)
  const updateHead = db.prepare<HeadParams, FileRow>(`UPDATE files SET ${PATCH_SET},
      version = @version, size = @size, sha256 = @sha256, blob_key = @blobKey
    WHERE id = @id AND revision = @expectedRevision RETURNING *`)
  const versionsOf = db.prepare<[string], VersionRow>(
    'SELECT * FROM versions WHERE file_id = ? ORDER BY version',
  )
  const oneVersion = db.prepare<[string, number], VersionRow>(
    'SELECT * FROM versions WHERE file_id = ? AND version = ?',
  )
  const blobKeysOf = db.prepare<[string, string], string>(`SELECT blob_key FROM (
      SELECT blob_key, version FROM versions WHERE file_id = ?
      UNION ALL SELECT blob_key, version FROM files WHERE id = ?
    ) GROUP BY blob_key ORDER BY min(version), blob_key`).pluck()
  const deleteVersions = db.prepare<[string]>('DELETE FROM versions WHERE file_id = ?')
  const deleteFile = db.prepare<[string]>('DELETE FROM files WHERE id = ?')
  const revisionOf = db
    .prepare<[string], number>('SELECT revision FROM files WHERE id = ?')
    .pluck()
  // One row kept by triggers (migration 003), not a count over the owner's files.
  const countAll = db
    .prepare<ListParams, number>(
      'SELECT coalesce((SELECT files FROM file_counts WHERE owner_id = @ownerId), 0)',
    )
    .pluck()
  const countFiltered = db
    .prepare<ListParams, number>(
      'SELECT count(*) FROM files WHERE owner_id = @ownerId AND instr(title_key, @needle) > 0',
    )
    .pluck()
  const pages = new Map<string, Database.Statement<ListParams, FileRow>>()
  for (const sortBy of SORT_FIELDS) {
    for (const descending of [false, true]) {
      for (const filtered of [false, true]) {
        const sql = listSql(sortBy, descending, filtered)
        pages.set(sql, db.prepare<ListParams, FileRow>(sql))
      }
    }
  }

  const createTx = db.transaction((file: FileRecord, firstVersion: VersionRecord) => {
    insertFile.run(fileParams(file))
    insertVersion.run(versionParams(firstVersion))
  })
  const commitTx = db.transaction((params: HeadParams, version: VersionRecord) => {
    const row = updateHead.get(params)
    if (row === undefined) return undefined
    insertVersion.run(versionParams(version))
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
    const params: ListParams = {
      ownerId: query.ownerId,
      needle,
      limit: query.limit,
      offset: query.offset,
    }
    const page = pages.get(listSql(query.sortBy, query.descending, filtered))
    if (page === undefined) throw new Error(`no listing statement for sort ${query.sortBy}`)
    const total = (filtered ? countFiltered : countAll).get(params) ?? 0
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
      return row === undefined ? undefined : toFile(row)
    },

    async list(query) {
      checkPage(query)
      return listTx.deferred(query)
    },

    async titleExists(ownerId, title) {
      return titleTaken.get(ownerId, titleKey(title)) === 1
    },

    async findByTitle(ownerId, title) {
      const row = byTitle.get(ownerId, titleKey(title))
      return row === undefined ? undefined : toFile(row)
    },

    async update(id, expectedRevision, patch) {
      const row = await commit(() =>
        guardTitle(patch.title, () => updatePatch.get(patchParams(id, expectedRevision, patch))),
      )
      return row === undefined ? undefined : toFile(row)
    },

    async commitVersion(id, expectedRevision, version, patch) {
      if (version.fileId !== id) {
        throw new Error(`version belongs to file ${version.fileId}, not ${id}`)
      }
      const params: HeadParams = {
        ...patchParams(id, expectedRevision, patch),
        version: version.version,
        size: version.size,
        sha256: version.sha256,
        blobKey: version.blobKey,
      }
      return commit(() => guardTitle(patch.title, () => commitTx(params, version)))
    },

    async delete(id, expectedRevision) {
      return commit(() => deleteTx(id, expectedRevision))
    },

    async listVersions(fileId) {
      return versionsOf.all(fileId).map(toVersion)
    },

    async getVersion(fileId, version) {
      const row = oneVersion.get(fileId, version)
      return row === undefined ? undefined : toVersion(row)
    },
  }
}
