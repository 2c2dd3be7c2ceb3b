import type Database from 'better-sqlite3'
import type { RenditionRepository } from '../../ports/metadata-store.js'
import { toRendition, type RenditionRow } from '../metadata-shared/rendition-rows.js'

/** Renditions in SQLite; the first one recorded for a source and format is kept. */
export function createRenditionRepository(db: Database.Database): RenditionRepository {
  const one = db.prepare<[string, string], RenditionRow>(
    'SELECT * FROM renditions WHERE source_blob_key = ? AND target = ?',
  )
  // The insert and the read are one statement: no other writer slips between.
  const insertOrKeep = db.prepare<
    [string, string, string, number, string, number],
    RenditionRow
  >(`INSERT INTO renditions
      (source_blob_key, target, blob_key, size, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (source_blob_key, target) DO UPDATE SET blob_key = blob_key
    RETURNING *`)
  const presentAmong = db
    .prepare<[string, string], string>(
      'SELECT source_blob_key FROM renditions WHERE target = ? AND source_blob_key IN (SELECT value FROM json_each(?))',
    )
    .pluck()
  const forget = db.prepare<[string, string]>('DELETE FROM renditions WHERE source_blob_key = ? AND target = ?')
  const removeBySources = db
    .prepare<[string], string>(
      'DELETE FROM renditions WHERE source_blob_key IN (SELECT value FROM json_each(?)) RETURNING blob_key',
    )
    .pluck()

  return {
    async get(sourceBlobKey, target) {
      const row = one.get(sourceBlobKey, target)
      return row === undefined ? undefined : toRendition(row)
    },
    async add(record) {
      const row = insertOrKeep.get(
        record.sourceBlobKey,
        record.target,
        record.blobKey,
        record.size,
        record.sha256,
        record.createdAt,
      )
      if (row === undefined) throw new Error('SQLite returned no row from an upsert')
      return toRendition(row)
    },
    async presentAmong(sourceBlobKeys, target) {
      const present = new Set<string>()
      for (let start = 0; start < sourceBlobKeys.length; start += 500) {
        for (const key of presentAmong.all(target, JSON.stringify(sourceBlobKeys.slice(start, start + 500))))
          present.add(key)
      }
      return present
    },
    async forget(sourceBlobKey, target) {
      forget.run(sourceBlobKey, target)
    },
    async removeBySources(sourceBlobKeys) {
      const removed: string[] = []
      for (let start = 0; start < sourceBlobKeys.length; start += 500) {
        removed.push(...removeBySources.all(JSON.stringify(sourceBlobKeys.slice(start, start + 500))))
      }
      return removed
    },
  }
}
