import type { MetadataTransfer } from '../../ports/metadata-transfer.js'
import { exportTables, importTables, tablesEmpty, type TransferSql } from '../metadata-shared/transfer-rows.js'
import type { Database, Queryable } from './database.js'

function sqlOn(db: Queryable): TransferSql {
  return {
    read: async (query, params) => (await db.query(query, params)).rows,
    write: async (query, params) => (await db.query(query, params)).rowCount ?? 0,
    placeholder: (index) => `$${index}`,
    flag: (value) => value,
  }
}

/**
 * Export and import of the whole PostgreSQL store. The import runs in one transaction
 * on one connection of the pool: it commits whole or leaves the schema as it was.
 */
export function createTransfer(db: Database): MetadataTransfer {
  return {
    exportRecords: (batchSize = 500) => exportTables(sqlOn(db), batchSize),
    importRecords: (batches) => db.transaction((tx) => importTables(sqlOn(tx), batches)),
    isEmpty: () => tablesEmpty(sqlOn(db)),
  }
}
