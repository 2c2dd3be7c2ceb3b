import { DomainError } from '../../core/errors.js'
import type { BackupDrivers } from '../../ports/backup.js'

export type { BackupDrivers, BlobReference } from '../../ports/backup.js'

/** What a backup or restore copied. */
export interface BackupSummary {
  blobs: number
  bytes: number
  /** ISO 8601 time the backup was taken. */
  takenAt: string
}

/** Written last into a backup folder: a folder without it is not a finished backup. */
export const BACKUP_MANIFEST = 'folio-backup.json'

/** A blob removed (a file deleted) between the snapshot and its copy: take a new snapshot. */
const SNAPSHOT_ATTEMPTS = 3

/**
 * Backs up the data folder of a Folio that may be running: a consistent snapshot of the
 * metadata first, then every blob that snapshot refers to, each checked against its
 * recorded size and SHA-256, then the manifest. Blobs written after the snapshot are not
 * needed by it and are left out. `backupDir` must be missing or empty.
 */
export async function backupDataFolder(
  drivers: BackupDrivers,
  options: { dataDir: string; backupDir: string; now: number },
): Promise<BackupSummary> {
  await requireEmptyFolder(drivers, options.backupDir, 'backup folder')
  const copied = new Set<string>()
  for (let attempt = 1; ; attempt++) {
    await drivers.snapshotMetadata(options.dataDir, options.backupDir)
    try {
      const summary = await copyBlobs(drivers, options.dataDir, options.backupDir, copied)
      const result = { ...summary, takenAt: new Date(options.now).toISOString() }
      await drivers.writeFolderFile(
        options.backupDir,
        BACKUP_MANIFEST,
        `${JSON.stringify({ format: 1, ...result }, null, 2)}\n`,
      )
      return result
    } catch (error) {
      const vanished = error instanceof DomainError && error.code === 'NOT_FOUND'
      // The copies made so far stay good (blobs never change once written) and are kept.
      if (!vanished || attempt >= SNAPSHOT_ATTEMPTS) throw error
    }
  }
}

/**
 * Puts a backup made by backupDataFolder into `dataDir`, which must be missing or empty
 * (a restore never mixes with live data). The metadata is copied, then every blob it
 * refers to, each checked against its recorded size and SHA-256.
 */
export async function restoreDataFolder(
  drivers: BackupDrivers,
  options: { backupDir: string; dataDir: string },
): Promise<BackupSummary> {
  const manifest = await readManifest(drivers, options.backupDir)
  await requireEmptyFolder(drivers, options.dataDir, 'data folder')
  await drivers.snapshotMetadata(options.backupDir, options.dataDir)
  const summary = await copyBlobs(drivers, options.backupDir, options.dataDir, new Set())
  return { ...summary, takenAt: manifest.takenAt }
}

async function copyBlobs(
  drivers: BackupDrivers,
  from: string,
  to: string,
  copied: Set<string>,
): Promise<{ blobs: number; bytes: number }> {
  const references = await drivers.referencedBlobs(to)
  let bytes = 0
  for (const blob of references) {
    bytes += blob.size
    if (copied.has(blob.key)) continue
    const written = await drivers.copyBlob(from, to, blob.key)
    if (written.size !== blob.size || written.sha256 !== blob.sha256) {
      throw new DomainError(
        'PRECONDITION_FAILED',
        `blob ${blob.key} does not match its record (expected ${blob.size} bytes, SHA-256 ${blob.sha256}; ` +
          `copied ${written.size} bytes, SHA-256 ${written.sha256})`,
      )
    }
    copied.add(blob.key)
  }
  return { blobs: references.length, bytes }
}

async function requireEmptyFolder(drivers: BackupDrivers, path: string, what: string): Promise<void> {
  if (!(await drivers.makeEmptyFolder(path))) {
    throw new DomainError('INVALID_INPUT', `the ${what} ${path} is not empty; give a new or empty folder`)
  }
}

async function readManifest(drivers: BackupDrivers, backupDir: string): Promise<{ takenAt: string }> {
  const text = await drivers.readFolderFile(backupDir, BACKUP_MANIFEST)
  if (text === undefined) {
    throw new DomainError('NOT_FOUND', `${backupDir} holds no finished Folio backup (no ${BACKUP_MANIFEST})`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new DomainError('INVALID_INPUT', `${BACKUP_MANIFEST} is damaged`)
  }
  const takenAt = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'takenAt') : undefined
  if (typeof takenAt !== 'string') throw new DomainError('INVALID_INPUT', `${BACKUP_MANIFEST} is damaged`)
  return { takenAt }
}
