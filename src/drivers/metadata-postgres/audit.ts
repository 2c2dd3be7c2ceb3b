import type { AuditRepository } from '../../ports/metadata-store.js'
import { auditBounds, auditSql, auditValues, toAuditEvent, type AuditRow } from '../metadata-shared/audit-rows.js'
import { POSTGRES_DIALECT } from '../metadata-shared/dialect.js'
import type { Database } from './database.js'

const SQL = auditSql(POSTGRES_DIALECT)

/**
 * The audit trail in PostgreSQL, shared by every instance: one insert per event, pages
 * read newest first (seq orders events of the same millisecond).
 */
export function createAuditRepository(db: Database): AuditRepository {
  return {
    async append(event) {
      await db.query(SQL.insert, auditValues(event))
    },

    async list(query) {
      const bounds = auditBounds(query)
      const [page, count] = await Promise.all([
        db.query<AuditRow>(SQL.page, [...bounds, query.limit, query.offset]),
        db.query<{ total: number }>(SQL.count, bounds),
      ])
      return { total: count.rows[0]?.total ?? 0, items: page.rows.map(toAuditEvent) }
    },
  }
}
