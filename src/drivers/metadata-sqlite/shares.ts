import type Database from 'better-sqlite3'
import type { ShareItemKind, ShareLinkRepository, ShareRepository } from '../../ports/metadata-store.js'
import { SHARE_COLUMNS, toLink, toShare, type LinkRow, type ShareRow } from '../metadata-shared/share-rows.js'

/** Share entries in SQLite (table `shares`). */
export function createShareRepository(db: Database.Database): ShareRepository {
  const upsert = db.prepare<[string, string, string, number, string, number]>(`INSERT INTO shares (${SHARE_COLUMNS})
      VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (item_kind, item_id, user_id)
    DO UPDATE SET access = excluded.access, granted_by = excluded.granted_by, granted_at = excluded.granted_at`)
  const remove = db.prepare<[string, string, string]>(
    'DELETE FROM shares WHERE item_kind = ? AND item_id = ? AND user_id = ?',
  )
  const find = db.prepare<[string, string, string], ShareRow>(
    `SELECT ${SHARE_COLUMNS} FROM shares WHERE item_kind = ? AND item_id = ? AND user_id = ?`,
  )
  const forItem = db.prepare<[string, string], ShareRow>(
    `SELECT ${SHARE_COLUMNS} FROM shares WHERE item_kind = ? AND item_id = ? ORDER BY granted_at, user_id`,
  )
  // The ids come as one JSON array parameter: one prepared statement for any number of them.
  const forItems = db.prepare<[string, string], ShareRow>(
    `SELECT ${SHARE_COLUMNS} FROM shares WHERE item_kind = ? AND item_id IN (SELECT value FROM json_each(?))
      ORDER BY granted_at, user_id`,
  )
  const forUser = db.prepare<[string], ShareRow>(
    `SELECT ${SHARE_COLUMNS} FROM shares WHERE user_id = ? ORDER BY granted_at DESC, item_id`,
  )
  return {
    async put(share) {
      upsert.run(share.itemKind, share.itemId, share.userId, share.access, share.grantedBy, share.grantedAt)
    },
    async remove(itemKind: ShareItemKind, itemId, userId) {
      return remove.run(itemKind, itemId, userId).changes > 0
    },
    async find(itemKind, itemId, userId) {
      const row = find.get(itemKind, itemId, userId)
      return row === undefined ? undefined : toShare(row)
    },
    async listForItem(itemKind, itemId) {
      return forItem.all(itemKind, itemId).map(toShare)
    },
    async listForUser(userId) {
      return forUser.all(userId).map(toShare)
    },
    async listForItems(itemKind, itemIds) {
      if (itemIds.length === 0) return []
      return forItems.all(itemKind, JSON.stringify(itemIds)).map(toShare)
    },
  }
}

/** Share links in SQLite (table `share_links`). */
export function createShareLinkRepository(db: Database.Database): ShareLinkRepository {
  const upsert = db.prepare<[string, string, number, number]>(`INSERT INTO share_links
      (file_id, key_hash, access, created_at, revoked_at) VALUES (?, ?, ?, ?, NULL)
    ON CONFLICT (file_id) DO UPDATE SET key_hash = excluded.key_hash, access = excluded.access,
      created_at = excluded.created_at, revoked_at = NULL`)
  const find = db.prepare<[string], LinkRow>(
    'SELECT file_id, key_hash, access, created_at, revoked_at FROM share_links WHERE file_id = ?',
  )
  const working = db.prepare<[string], LinkRow>(
    `SELECT file_id, key_hash, access, created_at, revoked_at FROM share_links
      WHERE revoked_at IS NULL AND file_id IN (SELECT value FROM json_each(?))`,
  )
  const setAccess = db.prepare<[number, string]>(
    'UPDATE share_links SET access = ? WHERE file_id = ? AND revoked_at IS NULL',
  )
  const revoke = db.prepare<[number, string]>(
    'UPDATE share_links SET revoked_at = ? WHERE file_id = ? AND revoked_at IS NULL',
  )
  return {
    async put(link) {
      if (link.revokedAt !== null) throw new Error('a new link cannot be stored revoked')
      upsert.run(link.fileId, link.keyHash, link.access, link.createdAt)
    },
    async find(fileId) {
      const row = find.get(fileId)
      return row === undefined ? undefined : toLink(row)
    },
    async listWorking(fileIds) {
      if (fileIds.length === 0) return []
      return working.all(JSON.stringify(fileIds)).map(toLink)
    },
    async setAccess(fileId, access) {
      return setAccess.run(access, fileId).changes > 0
    },
    async revoke(fileId, now) {
      return revoke.run(now, fileId).changes > 0
    },
  }
}
