import type { MetadataStore } from '../../ports/metadata-store.js'
import { openDatabase } from './connection.js'
import { createAuditRepository } from './audit.js'
import { createEditingRepository } from './editing.js'
import { createFileRepository } from './files.js'
import { createFolderRepository } from './folders.js'
import { applyMigrations, SQLITE_MIGRATIONS_DIR } from './migrations.js'
import { createOperationRepository } from './operations.js'
import { createSessionRepository } from './sessions.js'
import { createShareLinkRepository, createShareRepository } from './shares.js'
import { createSettingsRepository } from './settings.js'
import { createThrottleRepository } from './throttle.js'
import { createUserRepository } from './users.js'

/** Options of the SQLite metadata store. */
export interface SqliteStoreOptions {
  /** Path of the database file; its folder is created when missing. */
  path: string
}

/**
 * Opens (creating when needed) the SQLite database at `options.path`, brings
 * its schema up to date and returns the MetadataStore over it. Commits are
 * durable once they return (WAL with synchronous = FULL); foreign keys are
 * enforced; a writer waits up to 5 s for another one before failing. Statements
 * are prepared here, once. close() is safe to call twice.
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<MetadataStore> {
  const db = await openDatabase(options.path)
  try {
    await applyMigrations(db, SQLITE_MIGRATIONS_DIR)
    db.pragma('foreign_keys = ON')
    return {
      users: createUserRepository(db),
      sessions: createSessionRepository(db),
      throttle: createThrottleRepository(db),
      files: createFileRepository(db),
      folders: createFolderRepository(db),
      settings: createSettingsRepository(db),
      editing: createEditingRepository(db),
      audit: createAuditRepository(db),
      shares: createShareRepository(db),
      shareLinks: createShareLinkRepository(db),
      operations: createOperationRepository(db),
      async close() {
        if (db.open) db.close()
      },
    }
  } catch (error) {
    db.close()
    throw error
  }
}
