import { open } from 'node:fs/promises'
import Database from 'better-sqlite3'
import { BUSY_TIMEOUT_MS } from './connection.js'

/** A blob a database refers to, with what its bytes must be. */
export interface ReferencedBlob {
  key: string
  size: number
  /** Lowercase hex SHA-256. */
  sha256: string
}

/**
 * Copies the database at `sourcePath` to `destPath` with SQLite's online backup, while
 * other connections (a running Folio) go on reading and writing: the copy is the
 * database as of one moment. All pages are copied in one step, so a write landing
 * meanwhile never restarts the copy. The copy is fsynced before this resolves.
 */
export async function snapshotSqliteDatabase(sourcePath: string, destPath: string): Promise<void> {
  const db = new Database(sourcePath, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS })
  try {
    await db.backup(destPath, { progress: () => Number.MAX_SAFE_INTEGER })
  } finally {
    db.close()
  }
  const handle = await open(destPath, 'r+')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

interface BlobRow {
  key: unknown
  size: unknown
  sha256: unknown
}

/**
 * Every blob the database at `path` refers to: the content of each version (and each
 * file's head) and the change archives ONLYOFFICE saves keep with a version
 * (meta.changesBlobKey). Each key once. Meant for a copy no one else is using.
 */
export function listReferencedBlobs(path: string): ReferencedBlob[] {
  // Read-write, so closing the last connection removes the -wal and -shm files again.
  const db = new Database(path, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS })
  try {
    const rows = db
      .prepare(
        `SELECT blob_key AS key, size, sha256 FROM versions
         UNION SELECT blob_key, size, sha256 FROM files
         UNION SELECT json_extract(meta, '$.changesBlobKey'), json_extract(meta, '$.changesSize'),
                      json_extract(meta, '$.changesSha256')
           FROM versions WHERE json_extract(meta, '$.changesBlobKey') IS NOT NULL`,
      )
      .all()
    const seen = new Map<string, ReferencedBlob>()
    for (const row of rows) {
      if (!isBlobRow(row)) continue
      const { key, size, sha256 } = row
      if (typeof key !== 'string' || typeof size !== 'number' || typeof sha256 !== 'string') continue
      seen.set(key, { key, size, sha256 })
    }
    return [...seen.values()]
  } finally {
    db.close()
  }
}

function isBlobRow(row: unknown): row is BlobRow {
  return typeof row === 'object' && row !== null && 'key' in row
}
