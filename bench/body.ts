import { createHash, randomBytes } from 'node:crypto'
import { MiB } from './options.js'

// One random block repeated: random so nothing compresses it, repeated so making
// a 1 GiB body costs no memory.
const BLOCK = randomBytes(MiB)
const hashes = new Map<number, string>()

/** The bytes of a test body of `size` bytes, as 1 MiB chunks (the last one shorter). */
export function* bodyChunks(size: number): Generator<Buffer> {
  let left = size
  while (left > 0) {
    const length = Math.min(left, BLOCK.length)
    yield length === BLOCK.length ? BLOCK : BLOCK.subarray(0, length)
    left -= length
  }
}

/** Lowercase hex SHA-256 of the test body of `size` bytes (computed once per size). */
export function bodySha256(size: number): string {
  const known = hashes.get(size)
  if (known) return known
  const hash = createHash('sha256')
  for (const chunk of bodyChunks(size)) hash.update(chunk)
  const digest = hash.digest('hex')
  hashes.set(size, digest)
  return digest
}

/** The whole test body in memory (only for small sizes and for the Docs simulator). */
export function bodyBuffer(size: number): Buffer {
  return Buffer.concat([...bodyChunks(size)], size)
}
