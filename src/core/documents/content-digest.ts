import { createHash } from 'node:crypto'

/** A SHA-256 fed piece by piece, as bytes stream past. */
export interface ContentDigest {
  update(bytes: Uint8Array): void
  /** Lowercase hex of the bytes fed so far; call once, at the end. */
  hex(): string
  /** How many bytes were fed. */
  size(): number
}

/** A fresh SHA-256 of contents (the hash every version records). */
export function contentDigest(): ContentDigest {
  const hash = createHash('sha256')
  let size = 0
  return {
    update(bytes) {
      size += bytes.byteLength
      hash.update(bytes)
    },
    hex: () => hash.digest('hex'),
    size: () => size,
  }
}
