import type Database from 'better-sqlite3'
import type { FolderLinkRepository } from '../../ports/metadata-store.js'
import { FOLDER_LINK_COLUMNS, toFolderLink, type FolderLinkRow } from '../metadata-shared/share-rows.js'

/** Folder links in SQLite (table `folder_links`). */
export function createFolderLinkRepository(db: Database.Database): FolderLinkRepository {
  const upsert = db.prepare<[string, string, number, number, number | null, number]>(`INSERT INTO folder_links
      (${FOLDER_LINK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL)
    ON CONFLICT (folder_id) DO UPDATE SET key_hash = excluded.key_hash, access = excluded.access,
      deny_download = excluded.deny_download, expires_at = excluded.expires_at,
      created_at = excluded.created_at, revoked_at = NULL`)
  const find = db.prepare<[string], FolderLinkRow>(
    `SELECT ${FOLDER_LINK_COLUMNS} FROM folder_links WHERE folder_id = ?`,
  )
  const byKey = db.prepare<[string], FolderLinkRow>(
    `SELECT ${FOLDER_LINK_COLUMNS} FROM folder_links WHERE key_hash = ?`,
  )
  const working = db.prepare<[string], FolderLinkRow>(
    `SELECT ${FOLDER_LINK_COLUMNS} FROM folder_links
      WHERE revoked_at IS NULL AND folder_id IN (SELECT value FROM json_each(?))`,
  )
  const update = db.prepare<[number, number, number | null, string]>(
    `UPDATE folder_links SET access = ?, deny_download = ?, expires_at = ?
      WHERE folder_id = ? AND revoked_at IS NULL`,
  )
  const revoke = db.prepare<[number, string]>(
    'UPDATE folder_links SET revoked_at = ? WHERE folder_id = ? AND revoked_at IS NULL',
  )
  return {
    async put(link) {
      if (link.revokedAt !== null) throw new Error('a new link cannot be stored revoked')
      upsert.run(link.folderId, link.keyHash, link.access, link.denyDownload ? 1 : 0, link.expiresAt, link.createdAt)
    },
    async find(folderId) {
      const row = find.get(folderId)
      return row === undefined ? undefined : toFolderLink(row)
    },
    async findByKeyHash(keyHash) {
      const row = byKey.get(keyHash)
      return row === undefined ? undefined : toFolderLink(row)
    },
    async listWorking(folderIds) {
      if (folderIds.length === 0) return []
      return working.all(JSON.stringify(folderIds)).map(toFolderLink)
    },
    async update(folderId, settings) {
      return update.run(settings.access, settings.denyDownload ? 1 : 0, settings.expiresAt, folderId).changes > 0
    },
    async revoke(folderId, now) {
      return revoke.run(now, folderId).changes > 0
    },
  }
}
