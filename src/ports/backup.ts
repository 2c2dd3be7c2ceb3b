/** A blob a database refers to, with what its bytes must be. */
export interface BlobReference {
  key: string
  size: number
  /** Lowercase hex SHA-256. */
  sha256: string
}

/**
 * The storage operations a backup needs, given by the composition root (the CLI) for the
 * drivers in use. Each names a data folder (the layout of FOLIO_DATA_DIR).
 */
export interface BackupDrivers {
  /** Writes a consistent copy of the metadata of `fromDataDir` into `toDataDir`. */
  snapshotMetadata(fromDataDir: string, toDataDir: string): Promise<void>
  /** The blobs the metadata in `dataDir` refers to. */
  referencedBlobs(dataDir: string): Promise<BlobReference[]>
  /**
   * Copies one blob between data folders; returns the size and SHA-256 of what it copied.
   * Throws NOT_FOUND when the blob is not in `fromDataDir`.
   */
  copyBlob(fromDataDir: string, toDataDir: string, key: string): Promise<{ size: number; sha256: string }>
  /** Creates `path` when missing; false when it exists and is not empty (nothing is changed). */
  makeEmptyFolder(path: string): Promise<boolean>
  /** Writes a small file into a folder durably (temp file, fsync, rename). */
  writeFolderFile(folder: string, name: string, text: string): Promise<void>
  /** A small file of a folder, or undefined when it does not exist. */
  readFolderFile(folder: string, name: string): Promise<string | undefined>
}
