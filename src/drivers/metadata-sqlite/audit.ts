import type Database from 'better-sqlite3'
import type { AuditRepository } from '../../ports/metadata-store.js'
import { auditBounds, auditSql, auditValues, toAuditEvent, type AuditRow } from '../metadata-shared/audit-rows.js'
import { SQLITE_DIALECT } from '../metadata-shared/dialect.js'

const SQL = auditSql(SQLITE_DIALECT)

/** The audit trail in SQLite: one insert per event, pages read newest first. */
export function createAuditRepository(db: Database.Database): AuditRepository {
  const insert = db.prepare<unknown[]>(SQL.insert)
  const page = db.prepare<[number, number, number, number], AuditRow>(SQL.page)
  const count = db.prepare<[number, number], number>(SQL.count).pluck()

  return {
    async append(event) {
      insert.run(...auditValues(event))
    },

    async list(query) {
      const bounds = auditBounds(query)
      const rows = page.all(...bounds, query.limit, query.offset)
      return {
        total: count.get(...bounds) ?? 0,
        items: rows.map(toAuditEvent),
      }
    },
  }
}
