import type { ShareLinkRepository, ShareRepository } from '../../ports/metadata-store.js'
import { SHARE_COLUMNS, toLink, toShare, type LinkRow, type ShareRow } from '../metadata-shared/share-rows.js'
import type { Database } from './database.js'

/** Share entries in PostgreSQL (table `shares`). */
export function createShareRepository(db: Database): ShareRepository {
  return {
    async put(share) {
      await db.query(
        `INSERT INTO shares (${SHARE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
          ON CONFLICT (item_kind, item_id, user_id)
          DO UPDATE SET access = EXCLUDED.access, granted_by = EXCLUDED.granted_by,
            granted_at = EXCLUDED.granted_at`,
        [share.itemKind, share.itemId, share.userId, share.access, share.grantedBy, share.grantedAt],
      )
    },
    async remove(itemKind, itemId, userId) {
      const result = await db.query('DELETE FROM shares WHERE item_kind = $1 AND item_id = $2 AND user_id = $3', [
        itemKind,
        itemId,
        userId,
      ])
      return (result.rowCount ?? 0) > 0
    },
    async find(itemKind, itemId, userId) {
      const { rows } = await db.query<ShareRow>(
        `SELECT ${SHARE_COLUMNS} FROM shares WHERE item_kind = $1 AND item_id = $2 AND user_id = $3`,
        [itemKind, itemId, userId],
      )
      return rows[0] === undefined ? undefined : toShare(rows[0])
    },
    async listForItem(itemKind, itemId) {
      const { rows } = await db.query<ShareRow>(
        `SELECT ${SHARE_COLUMNS} FROM shares WHERE item_kind = $1 AND item_id = $2
          ORDER BY granted_at, user_id`,
        [itemKind, itemId],
      )
      return rows.map(toShare)
    },
    async listForItems(itemKind, itemIds) {
      if (itemIds.length === 0) return []
      const { rows } = await db.query<ShareRow>(
        `SELECT ${SHARE_COLUMNS} FROM shares WHERE item_kind = $1 AND item_id = ANY($2::text[])
          ORDER BY granted_at, user_id`,
        [itemKind, [...itemIds]],
      )
      return rows.map(toShare)
    },
    async listForUser(userId) {
      const { rows } = await db.query<ShareRow>(
        `SELECT ${SHARE_COLUMNS} FROM shares WHERE user_id = $1 ORDER BY granted_at DESC, item_id`,
        [userId],
      )
      return rows.map(toShare)
    },
  }
}

/** Share links in PostgreSQL (table `share_links`). */
export function createShareLinkRepository(db: Database): ShareLinkRepository {
  return {
    async put(link) {
      if (link.revokedAt !== null) throw new Error('a new link cannot be stored revoked')
      await db.query(
        `INSERT INTO share_links (file_id, key_hash, access, created_at, revoked_at)
          VALUES ($1, $2, $3, $4, NULL)
          ON CONFLICT (file_id) DO UPDATE SET key_hash = EXCLUDED.key_hash,
            access = EXCLUDED.access, created_at = EXCLUDED.created_at, revoked_at = NULL`,
        [link.fileId, link.keyHash, link.access, link.createdAt],
      )
    },
    async find(fileId) {
      const { rows } = await db.query<LinkRow>(
        'SELECT file_id, key_hash, access, created_at, revoked_at FROM share_links WHERE file_id = $1',
        [fileId],
      )
      return rows[0] === undefined ? undefined : toLink(rows[0])
    },
    async listWorking(fileIds) {
      if (fileIds.length === 0) return []
      const { rows } = await db.query<LinkRow>(
        `SELECT file_id, key_hash, access, created_at, revoked_at FROM share_links
          WHERE revoked_at IS NULL AND file_id = ANY($1::text[])`,
        [[...fileIds]],
      )
      return rows.map(toLink)
    },
    async setAccess(fileId, access) {
      const result = await db.query('UPDATE share_links SET access = $1 WHERE file_id = $2 AND revoked_at IS NULL', [
        access,
        fileId,
      ])
      return (result.rowCount ?? 0) > 0
    },
    async revoke(fileId, now) {
      const result = await db.query(
        'UPDATE share_links SET revoked_at = $1 WHERE file_id = $2 AND revoked_at IS NULL',
        [now, fileId],
      )
      return (result.rowCount ?? 0) > 0
    },
  }
}
