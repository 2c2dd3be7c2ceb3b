import { DomainError } from '../../core/errors.js'
import type {
  FileSortField,
  FolderCounts,
  FolderDeletion,
  FolderPatch,
  FolderRecord,
  FolderRepository,
  FolderRootType,
} from '../../ports/metadata-store.js'
import type { Database } from './database.js'
import { titleKey } from './files.js'
import { toFile, type FileRow } from '../metadata-shared/file-rows.js'
import { isRootType, toFolder, type FolderRow } from '../metadata-shared/folder-rows.js'
import { checkPage, folderOrderBy, pageFromRows, type PageRow } from '../metadata-shared/page-rows.js'
import { isForeignKeyViolation, isUniqueViolation } from './pg-errors.js'

// Folder moves take this transaction-scoped advisory lock, so two moves that would
// each be fine alone (A under B, B under A) cannot both pass their cycle check.
const MOVE_LOCK = 0x464f4c44

const INSERT = `INSERT INTO folders (id, owner_id, parent_id, title, title_key, root_type,
    created_at, created_by, updated_at, updated_by, revision, trashed_at, origin_folder_id)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

const PATH_SQL = `WITH RECURSIVE up (id, parent_id, depth) AS (
    SELECT id, parent_id, 0 FROM folders WHERE id = $1
    UNION ALL SELECT folders.id, folders.parent_id, up.depth + 1
      FROM folders JOIN up ON folders.id = up.parent_id
  ) SELECT folders.* FROM up JOIN folders ON folders.id = up.id ORDER BY up.depth DESC`

const ROOT_TYPE_SQL = `WITH RECURSIVE up (id, parent_id, root_type) AS (
    SELECT id, parent_id, root_type FROM folders WHERE id = $1
    UNION ALL SELECT folders.id, folders.parent_id, folders.root_type
      FROM folders JOIN up ON folders.id = up.parent_id
  ) SELECT root_type FROM up WHERE parent_id IS NULL`

const TREE_SQL = `WITH RECURSIVE tree (id) AS (
    SELECT id FROM folders WHERE id = $1
    UNION ALL SELECT folders.id FROM folders JOIN tree ON folders.parent_id = tree.id
  ) SELECT id FROM tree`

const UPDATE = `UPDATE folders SET
    title = CASE WHEN $3::boolean THEN $4::text ELSE title END,
    title_key = CASE WHEN $3::boolean THEN $5::text ELSE title_key END,
    parent_id = CASE WHEN $6::boolean THEN $7::text ELSE parent_id END,
    updated_at = CASE WHEN $8::boolean THEN $9::bigint ELSE updated_at END,
    updated_by = CASE WHEN $10::boolean THEN $11::text ELSE updated_by END,
    trashed_at = CASE WHEN $12::boolean THEN $13::bigint ELSE trashed_at END,
    origin_folder_id = CASE WHEN $14::boolean THEN $15::text ELSE origin_folder_id END,
    revision = revision + 1
  WHERE id = $1 AND revision = $2 RETURNING *`

// A folder its owner shared with someone ("Shared by me"; folders have no links).
const SHARED_FOLDER = `EXISTS (SELECT 1 FROM shares WHERE shares.item_kind = 'folder' AND shares.item_id = folders.id)`

/**
 * One page of a folder listing with its total; only fixed column names go into it.
 * $1 parent, $2 limit, $3 offset, $4 the needle (filtered only).
 */
export function folderListSql(sortBy: FileSortField, descending: boolean, filtered: boolean, shared = false): string {
  const filter = `${filtered ? 'AND strpos(folders.title_key, $4) > 0' : ''} ${shared ? `AND ${SHARED_FOLDER}` : ''}`
  const total =
    filtered || shared
      ? `SELECT count(*) FROM folders WHERE folders.parent_id = $1 ${filter}`
      : 'SELECT coalesce((SELECT folders FROM folder_counts WHERE folder_id = $1), 0)'
  const order = (table: string) => folderOrderBy(sortBy, { table, author: `${table}author_key`, descending })
  // COLLATE "C" orders names by bytes, as SQLite does; the page carries the name so the
  // outer query keeps the same order.
  const from =
    sortBy === 'author'
      ? `folders.*, coalesce(users.display_name, '') COLLATE "C" AS author_key FROM folders
      LEFT JOIN users ON users.id = folders.created_by`
      : 'folders.* FROM folders'
  return `SELECT (${total}) AS list_total, page.* FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (SELECT ${from} WHERE folders.parent_id = $1 ${filter}
      ORDER BY ${order('')} LIMIT $2 OFFSET $3) AS page ON true
    ORDER BY ${order('page.')}`
}

function folderParams(folder: FolderRecord): unknown[] {
  return [
    folder.id,
    folder.ownerId,
    folder.parentId,
    folder.title,
    titleKey(folder.title),
    folder.rootType,
    folder.createdAt,
    folder.createdBy,
    folder.updatedAt,
    folder.updatedBy,
    folder.revision,
    folder.trashedAt,
    folder.originFolderId,
  ]
}

function patchParams(id: string, expectedRevision: number, patch: FolderPatch): unknown[] {
  return [
    id,
    expectedRevision,
    patch.title !== undefined,
    patch.title ?? null,
    patch.title === undefined ? null : titleKey(patch.title),
    patch.parentId !== undefined,
    patch.parentId ?? null,
    patch.updatedAt !== undefined,
    patch.updatedAt ?? null,
    patch.updatedBy !== undefined,
    patch.updatedBy ?? null,
    patch.trashedAt !== undefined,
    patch.trashedAt ?? null,
    patch.originFolderId !== undefined,
    patch.originFolderId ?? null,
  ]
}

async function guardTitle<T>(title: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error, 'folders_by_parent_title')) {
      throw new DomainError('NAME_TAKEN', `a folder named ${title ?? ''} exists already`)
    }
    if (isForeignKeyViolation(error)) throw new DomainError('NOT_FOUND', 'parent folder not found')
    throw error
  }
}

/**
 * Folders in PostgreSQL. A move is one UPDATE of parent_id after a cycle check, both in
 * one transaction under an advisory lock; a delete takes the whole tree with its files
 * and versions in one transaction.
 */
export function createFolderRepository(db: Database): FolderRepository {
  async function findRoot(ownerId: string, rootType: FolderRootType) {
    const { rows } = await db.query<FolderRow>(
      'SELECT * FROM folders WHERE owner_id = $1 AND root_type = $2 AND parent_id IS NULL',
      [ownerId, rootType],
    )
    return rows[0] === undefined ? undefined : toFolder(rows[0])
  }

  return {
    async busyFilesInside(id, now) {
      const { rows } = await db.query<FileRow>(
        `WITH RECURSIVE tree (id) AS (
            SELECT id FROM folders WHERE id = $1
            UNION ALL SELECT folders.id FROM folders JOIN tree ON folders.parent_id = tree.id
          ) SELECT files.* FROM files JOIN tree ON files.folder_id = tree.id
          WHERE files.lock_expires_at > $2
            OR EXISTS (SELECT 1 FROM editing WHERE editing.file_id = files.id AND editing.editors <> '[]')`,
        [id, now],
      )
      return rows.map(toFile)
    },
    async ensureRoot(candidate) {
      if (candidate.parentId !== null || candidate.rootType === null) {
        throw new Error('ensureRoot stores root folders only')
      }
      const found = await findRoot(candidate.ownerId, candidate.rootType)
      if (found !== undefined) return found
      await db.query(
        `${INSERT}
        ON CONFLICT (owner_id, root_type) WHERE parent_id IS NULL DO NOTHING`,
        folderParams(candidate),
      )
      const stored = await findRoot(candidate.ownerId, candidate.rootType)
      if (stored === undefined) throw new Error(`root folder ${candidate.rootType} was not stored`)
      return stored
    },

    findRoot,

    async create(folder) {
      if (folder.parentId === null || folder.rootType !== null) {
        throw new Error('create makes ordinary folders only; roots come from ensureRoot')
      }
      await guardTitle(folder.title, () => db.query(INSERT, folderParams(folder)))
    },

    async findById(id) {
      const { rows } = await db.query<FolderRow>('SELECT * FROM folders WHERE id = $1', [id])
      return rows[0] === undefined ? undefined : toFolder(rows[0])
    },

    async rootTypeOf(id) {
      const { rows } = await db.query<{ root_type: string | null }>(ROOT_TYPE_SQL, [id])
      const type = rows[0]?.root_type
      return typeof type === 'string' && isRootType(type) ? type : undefined
    },

    async path(id) {
      const { rows } = await db.query<FolderRow>(PATH_SQL, [id])
      return rows.map(toFolder)
    },

    async list(query) {
      checkPage(query)
      const needle = titleKey(query.titleContains ?? '')
      const filtered = needle !== ''
      const params: unknown[] = [query.parentId, query.limit, query.offset]
      if (filtered) params.push(needle)
      const { rows } = await db.query<PageRow<FolderRow>>(
        folderListSql(query.sortBy, query.descending, filtered, query.sharedOnly === true),
        params,
      )
      return pageFromRows(rows, toFolder)
    },

    async counts(ids) {
      const counts = new Map<string, FolderCounts>()
      for (const id of ids) counts.set(id, { files: 0, folders: 0 })
      const { rows } = await db.query<{ folder_id: string; files: number; folders: number }>(
        'SELECT * FROM folder_counts WHERE folder_id = ANY($1::text[])',
        [ids],
      )
      for (const row of rows) {
        counts.set(row.folder_id, { files: Number(row.files), folders: Number(row.folders) })
      }
      return counts
    },

    async titleExists(parentId, title) {
      const { rows } = await db.query<{ taken: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM folders WHERE parent_id = $1 AND title_key = $2) AS taken',
        [parentId, titleKey(title)],
      )
      return rows[0]?.taken === true
    },

    async update(id, expectedRevision, patch) {
      return guardTitle(patch.title, () =>
        db.transaction(async (tx) => {
          const moving = patch.parentId !== undefined
          if (moving) await tx.query('SELECT pg_advisory_xact_lock($1)', [MOVE_LOCK])
          const { rows } = await tx.query<FolderRow>('SELECT * FROM folders WHERE id = $1 FOR UPDATE', [id])
          const current = rows[0]
          if (current === undefined) return undefined
          if (current.parent_id === null && (moving || patch.title !== undefined)) {
            throw new DomainError('INVALID_INPUT', 'a root folder cannot be moved or renamed')
          }
          if (patch.parentId !== undefined && patch.parentId !== current.parent_id) {
            if (patch.parentId === null) {
              throw new DomainError('INVALID_INPUT', 'a folder cannot become a root folder')
            }
            const target = await tx.query<FolderRow>(PATH_SQL, [patch.parentId])
            if (target.rows.length === 0) {
              throw new DomainError('NOT_FOUND', 'destination folder not found')
            }
            if (target.rows.some((row) => row.id === id)) {
              throw new DomainError('INVALID_INPUT', 'a folder cannot be moved into itself or its sub-folders')
            }
          }
          const updated = await tx.query<FolderRow>(UPDATE, patchParams(id, expectedRevision, patch))
          return updated.rows[0] === undefined ? undefined : toFolder(updated.rows[0])
        }),
      )
    },

    async delete(id, expectedRevision) {
      return db.transaction(async (tx): Promise<FolderDeletion> => {
        // Deleting a tree excludes moves into it while it goes.
        await tx.query('SELECT pg_advisory_xact_lock($1)', [MOVE_LOCK])
        const { rows } = await tx.query<FolderRow>('SELECT * FROM folders WHERE id = $1 FOR UPDATE', [id])
        const current = rows[0]
        if (current === undefined) return { outcome: 'not-found' }
        if (current.parent_id === null) {
          throw new DomainError('INVALID_INPUT', 'a root folder cannot be deleted')
        }
        if (expectedRevision !== undefined && Number(current.revision) !== expectedRevision) {
          return { outcome: 'revision-moved' }
        }
        const tree = await tx.query<{ id: string }>(TREE_SQL, [id])
        const folderIds = tree.rows.map((row) => row.id)
        const files = await tx.query<{ id: string }>(
          'SELECT id FROM files WHERE folder_id = ANY($1::text[]) FOR UPDATE',
          [folderIds],
        )
        const fileIds = files.rows.map((row) => row.id)
        const keys = await tx.query<{ blob_key: string }>(
          'SELECT DISTINCT blob_key FROM versions WHERE file_id = ANY($1::text[])',
          [fileIds],
        )
        // Versions and editing state go with their files (their foreign keys cascade).
        await tx.query('DELETE FROM files WHERE id = ANY($1::text[])', [fileIds])
        await tx.query('DELETE FROM folders WHERE id = ANY($1::text[])', [folderIds])
        return { outcome: 'deleted', fileIds, blobKeys: keys.rows.map((row) => row.blob_key) }
      })
    },

    async trashedBefore(before, limit) {
      const { rows } = await db.query<FolderRow>(
        `SELECT * FROM folders WHERE trashed_at IS NOT NULL AND trashed_at <= $1
          ORDER BY trashed_at, id LIMIT $2`,
        [before, limit],
      )
      return rows.map(toFolder)
    },
  }
}
