import type { FileOperationRepository } from '../../ports/metadata-store.js'
import { itemsJson, OPERATION_COLUMNS, toOperation, type OperationRow } from '../metadata-shared/operation-rows.js'
import type { Database } from './database.js'

/** File operations in PostgreSQL (table `file_operations`). */
export function createOperationRepository(db: Database): FileOperationRepository {
  return {
    async start(op) {
      await db.query(`INSERT INTO file_operations (${OPERATION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
        op.id,
        op.userId,
        op.kind,
        op.startedAt,
        op.finishedAt,
        op.error,
        itemsJson(op.files),
        itemsJson(op.folders),
      ])
    },
    async finish(id, outcome) {
      const result = await db.query(
        `UPDATE file_operations SET finished_at = $1, error = $2, files = $3, folders = $4
          WHERE id = $5 AND finished_at IS NULL`,
        [outcome.finishedAt, outcome.error, itemsJson(outcome.files), itemsJson(outcome.folders), id],
      )
      return (result.rowCount ?? 0) > 0
    },
    async take(userId, keep = []) {
      // One statement, so one snapshot: the finished rows it removes and the running rows it
      // reads are the same moment's. As two statements (READ COMMITTED gives each its own
      // snapshot), an operation that finished between them was in neither. The DELETE
      // returning the finished rows also makes one instance alone report each, even when
      // two ask at once.
      const { rows } = await db.query<OperationRow>(
        `WITH taken AS (
            DELETE FROM file_operations WHERE user_id = $1 AND finished_at IS NOT NULL AND id <> ALL($2::text[])
            RETURNING ${OPERATION_COLUMNS})
          SELECT ${OPERATION_COLUMNS} FROM taken
          UNION ALL
          SELECT ${OPERATION_COLUMNS} FROM file_operations
            WHERE user_id = $1 AND (finished_at IS NULL OR id = ANY($2::text[]))`,
        [userId, [...keep]],
      )
      return rows.map(toOperation).sort((a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    },
    async purge(finishedBefore, startedBefore) {
      const result = await db.query(
        `DELETE FROM file_operations WHERE finished_at < $1 OR (finished_at IS NULL AND started_at < $2)`,
        [finishedBefore, startedBefore],
      )
      return result.rowCount ?? 0
    },
    async beat(id, now) {
      await db.query('UPDATE file_operations SET alive_at = $1 WHERE id = $2 AND finished_at IS NULL', [now, id])
    },
    async endSilent(silentSince, now, error) {
      const result = await db.query(
        `UPDATE file_operations SET finished_at = $1, error = $2
          WHERE finished_at IS NULL AND coalesce(alive_at, started_at) < $3`,
        [now, error, silentSince],
      )
      return result.rowCount ?? 0
    },
  }
}
