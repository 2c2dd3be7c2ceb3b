import { mkdir, open } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import Database from 'better-sqlite3'

/** How long a writer waits for another one before SQLite reports busy. */
export const BUSY_TIMEOUT_MS = 5000

/**
 * Opens (creating it and its folder when missing) the database file at
 * `path`, in WAL mode with synchronous = FULL, so a commit is on disk once it
 * returns, and with a 5 s busy timeout. A new database file is created 0600 and its
 * folder 0700 whatever the umask (SQLite gives the -wal and -shm files the database
 * file's permissions). Foreign keys are switched on by the
 * caller after migrating (see applyMigrations). Throws when SQLite refuses WAL.
 */
export async function openDatabase(path: string): Promise<Database.Database> {
  const absolute = resolve(path)
  await mkdir(dirname(absolute), { recursive: true, mode: 0o700 })
  // Create it ourselves: SQLite would create it 0644 less the umask.
  await (await open(absolute, 'a', 0o600)).close()
  const db = new Database(absolute, { timeout: BUSY_TIMEOUT_MS })
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    const mode = db.pragma('journal_mode = WAL', { simple: true })
    if (mode !== 'wal') {
      throw new Error(`SQLite refused WAL mode for ${absolute} (journal_mode is ${String(mode)})`)
    }
    // NORMAL in WAL may lose the last commits on power loss; FULL syncs each commit.
    db.pragma('synchronous = FULL')
    return db
  } catch (error) {
    db.close()
    throw error
  }
}
