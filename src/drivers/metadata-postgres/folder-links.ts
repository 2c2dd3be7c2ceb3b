import type { FolderLinkRepository } from '../../ports/metadata-store.js'
import { FOLDER_LINK_COLUMNS, toFolderLink, type FolderLinkRow } from '../metadata-shared/share-rows.js'
import type { Database } from './database.js'

/** Folder links in PostgreSQL (table `folder_links`). */
export function createFolderLinkRepository(db: Database): FolderLinkRepository {
  const one = async (where: string, value: string) => {
    const { rows } = await db.query<FolderLinkRow>(`SELECT ${FOLDER_LINK_COLUMNS} FROM folder_links WHERE ${where}`, [
      value,
    ])
    return rows[0] === undefined ? undefined : toFolderLink(rows[0])
  }
  return {
    async put(link) {
      if (link.revokedAt !== null) throw new Error('a new link cannot be stored revoked')
      await db.query(
        `INSERT INTO folder_links (${FOLDER_LINK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, NULL)
          ON CONFLICT (folder_id) DO UPDATE SET key_hash = EXCLUDED.key_hash, access = EXCLUDED.access,
            deny_download = EXCLUDED.deny_download, expires_at = EXCLUDED.expires_at,
            created_at = EXCLUDED.created_at, revoked_at = NULL`,
        [link.folderId, link.keyHash, link.access, link.denyDownload, link.expiresAt, link.createdAt],
      )
    },
    find: (folderId) => one('folder_id = $1', folderId),
    findByKeyHash: (keyHash) => one('key_hash = $1', keyHash),
    async listWorking(folderIds) {
      if (folderIds.length === 0) return []
      const { rows } = await db.query<FolderLinkRow>(
        `SELECT ${FOLDER_LINK_COLUMNS} FROM folder_links WHERE revoked_at IS NULL AND folder_id = ANY($1::text[])`,
        [[...folderIds]],
      )
      return rows.map(toFolderLink)
    },
    async update(folderId, settings) {
      const result = await db.query(
        `UPDATE folder_links SET access = $1, deny_download = $2, expires_at = $3
          WHERE folder_id = $4 AND revoked_at IS NULL`,
        [settings.access, settings.denyDownload, settings.expiresAt, folderId],
      )
      return (result.rowCount ?? 0) > 0
    },
    async revoke(folderId, now) {
      const result = await db.query(
        'UPDATE folder_links SET revoked_at = $1 WHERE folder_id = $2 AND revoked_at IS NULL',
        [now, folderId],
      )
      return (result.rowCount ?? 0) > 0
    },
  }
}
