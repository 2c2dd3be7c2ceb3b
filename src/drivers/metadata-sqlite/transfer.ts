import type Database from 'better-sqlite3'
import type { MetadataTransfer } from '../../ports/metadata-transfer.js'
import {
  exportTables,
  importTables,
  tablesEmpty,
  type Row,
  type TransferSql,
} from '../metadata-shared/transfer-rows.js'
import { toFlag } from './sqlite-errors.js'

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null
}

/**
 * Export and import of the whole SQLite store. The import is one IMMEDIATE transaction
 * held across the batches' arrival: nothing else may write on this connection meanwhile
 * (a migration is the only user of the store it fills).
 */
export function createTransfer(db: Database.Database): MetadataTransfer {
  const statements = new Map<string, Database.Statement>()
  const prepared = (sql: string): Database.Statement => {
    let statement = statements.get(sql)
    if (statement === undefined) {
      statement = db.prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }
  const sql: TransferSql = {
    read: async (query, params) =>
      prepared(query)
        .all(...params)
        .filter(isRow),
    write: async (query, params) => prepared(query).run(...params).changes,
    placeholder: () => '?',
    flag: toFlag,
  }
  return {
    exportRecords: (batchSize = 500) => exportTables(sql, batchSize),

    async importRecords(batches) {
      db.exec('BEGIN IMMEDIATE')
      try {
        const report = await importTables(sql, batches)
        db.exec('COMMIT')
        return report
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK')
        throw error
      }
    },

    isEmpty: () => tablesEmpty(sql),
  }
}
