import type Database from 'better-sqlite3'
import { DomainError } from '../../core/errors.js'
import type {
  FileSortField,
  FolderCounts,
  FolderDeletion,
  FolderListQuery,
  FolderPatch,
  FolderRecord,
  FolderRepository,
  FolderRootType,
} from '../../ports/metadata-store.js'
import { AUTHOR_NAME, titleKey } from './files.js'
import { toFile, type FileRow } from '../metadata-shared/file-rows.js'
import { isRootType, toFolder, type FolderRow } from '../metadata-shared/folder-rows.js'
import { checkPage, folderOrderBy, SORT_FIELDS } from '../metadata-shared/page-rows.js'
import { createGroupCommit } from './group-commit.js'
import { isUniqueViolation, toFlag } from './sqlite-errors.js'

interface CountRow {
  folder_id: string
  files: number
  folders: number
}

interface PatchParams {
  id: string
  expectedRevision: number
  setTitle: number
  title: string | null
  titleKey: string | null
  setParentId: number
  parentId: string | null
  setUpdatedAt: number
  updatedAt: number | null
  setUpdatedBy: number
  updatedBy: string | null
  setTrashedAt: number
  trashedAt: number | null
  setOriginFolderId: number
  originFolderId: string | null
}

interface ListParams {
  parentId: string
  needle: string
  limit: number
  offset: number
}

const PATCH_SET = `
  title = CASE WHEN @setTitle THEN @title ELSE title END,
  title_key = CASE WHEN @setTitle THEN @titleKey ELSE title_key END,
  parent_id = CASE WHEN @setParentId THEN @parentId ELSE parent_id END,
  updated_at = CASE WHEN @setUpdatedAt THEN @updatedAt ELSE updated_at END,
  updated_by = CASE WHEN @setUpdatedBy THEN @updatedBy ELSE updated_by END,
  trashed_at = CASE WHEN @setTrashedAt THEN @trashedAt ELSE trashed_at END,
  origin_folder_id = CASE WHEN @setOriginFolderId THEN @originFolderId ELSE origin_folder_id END,
  revision = revision + 1`

/** The folder and its ancestors, deepest last; `depth` counts up from the folder. */
export const PATH_SQL = `WITH RECURSIVE up (id, parent_id, depth) AS (
    SELECT id, parent_id, 0 FROM folders WHERE id = ?
    UNION ALL SELECT folders.id, folders.parent_id, up.depth + 1
      FROM folders JOIN up ON folders.id = up.parent_id
  ) SELECT folders.* FROM up JOIN folders ON folders.id = up.id ORDER BY up.depth DESC`

/** The root type of the folder's topmost ancestor (no row when the folder is missing). */
export const ROOT_TYPE_SQL = `WITH RECURSIVE up (id, parent_id, root_type) AS (
    SELECT id, parent_id, root_type FROM folders WHERE id = ?
    UNION ALL SELECT folders.id, folders.parent_id, folders.root_type
      FROM folders JOIN up ON folders.id = up.parent_id
  ) SELECT root_type FROM up WHERE parent_id IS NULL`

/** The folder and every folder under it. */
const TREE_SQL = `WITH RECURSIVE tree (id) AS (
    SELECT id FROM folders WHERE id = ?
    UNION ALL SELECT folders.id FROM folders JOIN tree ON folders.parent_id = tree.id
  ) SELECT id FROM tree`

// A folder its owner shared with someone ("Shared by me"; folders have no links).
const SHARED_FOLDER = `EXISTS (SELECT 1 FROM shares WHERE shares.item_kind = 'folder' AND shares.item_id = folders.id)`

/** The SELECT of one page of a folder listing; only fixed column names go into it. */
export function folderListSql(sortBy: FileSortField, descending: boolean, filtered: boolean, shared = false): string {
  const order = folderOrderBy(sortBy, { table: 'folders.', author: AUTHOR_NAME, descending })
  const join = sortBy === 'author' ? 'LEFT JOIN users ON users.id = folders.created_by' : ''
  const filter = filtered ? 'AND instr(folders.title_key, @needle) > 0' : ''
  const sharing = shared ? `AND ${SHARED_FOLDER}` : ''
  return `SELECT folders.* FROM folders ${join} WHERE folders.parent_id = @parentId ${filter} ${sharing}
    ORDER BY ${order} LIMIT @limit OFFSET @offset`
}

function folderParams(folder: FolderRecord) {
  return {
    id: folder.id,
    ownerId: folder.ownerId,
    parentId: folder.parentId,
    title: folder.title,
    titleKey: titleKey(folder.title),
    rootType: folder.rootType,
    createdAt: folder.createdAt,
    createdBy: folder.createdBy,
    updatedAt: folder.updatedAt,
    updatedBy: folder.updatedBy,
    revision: folder.revision,
    trashedAt: folder.trashedAt,
    originFolderId: folder.originFolderId,
  }
}

function patchParams(id: string, expectedRevision: number, patch: FolderPatch): PatchParams {
  return {
    id,
    expectedRevision,
    setTitle: toFlag(patch.title !== undefined),
    title: patch.title ?? null,
    titleKey: patch.title === undefined ? null : titleKey(patch.title),
    setParentId: toFlag(patch.parentId !== undefined),
    parentId: patch.parentId ?? null,
    setUpdatedAt: toFlag(patch.updatedAt !== undefined),
    updatedAt: patch.updatedAt ?? null,
    setUpdatedBy: toFlag(patch.updatedBy !== undefined),
    updatedBy: patch.updatedBy ?? null,
    setTrashedAt: toFlag(patch.trashedAt !== undefined),
    trashedAt: patch.trashedAt ?? null,
    setOriginFolderId: toFlag(patch.originFolderId !== undefined),
    originFolderId: patch.originFolderId ?? null,
  }
}

function guardTitle<T>(title: string | undefined, write: () => T): T {
  try {
    return write()
  } catch (error) {
    if (isUniqueViolation(error, 'folders.parent_id, folders.title_key')) {
      throw new DomainError('NAME_TAKEN', `a folder named ${title ?? ''} exists already`)
    }
    throw error
  }
}

/**
 * Folders in SQLite. A move is one UPDATE of parent_id, checked against cycles in the
 * same transaction (SQLite has one writer, so no other move interleaves); a delete takes
 * the whole tree with its files and versions in one transaction.
 */
export function createFolderRepository(db: Database.Database): FolderRepository {
  const commit = createGroupCommit(db)
  const insert = db.prepare<ReturnType<typeof folderParams>>(`INSERT INTO folders (id,
      owner_id, parent_id, title, title_key, root_type, created_at, created_by, updated_at,
      updated_by, revision, trashed_at, origin_folder_id)
    VALUES (@id, @ownerId, @parentId, @title, @titleKey, @rootType, @createdAt, @createdBy,
      @updatedAt, @updatedBy, @revision, @trashedAt, @originFolderId)`)
  const insertRoot = db.prepare<ReturnType<typeof folderParams>>(`INSERT INTO folders (id,
      owner_id, parent_id, title, title_key, root_type, created_at, created_by, updated_at,
      updated_by, revision, trashed_at, origin_folder_id)
    VALUES (@id, @ownerId, NULL, @title, @titleKey, @rootType, @createdAt, @createdBy,
      @updatedAt, @updatedBy, @revision, NULL, NULL)
    ON CONFLICT (owner_id, root_type) WHERE parent_id IS NULL DO NOTHING`)
  const byId = db.prepare<[string], FolderRow>('SELECT * FROM folders WHERE id = ?')
  const root = db.prepare<[string, string], FolderRow>(
    'SELECT * FROM folders WHERE owner_id = ? AND root_type = ? AND parent_id IS NULL',
  )
  const path = db.prepare<[string], FolderRow>(PATH_SQL)
  const rootType = db.prepare<[string], string | null>(ROOT_TYPE_SQL).pluck()
  const tree = db.prepare<[string], string>(TREE_SQL).pluck()
  const busyInside = db.prepare<[string, number], FileRow>(`WITH RECURSIVE tree (id) AS (
      SELECT id FROM folders WHERE id = ?
      UNION ALL SELECT folders.id FROM folders JOIN tree ON folders.parent_id = tree.id
    ) SELECT files.* FROM files JOIN tree ON files.folder_id = tree.id
    WHERE files.lock_expires_at > ?
      OR EXISTS (SELECT 1 FROM editing WHERE editing.file_id = files.id AND editing.editors <> '[]')`)
  const titleTaken = db
    .prepare<[string, string], number>('SELECT EXISTS (SELECT 1 FROM folders WHERE parent_id = ? AND title_key = ?)')
    .pluck()
  const countMany = db.prepare<[string], CountRow>(
    'SELECT * FROM folder_counts WHERE folder_id IN (SELECT value FROM json_each(?))',
  )
  const countAll = db
    .prepare<ListParams, number>('SELECT coalesce((SELECT folders FROM folder_counts WHERE folder_id = @parentId), 0)')
    .pluck()
  const countFiltered = db
    .prepare<ListParams, number>(
      'SELECT count(*) FROM folders WHERE parent_id = @parentId AND instr(title_key, @needle) > 0',
    )
    .pluck()
  const countShared = db
    .prepare<ListParams, number>(
      `SELECT count(*) FROM folders WHERE parent_id = @parentId
        AND (@needle = '' OR instr(title_key, @needle) > 0) AND ${SHARED_FOLDER}`,
    )
    .pluck()
  const update = db.prepare<PatchParams, FolderRow>(`UPDATE folders SET ${PATCH_SET}
    WHERE id = @id AND revision = @expectedRevision RETURNING *`)
  const trashed = db.prepare<[number, number], FolderRow>(`SELECT * FROM folders
    WHERE trashed_at IS NOT NULL AND trashed_at <= ? ORDER BY trashed_at, id LIMIT ?`)
  const filesIn = db
    .prepare<[string], string>('SELECT id FROM files WHERE folder_id IN (SELECT value FROM json_each(?))')
    .pluck()
  const blobKeysIn = db
    .prepare<[string], string>(
      `SELECT DISTINCT blob_key FROM versions
    WHERE file_id IN (SELECT value FROM json_each(?))`,
    )
    .pluck()
  const deleteVersions = db.prepare<[string]>('DELETE FROM versions WHERE file_id IN (SELECT value FROM json_each(?))')
  const deleteFiles = db.prepare<[string]>('DELETE FROM files WHERE id IN (SELECT value FROM json_each(?))')
  const deleteFolders = db.prepare<[string]>('DELETE FROM folders WHERE id IN (SELECT value FROM json_each(?))')
  const pages = new Map<string, Database.Statement<ListParams, FolderRow>>()
  for (const sortBy of SORT_FIELDS) {
    for (const descending of [false, true]) {
      for (const filtered of [false, true]) {
        const sql = folderListSql(sortBy, descending, filtered)
        pages.set(sql, db.prepare<ListParams, FolderRow>(sql))
      }
    }
  }

  // "Shared by me" pages are prepared when first asked for (kept with the others after).
  const pageStatement = (sql: string) => {
    const known = pages.get(sql)
    if (known !== undefined) return known
    const made = db.prepare<ListParams, FolderRow>(sql)
    pages.set(sql, made)
    return made
  }

  const updateTx = db.transaction((params: PatchParams, patch: FolderPatch) => {
    const current = byId.get(params.id)
    if (current === undefined) return undefined
    const movesOrRenames = patch.parentId !== undefined || patch.title !== undefined
    if (current.parent_id === null && movesOrRenames) {
      throw new DomainError('INVALID_INPUT', 'a root folder cannot be moved or renamed')
    }
    if (patch.parentId !== undefined && patch.parentId !== current.parent_id) {
      if (patch.parentId === null) {
        throw new DomainError('INVALID_INPUT', 'a folder cannot become a root folder')
      }
      const target = path.all(patch.parentId)
      if (target.length === 0) throw new DomainError('NOT_FOUND', 'destination folder not found')
      if (target.some((row) => row.id === params.id)) {
        throw new DomainError('INVALID_INPUT', 'a folder cannot be moved into itself or its sub-folders')
      }
    }
    const row = update.get(params)
    return row === undefined ? undefined : toFolder(row)
  })
  const deleteTx = db.transaction((id: string, expectedRevision?: number): FolderDeletion => {
    const current = byId.get(id)
    if (current === undefined) return { outcome: 'not-found' }
    if (current.parent_id === null) throw new DomainError('INVALID_INPUT', 'a root folder cannot be deleted')
    if (expectedRevision !== undefined && current.revision !== expectedRevision) {
      return { outcome: 'revision-moved' }
    }
    const folderIds = JSON.stringify(tree.all(id))
    const fileIds = filesIn.all(folderIds)
    const files = JSON.stringify(fileIds)
    const blobKeys = blobKeysIn.all(files)
    deleteVersions.run(files)
    deleteFiles.run(files)
    deleteFolders.run(folderIds)
    return { outcome: 'deleted', fileIds, blobKeys }
  })
  const listTx = db.transaction((query: FolderListQuery) => {
    const needle = titleKey(query.titleContains ?? '')
    const filtered = needle !== ''
    const params: ListParams = {
      parentId: query.parentId,
      needle,
      limit: query.limit,
      offset: query.offset,
    }
    const shared = query.sharedOnly === true
    const page = pageStatement(folderListSql(query.sortBy, query.descending, filtered, shared))
    const total = (shared ? countShared : filtered ? countFiltered : countAll).get(params) ?? 0
    return { total, items: page.all(params).map(toFolder) }
  })

  return {
    async busyFilesInside(id, now) {
      return busyInside.all(id, now).map(toFile)
    },
    async ensureRoot(candidate) {
      if (candidate.parentId !== null || candidate.rootType === null) {
        throw new Error('ensureRoot stores root folders only')
      }
      const rootType = candidate.rootType
      const found = root.get(candidate.ownerId, rootType)
      if (found !== undefined) return toFolder(found)
      await commit(() => insertRoot.run(folderParams(candidate)))
      const stored = root.get(candidate.ownerId, rootType)
      if (stored === undefined) throw new Error(`root folder ${rootType} was not stored`)
      return toFolder(stored)
    },

    async findRoot(ownerId, rootType) {
      const found = root.get(ownerId, rootType)
      return found === undefined ? undefined : toFolder(found)
    },

    async create(folder) {
      if (folder.parentId === null || folder.rootType !== null) {
        throw new Error('create makes ordinary folders only; roots come from ensureRoot')
      }
      const parentId = folder.parentId
      await commit(() =>
        guardTitle(folder.title, () => {
          if (byId.get(parentId) === undefined) {
            throw new DomainError('NOT_FOUND', 'parent folder not found')
          }
          insert.run(folderParams(folder))
        }),
      )
    },

    async findById(id) {
      const row = byId.get(id)
      return row === undefined ? undefined : toFolder(row)
    },

    async rootTypeOf(id) {
      const type = rootType.get(id)
      return typeof type === 'string' && isRootType(type) ? type : undefined
    },

    async path(id) {
      return path.all(id).map(toFolder)
    },

    async list(query) {
      checkPage(query)
      return listTx.deferred(query)
    },

    async counts(ids) {
      const counts = new Map<string, FolderCounts>()
      for (const id of ids) counts.set(id, { files: 0, folders: 0 })
      for (const row of countMany.all(JSON.stringify(ids))) {
        counts.set(row.folder_id, { files: row.files, folders: row.folders })
      }
      return counts
    },

    async titleExists(parentId, title) {
      return titleTaken.get(parentId, titleKey(title)) === 1
    },

    async update(id, expectedRevision, patch) {
      const params = patchParams(id, expectedRevision, patch)
      return commit(() => guardTitle(patch.title, () => updateTx(params, patch)))
    },

    async delete(id, expectedRevision) {
      return commit(() => deleteTx(id, expectedRevision))
    },

    async trashedBefore(before, limit) {
      return trashed.all(before, limit).map(toFolder)
    },
  }
}
