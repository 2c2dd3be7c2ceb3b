/**
 * The bytes of recently read small blobs, least recently used dropped first. Safe to keep
 * in one process's memory with other processes on the same store: a blob never changes
 * once stored (a new version is a new random key) and a key is never reused, so a cached
 * blob can only be stale in being deleted elsewhere, and by then no file refers to it.
 * The exception is `putWithKey` (migrate-storage, with no server running on the target),
 * which drops the entry of the key it rewrites.
 */
export interface SmallBlobCache {
  get(key: string): Buffer | undefined
  /** Keeps `bytes` when they fit the per-blob limit (the caller hands over the buffer). */
  set(key: string, bytes: Buffer): void
  delete(key: string): void
}

export function createSmallBlobCache(limits: { maxBlobBytes: number; maxTotalBytes: number }): SmallBlobCache {
  // A Map iterates in insertion order: re-inserting on a hit makes its first key the oldest.
  const entries = new Map<string, Buffer>()
  let total = 0
  return {
    get(key) {
      const bytes = entries.get(key)
      if (bytes === undefined) return undefined
      entries.delete(key)
      entries.set(key, bytes)
      return bytes
    },
    set(key, bytes) {
      if (bytes.length > limits.maxBlobBytes || entries.has(key)) return
      entries.set(key, bytes)
      total += bytes.length
      for (const [oldest, old] of entries) {
        if (total <= limits.maxTotalBytes) break
        entries.delete(oldest)
        total -= old.length
      }
    },
    delete(key) {
      const bytes = entries.get(key)
      if (bytes === undefined) return
      entries.delete(key)
      total -= bytes.length
    },
  }
}
