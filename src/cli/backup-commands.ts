import { resolve } from 'node:path'
import type { Command } from 'commander'
import { backupDataFolder, restoreDataFolder } from '../app/maintenance/backup.js'
import { loadConfig, type Config } from '../config/load.js'
import { backupDrivers } from '../main.js'

/**
 * `folio backup <dir>` and `folio restore <dir>`: a consistent copy of the data folder
 * while Folio runs, and putting one back into an empty data folder (Folio stopped).
 */
export function addBackupCommands(program: Command): void {
  program
    .command('backup <dir>')
    .description('copy the database and the files it refers to into a new or empty folder (Folio may be running)')
    .action(async (dir: string) => {
      const config = embeddedStorageOnly(loadConfig(), 'backup')
      const summary = await backupDataFolder(await backupDrivers(), {
        dataDir: config.dataDir,
        backupDir: resolve(dir),
        now: Date.now(),
      })
      console.log(
        `backup of ${config.dataDir} taken at ${summary.takenAt} in ${resolve(dir)}: ` +
          `${summary.blobs} blobs, ${summary.bytes} bytes, every one checked against its SHA-256`,
      )
    })

  program
    .command('restore <dir>')
    .description('put a backup into FOLIO_DATA_DIR, which must be missing or empty (stop Folio first)')
    .action(async (dir: string) => {
      const config = embeddedStorageOnly(loadConfig(), 'restore')
      const summary = await restoreDataFolder(await backupDrivers(), {
        backupDir: resolve(dir),
        dataDir: config.dataDir,
      })
      console.log(
        `restored the backup taken at ${summary.takenAt} into ${config.dataDir}: ` +
          `${summary.blobs} blobs, ${summary.bytes} bytes, every one checked against its SHA-256`,
      )
    })
}

/**
 * backup and restore copy the embedded stores (the SQLite file and the files folder).
 * With PostgreSQL or S3 the data is not in the data folder: refuse rather than copy an
 * empty folder and call it a backup.
 */
function embeddedStorageOnly(config: Config, command: string): Config {
  if (config.database.url !== undefined || config.s3 !== undefined) {
    throw new Error(
      `folio ${command} copies the SQLite database and the files folder; with FOLIO_DATABASE_URL ` +
        'or FOLIO_S3_BUCKET set, back up PostgreSQL (pg_dump) and the bucket instead (docs/operations.md, "Backups")',
    )
  }
  return config
}
