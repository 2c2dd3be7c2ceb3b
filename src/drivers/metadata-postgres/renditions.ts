import type { RenditionRepository } from '../../ports/metadata-store.js'
import { toRendition, type RenditionRow } from '../metadata-shared/rendition-rows.js'
import type { Database } from './database.js'

// The insert and the read are one statement; the no-op update makes RETURNING give the
// stored row when the pair has one already.
const INSERT_OR_KEEP = `INSERT INTO renditions AS r (source_blob_key, target, blob_key, size, sha256, created_at)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (source_blob_key, target) DO UPDATE SET blob_key = r.blob_key
  RETURNING *`

/** Renditions in PostgreSQL; the first one recorded for a source and format is kept. */
export function createRenditionRepository(db: Database): RenditionRepository {
  return {
    async get(sourceBlobKey, target) {
      const { rows } = await db.query<RenditionRow>(
        'SELECT * FROM renditions WHERE source_blob_key = $1 AND target = $2',
        [sourceBlobKey, target],
      )
      return rows[0] === undefined ? undefined : toRendition(rows[0])
    },
    async add(record) {
      const { rows } = await db.query<RenditionRow>(INSERT_OR_KEEP, [
        record.sourceBlobKey,
        record.target,
        record.blobKey,
        record.size,
        record.sha256,
        record.createdAt,
      ])
      if (rows[0] === undefined) throw new Error('PostgreSQL returned no row from an upsert')
      return toRendition(rows[0])
    },
    async presentAmong(sourceBlobKeys, target) {
      if (sourceBlobKeys.length === 0) return new Set()
      const { rows } = await db.query<{ source_blob_key: string }>(
        'SELECT source_blob_key FROM renditions WHERE target = $1 AND source_blob_key = ANY($2::text[])',
        [target, sourceBlobKeys],
      )
      return new Set(rows.map((row) => row.source_blob_key))
    },
    async forget(sourceBlobKey, target) {
      await db.query('DELETE FROM renditions WHERE source_blob_key = $1 AND target = $2', [sourceBlobKey, target])
    },
    async removeBySources(sourceBlobKeys) {
      const removed: string[] = []
      for (let start = 0; start < sourceBlobKeys.length; start += 500) {
        const { rows } = await db.query<{ blob_key: string }>(
          'DELETE FROM renditions WHERE source_blob_key = ANY($1::text[]) RETURNING blob_key',
          [sourceBlobKeys.slice(start, start + 500)],
        )
        removed.push(...rows.map((row) => row.blob_key))
      }
      return removed
    },
  }
}
