import pg from 'pg'
import type { MetadataStore } from '../../ports/metadata-store.js'
import { clientConfig, redactDatabaseUrl } from './connection.js'
import { createDatabase } from './database.js'

export { redactDatabaseUrl } from './connection.js'
import { createAuditRepository } from './audit.js'
import { createEditingRepository } from './editing.js'
import { createFileRepository } from './files.js'
import { createFolderRepository } from './folders.js'
import { applyMigrations, POSTGRES_MIGRATIONS_DIR } from './migrations.js'
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
import { createRenditionRepository } from './renditions.js'

/** Options of the PostgreSQL metadata store. */
export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database; the password is never logged. */
  url: string
  /** Schema holding Folio's tables, created when missing ('public' by default). */
  schema?: string
  /** Most connections the pool opens (10 by default). */
  poolSize?: number
  /** Longest a statement may run before PostgreSQL cancels it, in ms (30 s by default). */
  statementTimeoutMs?: number
  /**
   * Told about a pooled connection that failed while idle (the pool drops it and opens
   * another on demand); the error carries no password.
   */
  onIdleError?: (error: Error) => void
}

/**
 * Opens a pool on the PostgreSQL database at `options.url`, brings the schema up to
 * date (under an advisory lock, so instances starting together migrate once) and
 * returns the MetadataStore over it. Every statement is parameterised; a commit is
 * durable once it returns (PostgreSQL's default synchronous_commit). Nothing of the
 * store lives in this process: sessions, throttle windows, locks, settings and editing
 * state are rows every instance on the database shares. close() is safe to call twice.
 * Throws (with the password left out of the message) when the database is unreachable.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<MetadataStore> {
  const connection = { url: options.url, schema: options.schema ?? 'public' }
  try {
    await applyMigrations(connection, POSTGRES_MIGRATIONS_DIR)
  } catch (error) {
    const where = redactDatabaseUrl(options.url)
    const reason = error instanceof Error ? error.message : String(error)
    throw new Error(`cannot open PostgreSQL at ${where}: ${reason}`, { cause: error })
  }
  const pool = new pg.Pool({
    ...clientConfig(connection),
    max: options.poolSize ?? 10,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
  })
  pool.on('error', (error) => options.onIdleError?.(error))
  const db = createDatabase(pool)
  let closed = false
  return {
    renditions: createRenditionRepository(db),
    users: createUserRepository(db),
    sessions: createSessionRepository(db),
    throttle: createThrottleRepository(db),
    files: createFileRepository(db),
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
      if (closed) return
      closed = true
      await pool.end()
    },
  }
}
