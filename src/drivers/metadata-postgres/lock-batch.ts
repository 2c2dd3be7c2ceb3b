import pg from 'pg'
import { FILE_COLUMNS, type FileTuple, type LockChange } from '../metadata-shared/file-rows.js'
import { checkText, type Database } from './database.js'
import { createBatcher, type Waiting } from './statement-batch.js'

/** SQLSTATE of a deadlock PostgreSQL broke by failing one of the statements. */
const DEADLOCK_DETECTED = '40P01'

/** The largest number of changes one statement carries. */
const MAX_BATCH = 256

const UPDATE_ONE = `UPDATE files SET lock_id = $3, lock_expires_at = $4, lock_user_id = $5,
    lock_locked_at = $6, revision = revision + 1
  WHERE id = $1 AND revision = $2 RETURNING ${FILE_COLUMNS.join(', ')}`

// Several changes in one statement: one commit, so one WAL flush, for all of them. Each
// change carries its position (seq); RETURNING names the positions that were applied. Two
// changes of one row at the same revision join the same row, which PostgreSQL updates
// once: exactly one of them is returned, and the other sees a changed revision, as it
// would have one statement later.
const UPDATE_MANY = `UPDATE files AS f SET lock_id = c.lock_id, lock_expires_at = c.lock_expires_at,
    lock_user_id = c.lock_user_id, lock_locked_at = c.lock_locked_at, revision = f.revision + 1
  FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::int[])
    AS c(id, expected_revision, lock_id, lock_expires_at, lock_user_id, lock_locked_at, seq)
  WHERE f.id = c.id AND f.revision = c.expected_revision
  RETURNING c.seq, ${FILE_COLUMNS.map((column) => `f.${column}`).join(', ')}`

/**
 * Lock changes on PostgreSQL, committed together: the changes asked for while one
 * statement is on its way are sent as the next statement (statement-batch.ts), so under
 * load a commit (and its wait for the disk) serves many Lock, RefreshLock and Unlock calls
 * instead of one, as the SQLite driver's group commit does. Each caller's promise settles
 * only after the statement carrying its change has committed. The compare-and-set on the
 * revision holds per row exactly as for a lone UPDATE.
 */
export function createLockWriter(db: Database): (change: LockChange) => Promise<FileTuple | undefined> {
  const one = async (change: LockChange): Promise<FileTuple | undefined> => {
    const params = [
      change.id,
      change.expectedRevision,
      change.lockId,
      change.expiresAt,
      change.holderId,
      change.lockedAt,
    ]
    const rows = await db.prepared<FileTuple>('folio_file_update_lock', UPDATE_ONE, params)
    return rows[0]
  }

  const many = async (batch: Waiting<LockChange, FileTuple | undefined>[]): Promise<Map<number, FileTuple>> => {
    // Rows are taken in id order, so two statements never wait on each other's rows.
    const sorted = batch
      .map((waiting, seq) => ({ change: waiting.input, seq }))
      .sort((a, b) => (a.change.id < b.change.id ? -1 : a.change.id > b.change.id ? 1 : a.seq - b.seq))
    const column = <T>(pick: (change: LockChange) => T) => sorted.map((entry) => pick(entry.change))
    const order = sorted.map((entry) => entry.seq)
    const params = [
      column((c) => c.id),
      column((c) => c.expectedRevision),
      column((c) => c.lockId),
      column((c) => c.expiresAt),
      column((c) => c.holderId),
      column((c) => c.lockedAt),
      order,
    ]
    const rows = await db.prepared<[number, ...FileTuple]>('folio_file_update_locks', UPDATE_MANY, params)
    const applied = new Map<number, FileTuple>()
    for (const [seq, ...tuple] of rows) applied.set(seq, tuple)
    return applied
  }

  const run = async (batch: Waiting<LockChange, FileTuple | undefined>[]): Promise<void> => {
    if (batch.length === 1) {
      const [only] = batch
      if (only) await one(only.input).then(only.resolve, only.reject)
      return
    }
    try {
      const applied = await many(batch)
      batch.forEach((waiting, i) => waiting.resolve(applied.get(i)))
    } catch (error) {
      // A deadlock with another writer fails the whole statement, which changed nothing:
      // each change is then made on its own, as it would have been without batching.
      if (error instanceof pg.DatabaseError && error.code === DEADLOCK_DETECTED) {
        await Promise.all(batch.map((waiting) => one(waiting.input).then(waiting.resolve, waiting.reject)))
        return
      }
      for (const waiting of batch) waiting.reject(error)
    }
  }

  // One statement at a time: every change waiting for it shares the next commit.
  const write = createBatcher({ run, maxBatch: MAX_BATCH, inFlight: 1 })
  return async (change) => {
    checkText([change.id, change.lockId, change.holderId])
    return write(change)
  }
}
