import type { Command } from 'commander'
import { migrateStorage, type MigrationProgress } from '../app/maintenance/migrate-storage.js'
import { loadConfig } from '../config/load.js'
import { TRANSFER_KINDS, type ImportReport } from '../ports/metadata-transfer.js'
import { openMigrationEnds } from '../main.js'

const HELP = `
Moves a single-machine install to PostgreSQL and S3. Reads the install in
FOLIO_DATA_DIR (its SQLite database folio.db and its blob folder files/) and writes:
  - the metadata to the PostgreSQL database of FOLIO_DATABASE_URL (schema
    FOLIO_DATABASE_SCHEMA), which must be empty or hold an earlier run of this command;
  - the file contents to the S3 bucket of FOLIO_S3_BUCKET (with FOLIO_S3_ENDPOINT,
    FOLIO_S3_REGION, FOLIO_S3_ACCESS_KEY_ID, FOLIO_S3_SECRET_ACCESS_KEY,
    FOLIO_S3_FORCE_PATH_STYLE, FOLIO_S3_PREFIX).
Set one of the two to move only that part (the other stays where it is).

What moves: every account (with its password hash, so passwords stay), session, sign-in
throttle entry and setting (the signing secret, so tokens and links stay valid), folder,
file, version (numbers, authors, times), ONLYOFFICE change archive and editing state,
WOPI lock, share, share link, trash item and audit event. Ids and blob keys stay what they
were: open links, WOPI sources and bookmarks keep working on the new storage.

Every blob is checked against the SHA-256 its version recorded; the command exits 0 only
when every blob was verified and every record is in the target. The records are written
in one transaction after the last blob, so an interrupted run leaves no half-written
database. Run it again after an interruption: blobs already in the bucket with the right
bytes are kept, records already there are left as they are, so nothing is copied twice.
Once Folio has run on the new storage, do not run it again: it only adds what is missing.

Stop Folio first: the command refuses to start while another process has the database
open, and keeps it locked until it ends. Afterwards, start Folio with the same
FOLIO_DATABASE_URL and FOLIO_S3_* settings. The data folder's records and files are left
as they were (keep them until you are satisfied, then remove them).
`

/** `folio migrate-storage`: moves the data folder's install to PostgreSQL and/or S3. */
export function addMigrateCommand(program: Command): void {
  program
    .command('migrate-storage')
    .description('move the install in FOLIO_DATA_DIR to PostgreSQL (FOLIO_DATABASE_URL) and S3 (FOLIO_S3_*), ids kept')
    .addHelpText('after', HELP)
    .action(async () => {
      const config = loadConfig()
      const opened = await openMigrationEnds(config)
      try {
        console.log(`moving ${opened.from}`)
        console.log(`    to ${opened.to}`)
        const summary = await migrateStorage(opened.ends, printProgress())
        const records =
          summary.records === undefined
            ? ''
            : `; records: ${sum(summary.records.added)} added, ` + `${sum(summary.records.present)} already there`
        console.log(
          `done: ${summary.blobs} blobs (${summary.bytes} bytes) verified against their SHA-256 ` +
            `(${summary.copied} copied, ${summary.present} already there, ${summary.checked} checked in place)` +
            `${records}. Start Folio with the same settings.`,
        )
      } finally {
        await opened.close()
      }
    })
}

/** Prints each step; blob progress about every 1 % (each blob when there are few). */
function printProgress(): (event: MigrationProgress) => void {
  const counts = { copied: 0, present: 0, checked: 0, failed: 0 }
  return (event) => {
    switch (event.step) {
      case 'target':
        console.log(
          event.state === 'empty'
            ? 'target database: empty'
            : 'target database: holds this install from an earlier run; only what is missing is added',
        )
        return
      case 'blobs-found':
        console.log(`blobs to move: ${event.blobs} (${event.bytes} bytes)`)
        return
      case 'blob': {
        counts[event.outcome]++
        const step = Math.max(1, Math.floor(event.total / 100))
        if (event.done % step !== 0 && event.done !== event.total) return
        console.log(
          `blobs: ${event.done}/${event.total} (${counts.copied} copied, ${counts.present} already there, ` +
            `${counts.checked} checked in place, ${counts.failed} failed)`,
        )
        return
      }
      case 'records':
        console.log(`records: ${describeReport(event.report)}`)
    }
  }
}

function describeReport(report: ImportReport): string {
  return TRANSFER_KINDS.map(
    (kind) => `${kind} ${report.added[kind]} added (${report.present[kind]} already there)`,
  ).join(', ')
}

function sum(counts: ImportReport['added']): number {
  return TRANSFER_KINDS.reduce((total, kind) => total + counts[kind], 0)
}
