import type Database from 'better-sqlite3'
import { parseAuditAction } from '../../core/audit.js'
import type { AuditEvent } from '../../core/entities.js'
import type { AuditRepository } from '../../ports/metadata-store.js'

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

function toTargetType(value: string): AuditEvent['targetType'] {
  return value === 'user' || value === 'file' || value === 'folder' ? value : ''
}

function toAuditEvent(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    at: row.at,
    action: parseAuditAction(row.action),
    actorId: row.actor_id,
    actorName: row.actor_name,
    address: row.address,
    targetType: toTargetType(row.target_type),
    targetId: row.target_id,
    targetName: row.target_name,
    detail: row.detail,
  }
}

/** The audit trail in SQLite: one insert per event, pages read newest first. */
export function createAuditRepository(db: Database.Database): AuditRepository {
  const insert = db.prepare<AuditEvent>(`INSERT INTO audit_events
      (id, at, action, actor_id, actor_name, address, target_type, target_id, target_name, detail)
    VALUES (@id, @at, @action, @actorId, @actorName, @address, @targetType, @targetId, @targetName, @detail)`)
  const WHERE = 'WHERE at >= @since AND at < @until'
  const page = db.prepare<{ since: number; until: number; limit: number; offset: number }, AuditRow>(
    `SELECT * FROM audit_events ${WHERE} ORDER BY at DESC, seq DESC LIMIT @limit OFFSET @offset`,
  )
  const count = db
    .prepare<{ since: number; until: number }, number>(`SELECT count(*) FROM audit_events ${WHERE}`)
    .pluck()

  return {
    async append(event) {
      insert.run(event)
    },

    async list(query) {
      const bounds = { since: query.since ?? 0, until: query.until ?? Number.MAX_SAFE_INTEGER }
      const rows = page.all({ ...bounds, limit: query.limit, offset: query.offset })
      return {
        total: count.get(bounds) ?? 0,
        items: rows.map(toAuditEvent),
      }
    },
  }
}

