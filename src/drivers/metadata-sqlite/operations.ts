import type Database from 'better-sqlite3'
import type { FileOperationRepository } from '../../ports/metadata-store.js'
import { itemsJson, OPERATION_COLUMNS, toOperation, type OperationRow } from '../metadata-shared/operation-rows.js'

/** File operations in SQLite (table `file_operations`). */
export function createOperationRepository(db: Database.Database): FileOperationRepository {
  const insert = db.prepare<[string, string, string, number, number | null, string, string, string]>(
    `INSERT INTO file_operations (${OPERATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const finish = db.prepare<[number, string, string, string, string]>(`UPDATE file_operations
      SET finished_at = ?, error = ?, files = ?, folders = ?
    WHERE id = ? AND finished_at IS NULL`)
  const ofUser = db.prepare<[string], OperationRow>(
    `SELECT ${OPERATION_COLUMNS} FROM file_operations WHERE user_id = ? ORDER BY started_at, id`,
  )
  // The second parameter is a JSON array of the ids to keep.
  const dropFinished = db.prepare<[string, string]>(
    `DELETE FROM file_operations WHERE user_id = ? AND finished_at IS NOT NULL
      AND id NOT IN (SELECT value FROM json_each(?))`,
  )
  const purge = db.prepare<[number, number]>(`DELETE FROM file_operations
    WHERE finished_at < ? OR (finished_at IS NULL AND started_at < ?)`)
  const beat = db.prepare<[number, string]>(
    'UPDATE file_operations SET alive_at = ? WHERE id = ? AND finished_at IS NULL',
  )
  const endSilent = db.prepare<[number, string, number]>(`UPDATE file_operations SET finished_at = ?, error = ?
    WHERE finished_at IS NULL AND coalesce(alive_at, started_at) < ?`)
  // Read and removal in one transaction: no other connection reports the same rows.
  const take = db.transaction((userId: string, keep: string) => {
    const rows = ofUser.all(userId)
    dropFinished.run(userId, keep)
    return rows
  })
  return {
    async start(op) {
      insert.run(
        op.id,
        op.userId,
        op.kind,
        op.startedAt,
        op.finishedAt,
        op.error,
        itemsJson(op.files),
        itemsJson(op.folders),
      )
    },
    async finish(id, outcome) {
      return (
        finish.run(outcome.finishedAt, outcome.error, itemsJson(outcome.files), itemsJson(outcome.folders), id)
          .changes > 0
      )
    },
    async take(userId, keep = []) {
      return take.immediate(userId, JSON.stringify(keep)).map(toOperation)
    },
    async purge(finishedBefore, startedBefore) {
      return purge.run(finishedBefore, startedBefore).changes
    },
    async beat(id, now) {
      beat.run(now, id)
    },
    async endSilent(silentSince, now, error) {
      return endSilent.run(now, error, silentSince).changes
    },
  }
}
