import { parseAuditAction } from '../../core/audit.js'
import type { AuditEvent } from '../../core/entities.js'
import type { AuditQuery } from '../../ports/metadata-store.js'
import { paramList, type Dialect } from './dialect.js'

/** A row of `audit_events` (seq, which orders events of the same millisecond, left out). */
export interface AuditRow {
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

export function toAuditEvent(row: AuditRow): AuditEvent {
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

/**
 * The statements of AuditRepository, the same in every SQL driver but for the dialect:
 * one insert per event, pages read newest first (seq orders events of the same millisecond).
 */
export function auditSql(dialect: Dialect) {
  const where = `WHERE at >= ${dialect.param(1)} AND at < ${dialect.param(2)}`
  return {
    /** Values: auditValues. */
    insert: `INSERT INTO audit_events
        (id, at, action, actor_id, actor_name, address, target_type, target_id, target_name, detail)
      VALUES (${paramList(dialect, 10)})`,
    /** Values: auditBounds, then the limit and the offset. */
    page: `SELECT * FROM audit_events ${where} ORDER BY at DESC, seq DESC
      LIMIT ${dialect.param(3)} OFFSET ${dialect.param(4)}`,
    /** Values: auditBounds. One row, its column `total`. */
    count: `SELECT count(*) AS total FROM audit_events ${where}`,
  }
}

/** The values of auditSql's insert. */
export function auditValues(event: AuditEvent): unknown[] {
  return [
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
  ]
}

/** The time range of a query, [since, until): all of time where it gives no bound. */
export function auditBounds(query: AuditQuery): [number, number] {
  return [query.since ?? 0, query.until ?? Number.MAX_SAFE_INTEGER]
}
