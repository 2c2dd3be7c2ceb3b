import type { MetadataStore } from '../../ports/metadata-store.js'
import type Database from 'better-sqlite3'
import { BUSY_TIMEOUT_MS, openDatabase } from './connection.js'
import { createAuditRepository } from './audit.js'
import { createEditingRepository } from './editing.js'
import { createFileRepository } from './files.js'
import { createFolderRepository } from './folders.js'
import { applyMigrations, SQLITE_MIGRATIONS_DIR } from './migrations.js'
import { createJobRepository } from './jobs.js'
import { createOperationRepository } from './operations.js'
import { createSearchRepository } from './search.js'
import { createSessionRepository } from './sessions.js'
import { createShareLinkRepository, createShareRepository } from './shares.js'
import { createFolderLinkRepository } from './folder-links.js'
import { createSettingsRepository } from './settings.js'
import { createUserSettingsRepository } from './user-settings.js'
import { createQuotaRepository } from './quotas.js'
import { createThrottleRepository } from './throttle.js'
import { createTransfer } from './transfer.js'
import { createUserRepository } from './users.js'
import { openWalIndexHeader } from './wal-index-header.js'
import { createRenditionRepository } from './renditions.js'

/** Options of the SQLite metadata store. */
export interface SqliteStoreOptions {
  /** Path of the database file; its folder is created when missing. */
  path: string
  /**
   * Hold the database for this store alone until close (SQLite's exclusive locking mode):
   * opening fails with DatabaseInUseError while another process has the file open (a
   * running Folio), and no other process can open it afterwards. For `folio
   * migrate-storage`, which must read a store no one changes.
   */
  exclusive?: boolean
}

/** The database is open in another process (a Folio still running on it). */
export class DatabaseInUseError extends Error {
  constructor(path: string) {
    super(`${path} is open in another process (is Folio still running on this data folder?); stop it first`)
    this.name = 'DatabaseInUseError'
  }
}

/** How long an exclusive open waits for another process to let go of the file. */
const EXCLUSIVE_WAIT_MS = 2000

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
    if (options.exclusive === true) takeExclusively(db, options.path)
    await applyMigrations(db, SQLITE_MIGRATIONS_DIR)
    db.pragma('foreign_keys = ON')
    const walIndex = openWalIndexHeader(db.name)
    return {
      renditions: createRenditionRepository(db),
      users: createUserRepository(db),
      sessions: createSessionRepository(db),
      throttle: createThrottleRepository(db),
      files: createFileRepository(db, walIndex),
      folders: createFolderRepository(db),
      settings: createSettingsRepository(db),
      userSettings: createUserSettingsRepository(db),
      quotas: createQuotaRepository(db),
      editing: createEditingRepository(db),
      audit: createAuditRepository(db),
      shares: createShareRepository(db),
      shareLinks: createShareLinkRepository(db),
      folderLinks: createFolderLinkRepository(db),
      transfer: createTransfer(db),
      operations: createOperationRepository(db),
      jobs: createJobRepository(db),
      search: createSearchRepository(db),
      async close() {
        walIndex.close()
        if (db.open) db.close()
      },
    }
  } catch (error) {
    db.close()
    throw error
  }
}

/**
 * Switches the connection to exclusive locking and takes the write lock at once. In WAL
 * mode every open connection of another process keeps a shared lock on the database's
 * shared memory, so this fails while any other process has the file open, idle or not;
 * once taken, the lock is held until the connection closes.
 */
function takeExclusively(db: Database.Database, path: string): void {
  db.pragma(`busy_timeout = ${EXCLUSIVE_WAIT_MS}`)
  db.pragma('locking_mode = EXCLUSIVE')
  try {
    db.exec('BEGIN EXCLUSIVE')
    db.exec('COMMIT')
  } catch (error) {
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_BUSY')) {
      throw new DatabaseInUseError(path)
    }
    throw error
  }
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
}
