import { createHash, randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, open, rename, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { DomainError } from '../../core/errors.js'

const KEY_PATTERN = /^[A-Za-z0-9_-]{16,64}$/

/**
 * Copies the blob `key` from the filesystem blob store rooted at `fromRoot` to the one at
 * `toRoot` (same layout: blobs/<2 chars>/<key>), through a temp file that is fsynced and
 * renamed into place, and returns the size and SHA-256 of the bytes copied. Throws
 * NOT_FOUND when the source blob does not exist.
 */
export async function copyFsBlob(
  fromRoot: string,
  toRoot: string,
  key: string,
): Promise<{ size: number; sha256: string }> {
  if (!KEY_PATTERN.test(key)) throw new DomainError('NOT_FOUND', `not a blob key: ${key}`)
  const source = join(fromRoot, 'blobs', key.slice(0, 2), key)
  const target = join(toRoot, 'blobs', key.slice(0, 2), key)
  const tmp = join(toRoot, 'tmp', `${key}.${randomBytes(4).toString('hex')}.tmp`)
  await mkdir(dirname(tmp), { recursive: true })
  await mkdir(dirname(target), { recursive: true })
  const hash = createHash('sha256')
  let size = 0
  const handle = await open(tmp, 'wx')
  try {
    for await (const chunk of createReadStream(source)) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
      size += bytes.length
      hash.update(bytes)
      let offset = 0
      while (offset < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset)
        offset += bytesWritten
      }
    }
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => undefined)
    await unlink(tmp).catch(() => undefined)
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') {
      throw new DomainError('NOT_FOUND', `blob ${key} is gone`)
    }
    throw error
  }
  await handle.close()
  await rename(tmp, target)
  const dir = await open(dirname(target), 'r')
  try {
    await dir.sync()
  } finally {
    await dir.close()
  }
  return { size, sha256: hash.digest('hex') }
}
