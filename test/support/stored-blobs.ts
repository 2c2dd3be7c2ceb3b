import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { RunningFolio } from '../../src/main.js'
import { openUploads, s3TestClient, s3TestSettings } from './s3-test-server.js'

/**
 * How many blobs the server's blob store holds, counted through its own list() (so the
 * same check works on the local folder and on S3), plus the leftovers of unfinished
 * writes: a test that says "nothing was kept" must see both stay unchanged.
 */
export async function countStoredBlobs(server: RunningFolio): Promise<number> {
  let total = 0
  for await (const _listing of server.ctx.blobs.list()) total++
  return total + (await unfinishedWrites(server)).length
}

/**
 * What unfinished writes left behind: temporary files in the blob folder's tmp/ (the
 * local store), or multipart uploads still open under the prefix (S3).
 */
export async function unfinishedWrites(server: RunningFolio): Promise<string[]> {
  const s3 = server.ctx.config.s3
  if (s3) {
    const client = s3TestClient(s3TestSettings())
    try {
      return await openUploads(client, s3.bucket, s3.prefix)
    } finally {
      client.destroy()
    }
  }
  try {
    return await readdir(join(server.ctx.config.dataDir, 'files', 'tmp'))
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return []
    throw error
  }
}
