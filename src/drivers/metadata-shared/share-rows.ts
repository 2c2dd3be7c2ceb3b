import type { FolderLinkRecord, ShareLinkRecord, ShareRecord } from '../../ports/metadata-store.js'

/** A row of the shares table, the same in every SQL driver (times in epoch milliseconds). */
export interface ShareRow {
  item_kind: string
  item_id: string
  user_id: string
  access: number
  granted_by: string
  granted_at: number
}

/** A row of the share_links table, the same in every SQL driver. */
export interface LinkRow {
  file_id: string
  key_hash: string
  access: number
  created_at: number
  revoked_at: number | null
}

/** The columns of a ShareRow, in the order the drivers insert them. */
export const SHARE_COLUMNS = 'item_kind, item_id, user_id, access, granted_by, granted_at'

export function toShare(row: ShareRow): ShareRecord {
  return {
    itemKind: row.item_kind === 'folder' ? 'folder' : 'file',
    itemId: row.item_id,
    userId: row.user_id,
    access: row.access,
    grantedBy: row.granted_by,
    grantedAt: row.granted_at,
  }
}

export function toLink(row: LinkRow): ShareLinkRecord {
  return {
    fileId: row.file_id,
    keyHash: row.key_hash,
    access: row.access,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  }
}

/** A row of the folder_links table, the same in every SQL driver (deny_download 0/1 or a boolean). */
export interface FolderLinkRow {
  folder_id: string
  key_hash: string
  access: number
  deny_download: number | boolean
  expires_at: number | string | null
  created_at: number | string
  revoked_at: number | string | null
}

/** The columns of a FolderLinkRow, in the order the drivers insert them. */
export const FOLDER_LINK_COLUMNS = 'folder_id, key_hash, access, deny_download, expires_at, created_at, revoked_at'

export function toFolderLink(row: FolderLinkRow): FolderLinkRecord {
  return {
    folderId: row.folder_id,
    keyHash: row.key_hash,
    access: row.access,
    denyDownload: row.deny_download === true || row.deny_download === 1,
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  }
}
