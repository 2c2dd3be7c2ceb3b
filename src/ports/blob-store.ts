import type { Readable } from 'node:stream'

/** The largest blob getSmall may hand over whole. */
export const SMALL_BLOB_BYTES = 64 * 1024

/** What a finished write produced. */
export interface StoredBlob {
  /** Opaque, store-chosen key; URL-safe ASCII. */
  key: string
  size: number
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string
}

export interface PutOptions {
  /** Refuse (PAYLOAD_TOO_LARGE) and keep nothing once more bytes than this arrive. */
  maxBytes: number
  /** When known (Content-Length), a body that ends short or runs long is refused. */
  expectedSize?: number
}

export interface ByteRange {
  /** Inclusive first byte. */
  start: number
  /** Inclusive last byte. */
  end: number
}

/** One stored blob as a listing shows it. */
export interface BlobListing {
  key: string
  /** Last modification, ms since the epoch (for a blob: when its write finished). */
  modifiedAt: number
  size: number
}

/** The free space of the disk a store writes to, when it writes to a local disk. */
export interface DiskSpace {
  /** Bytes an unprivileged writer may still use. */
  freeBytes: number
  totalBytes: number
}

/** What a sweep of temporary files removed. */
export interface SweepReport {
  files: number
  bytes: number
}

/**
 * File contents. Every put is atomic and durable before it resolves: a reader
 * sees either nothing or the whole blob, never a torn one, even across a crash.
 * Blobs are immutable once written; a new version is a new blob. A put that finds no room
 * (a full disk, a bucket over its quota) throws INSUFFICIENT_STORAGE and keeps nothing.
 */
export interface BlobStore {
  put(source: Readable, options: PutOptions): Promise<StoredBlob>
  /**
   * As put, under a key another Folio store chose (a blob moved between stores keeps its
   * key, so the records naming it stay as they are). A blob already stored under that key
   * is replaced whole. Throws INVALID_INPUT for a key of another shape than the stores
   * hand out. Meant for `folio migrate-storage`; Folio itself never rewrites a key.
   */
  putWithKey(key: string, source: Readable, options: PutOptions): Promise<StoredBlob>
  /** Streams the blob, or the inclusive range of it. Throws NOT_FOUND. */
  get(key: string, range?: ByteRange): Promise<Readable>
  /**
   * The whole blob as one Buffer when the store can hand it over without a stream (a small
   * blob it remembers or reads in one go: at most SMALL_BLOB_BYTES); undefined otherwise,
   * and the caller streams it with get. Saves a small download the stream machinery. The
   * Buffer may be shared with later calls: the caller never changes it. Throws
   * NOT_FOUND, or answers undefined for a missing blob (get then throws it).
   */
  getSmall(key: string): Promise<Buffer | undefined>
  /** Removes the blob; a missing blob is not an error. */
  delete(key: string): Promise<void>
  /** True when a blob with this key exists. */
  exists(key: string): Promise<boolean>
  /**
   * Every stored blob, in no promised order, for a garbage collector to compare with the
   * keys the metadata refers to. A put still under way is not listed; blobs written or
   * deleted while the listing runs may or may not appear.
   */
  list(): AsyncIterable<BlobListing>
  /**
   * Removes what interrupted writes left behind (temporary files, unfinished multipart
   * uploads) last touched or started before `olderThan` (ms since the epoch); a write
   * still in progress is newer than that. A store without such leftovers reports zero.
   */
  sweepTemporary(olderThan: number): Promise<SweepReport>
  /**
   * The free space of the local disk the blobs go to (one statfs); absent for a store
   * without one (S3), where no reserve of free space applies.
   */
  freeSpace?(): Promise<DiskSpace>
  /** Releases connections the store holds; it is not used afterwards. */
  close?(): Promise<void>
}
