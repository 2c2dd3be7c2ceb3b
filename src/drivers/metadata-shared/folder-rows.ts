import type { FolderRecord, FolderRootType } from '../../ports/metadata-store.js'

/** A row of the folders table and its record, the same in every SQL driver. */
export interface FolderRow {
  id: string
  owner_id: string
  parent_id: string | null
  title: string
  title_key: string
  root_type: string | null
  created_at: number
  created_by: string
  updated_at: number
  updated_by: string
  revision: number
  trashed_at: number | null
  origin_folder_id: string | null
}

export function isRootType(value: string): value is FolderRootType {
  return value === 'my' || value === 'trash'
}

export function toFolder(row: FolderRow): FolderRecord {
  let rootType: FolderRootType | null = null
  if (row.root_type !== null) {
    if (!isRootType(row.root_type)) throw new Error(`folder ${row.id} has unknown root ${row.root_type}`)
    rootType = row.root_type
  }
  return {
    id: row.id,
    ownerId: row.owner_id,
    parentId: row.parent_id,
    title: row.title,
    rootType,
    createdAt: row.created_at,
    createdBy: row.created_by,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    revision: row.revision,
    trashedAt: row.trashed_at,
    originFolderId: row.origin_folder_id,
  }
}
