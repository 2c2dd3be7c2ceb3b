import { parseAuditAction } from '../../core/audit.js'
import type { AuditEvent } from '../../core/entities.js'
import type { AuditRepository } from '../../ports/metadata-store.js'
import type { Database } from './database.js'

interface AuditRow {
  id: string
  at: number
  action: string
  actor_id: string
  actor_name: string
  address: string
  target_type: string
  target_id: string
  target_name: string
  detail: string
}

function toAuditEvent(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    at: row.at,
    action: parseAuditAction(row.action),
    actorId: row.actor_id,
    actorName: row.actor_name,
    address: row.address,
    targetType:
      row.target_type === 'user' || row.target_type === 'file' || row.target_type === 'folder' ? row.target_type : '',
    targetId: row.target_id,
    targetName: row.target_name,
    detail: row.detail,
  }
}

/**
 * The audit trail in PostgreSQL, shared by every instance: one insert per event, pages
 * read newest first (seq orders events of the same millisecond).
 */
export function createAuditRepository(db: Database): AuditRepository {
  return {
    async append(event) {
      await db.query(
        `INSERT INTO audit_events
          (id, at, action, actor_id, actor_name, address, target_type, target_id, target_name, detail)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          event.id,
          event.at,
          event.action,
          event.actorId,
          event.actorName,
          event.address,
          event.targetType,
          event.targetId,
          event.targetName,
          event.detail,
        ],
      )
    },

    async list(query) {
      const bounds = [query.since ?? 0, query.until ?? Number.MAX_SAFE_INTEGER]
      const where = 'WHERE at >= $1 AND at < $2'
      const [page, count] = await Promise.all([
        db.query<AuditRow>(
          `SELECT * FROM audit_events ${where} ORDER BY at DESC, seq DESC LIMIT $3 OFFSET $4`,
          [...bounds, query.limit, query.offset],
        ),
        db.query<{ total: number }>(`SELECT count(*) AS total FROM audit_events ${where}`, bounds),
      ])
      return { total: count.rows[0]?.total ?? 0, items: page.rows.map(toAuditEvent) }
    },
  }
}
