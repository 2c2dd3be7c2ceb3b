import { DomainError } from '../../core/errors.js'
import type {
  FileDeletion,
  FilePatch,
  FileRecord,
  FileRepository,
  FileSortField,
  VersionRecord,
} from '../../ports/metadata-store.js'
import {
  lockOnlyChange,
  toFile,
  toVersion,
  tupleToFile,
  type FileRow,
  type VersionRow,
} from '../metadata-shared/file-rows.js'
import { checkPage, fileOrderBy, pageFromRows, type PageRow } from '../metadata-shared/page-rows.js'
import { createAccessReader } from './access-batch.js'
import type { Database } from './database.js'
import { createLockWriter } from './lock-batch.js'
import { isUniqueViolation } from './pg-errors.js'

// Parameters $1 and $2 of both compare-and-set updates are the id and the expected
// revision; the patch follows as ($3..$16), the new head of commitVersion as ($17..$20)
// and the file's place as ($21..$26). Each patchable column keeps its value unless
// its flag is true, so one fixed statement covers every patch and no caller text
// reaches the SQL.
const PATCH_SET = `
  title = CASE WHEN $3::boolean THEN $4::text ELSE title END,
  title_key = CASE WHEN $3::boolean THEN $5::text ELSE title_key END,
  lock_id = CASE WHEN $6::boolean THEN $7::text ELSE lock_id END,
  lock_expires_at = CASE WHEN $6::boolean THEN $8::bigint ELSE lock_expires_at END,
  lock_user_id = CASE WHEN $6::boolean THEN $15::text ELSE lock_user_id END,
  lock_locked_at = CASE WHEN $6::boolean THEN $16::bigint ELSE lock_locked_at END,
  updated_at = CASE WHEN $9::boolean THEN $10::bigint ELSE updated_at END,
  updated_by = CASE WHEN $11::boolean THEN $12::text ELSE updated_by END,
  key_version = CASE WHEN $13::boolean THEN $14::bigint ELSE key_version END,
  folder_id = CASE WHEN $21::boolean THEN $22::text ELSE folder_id END,
  trashed_at = CASE WHEN $23::boolean THEN $24::bigint ELSE trashed_at END,
  origin_folder_id = CASE WHEN $25::boolean THEN $26::text ELSE origin_folder_id END,
  revision = revision + 1`

// The compare-and-set: one statement, so the revision check and the write are one step.
// Under PostgreSQL's row locking a second writer with the same expected revision waits
// for the first, re-checks the WHERE against the row the first one left, and matches
// nothing: of any number of instances deciding at once, exactly one wins.
const UPDATE_PATCH = `UPDATE files SET ${PATCH_SET}
  WHERE id = $1 AND revision = $2 AND $17::int IS NULL AND $18::int IS NULL
    AND $19::int IS NULL AND $20::int IS NULL RETURNING *`

const UPDATE_HEAD = `UPDATE files SET ${PATCH_SET},
    version = $17, size = $18, sha256 = $19, blob_key = $20
  WHERE id = $1 AND revision = $2 RETURNING *`

const INSERT_FILE = `INSERT INTO files (id, owner_id, title, title_key, version, size, sha256,
    blob_key, created_at, created_by, updated_at, updated_by, lock_id, lock_expires_at,
    key_version, revision, folder_id, trashed_at, origin_folder_id)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
    $19)`

const INSERT_VERSION = `INSERT INTO versions
    (file_id, version, blob_key, size, sha256, created_at, created_by, source, meta)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`

const BLOB_KEYS_OF = `SELECT blob_key FROM (
    SELECT blob_key, version FROM versions WHERE file_id = $1
    UNION ALL SELECT blob_key, version FROM files WHERE id = $1
  ) AS used GROUP BY blob_key ORDER BY min(version), blob_key`

/** The key that makes titles unique per folder without regard to case (any script). */
export function titleKey(title: string): string {
  return title.toLowerCase()
}

// A file its owner shared: with someone, or by a link that is on ("Shared by me").
const SHARED_FILE = `(EXISTS (SELECT 1 FROM shares WHERE shares.item_kind = 'file' AND shares.item_id = files.id)
  OR EXISTS (SELECT 1 FROM share_links WHERE share_links.file_id = files.id AND share_links.revoked_at IS NULL))`

/**
 * The one statement that reads a page of a listing with its total, so both come from
 * one snapshot. Exported so a test can check that every sort is served by an index;
 * only fixed column names go into it. $1 folder, $2 limit, $3 offset, $4 the needle
 * ('' for none), $5 the title suffixes (filtered only). strpos() matches the needle
 * literally: % and _ are plain characters.
 */
export function listSql(sortBy: FileSortField, descending: boolean, filtered: boolean, shared = false): string {
  const condition = `($4::text = '' OR strpos(files.title_key, $4) > 0) AND ($5::text[] IS NULL
    OR EXISTS (SELECT 1 FROM unnest($5::text[]) AS s WHERE right(files.title_key, length(s)) = s))`
  const filter = `${filtered ? `AND ${condition}` : ''} ${shared ? `AND ${SHARED_FILE}` : ''}`
  // The unfiltered total is one row kept by a trigger (migration 005), not a count.
  const total =
    filtered || shared
      ? `SELECT count(*) FROM files WHERE files.folder_id = $1 ${filter}`
      : 'SELECT coalesce((SELECT files FROM folder_counts WHERE folder_id = $1), 0)'
  // The page carries the creator's name (author_key) so the outer query keeps its order.
  const order = (table: string) => fileOrderBy(sortBy, { table, author: `${table}author_key`, descending })
  // COLLATE "C" orders names by bytes, as SQLite does.
  const author =
    sortBy === 'author'
      ? `, coalesce(users.display_name, '') COLLATE "C" AS author_key FROM files
      LEFT JOIN users ON users.id = files.created_by`
      : ' FROM files'
  return `SELECT (${total}) AS list_total, page.* FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (SELECT files.*${author} WHERE files.folder_id = $1 ${filter}
      ORDER BY ${order('')} LIMIT $2 OFFSET $3) AS page ON true
    ORDER BY ${order('page.')}`
}

function fileParams(file: FileRecord): unknown[] {
  return [
    file.id,
    file.ownerId,
    file.title,
    titleKey(file.title),
    file.version,
    file.size,
    file.sha256,
    file.blobKey,
    file.createdAt,
    file.createdBy,
    file.updatedAt,
    file.updatedBy,
    file.lock?.lockId ?? null,
    file.lock?.expiresAt ?? null,
    file.keyVersion,
    file.revision,
    file.folderId,
    file.trashedAt,
    file.originFolderId,
  ]
}

function versionParams(version: VersionRecord): unknown[] {
  return [
    version.fileId,
    version.version,
    version.blobKey,
    version.size,
    version.sha256,
    version.createdAt,
    version.createdBy,
    version.source,
    JSON.stringify(version.meta),
  ]
}

function patchParams(id: string, expectedRevision: number, patch: FilePatch): unknown[] {
  return [
    id,
    expectedRevision,
    patch.title !== undefined,
    patch.title ?? null,
    patch.title === undefined ? null : titleKey(patch.title),
    patch.lock !== undefined,
    patch.lock?.lockId ?? null,
    patch.lock?.expiresAt ?? null,
    patch.updatedAt !== undefined,
    patch.updatedAt ?? null,
    patch.updatedBy !== undefined,
    patch.updatedBy ?? null,
    patch.keyVersion !== undefined,
    patch.keyVersion ?? null,
    patch.lock?.holderId ?? null,
    patch.lock?.lockedAt ?? null,
  ]
}

/** Parameters $21..$26 of both compare-and-set updates (after the head's $17..$20). */
function placeParams(patch: FilePatch): unknown[] {
  return [
    patch.folderId !== undefined,
    patch.folderId ?? null,
    patch.trashedAt !== undefined,
    patch.trashedAt ?? null,
    patch.originFolderId !== undefined,
    patch.originFolderId ?? null,
  ]
}

/** Runs `write`, turning a clash on (folder, title key) into NAME_TAKEN. */
async function guardTitle<T>(title: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error, 'files_by_folder_title')) {
      throw new DomainError('NAME_TAKEN', `a file named ${title ?? ''} exists already`)
    }
    if (isUniqueViolation(error, 'versions_pkey')) {
      throw new DomainError('CONCURRENT_UPDATE', 'that version of the file exists already')
    }
    throw error
  }
}

/**
 * Files and their versions in PostgreSQL. Every decision that must have one winner
 * across instances (lock, rename, save) is a compare-and-set on the row's revision
 * inside the database; nothing is remembered in this process.
 */
export function createFileRepository(db: Database): FileRepository {
  // Lock-only changes arriving together are committed together (lock-batch.ts).
  const writeLock = createLockWriter(db)
  // So are the reads every WOPI call starts with (access-batch.ts).
  const readWithAccess = createAccessReader(db)
  return {
    async create(file, firstVersion) {
      if (firstVersion.fileId !== file.id) {
        throw new Error(`first version belongs to file ${firstVersion.fileId}, not ${file.id}`)
      }
      await guardTitle(file.title, () =>
        db.transaction(async (client) => {
          await client.query(INSERT_FILE, fileParams(file))
          await client.query(INSERT_VERSION, versionParams(firstVersion))
        }),
      )
    },

    async findById(id) {
      const { rows } = await db.query<FileRow>('SELECT * FROM files WHERE id = $1', [id])
      return rows[0] === undefined ? undefined : toFile(rows[0])
    },

    findWithAccess: readWithAccess,

    async list(query) {
      checkPage(query)
      const needle = titleKey(query.titleContains ?? '')
      const suffixes = query.titleEndsWith === undefined ? null : [...query.titleEndsWith]
      const filtered = needle !== '' || suffixes !== null
      const params: unknown[] = [query.folderId, query.limit, query.offset]
      if (filtered) params.push(needle, suffixes)
      const { rows } = await db.query<PageRow<FileRow>>(
        listSql(query.sortBy, query.descending, filtered, query.sharedOnly === true),
        params,
      )
      return pageFromRows(rows, toFile)
    },

    async titleExists(folderId, title) {
      const { rows } = await db.query<{ taken: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM files WHERE folder_id = $1 AND title_key = $2) AS taken',
        [folderId, titleKey(title)],
      )
      return rows[0]?.taken === true
    },

    async findByTitle(folderId, title) {
      const { rows } = await db.query<FileRow>('SELECT * FROM files WHERE folder_id = $1 AND title_key = $2', [
        folderId,
        titleKey(title),
      ])
      return rows[0] === undefined ? undefined : toFile(rows[0])
    },

    async trashedBefore(before, limit) {
      const { rows } = await db.query<FileRow>(
        `SELECT * FROM files WHERE trashed_at IS NOT NULL AND trashed_at <= $1
          ORDER BY trashed_at, id LIMIT $2`,
        [before, limit],
      )
      return rows.map(toFile)
    },

    async update(id, expectedRevision, patch) {
      const change = lockOnlyChange(id, expectedRevision, patch)
      if (change !== undefined) {
        const row = await writeLock(change)
        return row === undefined ? undefined : tupleToFile(row)
      }
      const params = [...patchParams(id, expectedRevision, patch), null, null, null, null, ...placeParams(patch)]
      const { rows } = await guardTitle(patch.title, () => db.query<FileRow>(UPDATE_PATCH, params))
      return rows[0] === undefined ? undefined : toFile(rows[0])
    },

    async commitVersion(id, expectedRevision, version, patch, drop = []) {
      if (version.fileId !== id) {
        throw new Error(`version belongs to file ${version.fileId}, not ${id}`)
      }
      if (drop.includes(version.version)) {
        throw new Error(`version ${version.version} cannot be committed and dropped at once`)
      }
      const params = [
        ...patchParams(id, expectedRevision, patch),
        version.version,
        version.size,
        version.sha256,
        version.blobKey,
        ...placeParams(patch),
      ]
      return guardTitle(patch.title, () =>
        db.transaction(async (client) => {
          const { rows } = await client.query<FileRow>(UPDATE_HEAD, params)
          if (rows[0] === undefined) return undefined
          await client.query(INSERT_VERSION, versionParams(version))
          if (drop.length > 0) {
            await client.query('DELETE FROM versions WHERE file_id = $1 AND version = ANY($2::bigint[])', [
              id,
              [...drop],
            ])
          }
          return toFile(rows[0])
        }),
      )
    },

    async countLocked(now) {
      const { rows } = await db.query<{ n: number }>('SELECT count(*) AS n FROM files WHERE lock_expires_at > $1', [
        now,
      ])
      return rows[0]?.n ?? 0
    },

    async delete(id, expectedRevision) {
      // The row lock taken by FOR UPDATE makes a lock or save on the same row wait for
      // this transaction (and then find no row), or makes this one wait for it and
      // then see its new revision: a conditional delete refuses, never half-runs.
      return db.transaction(async (client): Promise<FileDeletion> => {
        const { rows } = await client.query<{ revision: number }>(
          'SELECT revision FROM files WHERE id = $1 FOR UPDATE',
          [id],
        )
        const revision = rows[0]?.revision
        if (revision === undefined) return { outcome: 'not-found' }
        if (expectedRevision !== undefined && revision !== expectedRevision) {
          return { outcome: 'revision-moved' }
        }
        const keys = await client.query<{ blob_key: string }>(BLOB_KEYS_OF, [id])
        // Versions and editing state go with the file (their foreign keys cascade).
        await client.query('DELETE FROM files WHERE id = $1', [id])
        return { outcome: 'deleted', blobKeys: keys.rows.map((row) => row.blob_key) }
      })
    },

    async listVersions(fileId) {
      const { rows } = await db.query<VersionRow>('SELECT * FROM versions WHERE file_id = $1 ORDER BY version', [
        fileId,
      ])
      return rows.map(toVersion)
    },

    async blobKeysInUse(blobKeys) {
      const found = new Set<string>()
      // Batches keep each statement's array argument small.
      for (let start = 0; start < blobKeys.length; start += 500) {
        const { rows } = await db.query<{ blob_key: string }>(
          // A rendition's blob is in use while some version holds its source.
          `SELECT DISTINCT blob_key FROM versions WHERE blob_key = ANY($1::text[])
           UNION SELECT r.blob_key FROM renditions r WHERE r.blob_key = ANY($1::text[])
             AND EXISTS (SELECT 1 FROM versions v WHERE v.blob_key = r.source_blob_key)`,
          [blobKeys.slice(start, start + 500)],
        )
        for (const row of rows) found.add(row.blob_key)
      }
      return found
    },

    async getVersion(fileId, version) {
      const { rows } = await db.query<VersionRow>('SELECT * FROM versions WHERE file_id = $1 AND version = $2', [
        fileId,
        version,
      ])
      return rows[0] === undefined ? undefined : toVersion(rows[0])
    },
  }
}
