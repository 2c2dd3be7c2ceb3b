import { contentDigest } from '../../core/documents/content-digest.js'
import { DomainError, isDomainError } from '../../core/errors.js'
import { errorMessage } from '../../core/ids.js'
import type { BlobStore } from '../../ports/blob-store.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import type { ImportReport } from '../../ports/metadata-transfer.js'
import { SIGNING_SECRET_SETTING } from '../context.js'
import { changesOf } from '../editing/editing.js'

/**
 * Moving an install's storage (`folio migrate-storage`): every blob its records refer to
 * is copied under its own key and checked against its recorded SHA-256, then every record
 * is imported with its id in one transaction. Ids, blob keys and the signing secret stay
 * what they were, so links, WOPI sources, sessions and tokens keep working on the target.
 * Safe to run again after an interruption: blobs already in the target with the right
 * bytes are kept, and records already there are left alone.
 */

/** Where an install's storage is moved from and to. */
export interface MigrationEnds {
  /** The install as it is; nothing in it is changed. */
  source: { store: MetadataStore; blobs: BlobStore }
  /** The metadata store to fill; undefined when the metadata stays where it is. */
  targetStore?: MetadataStore
  /** The blob store to fill; undefined when the contents stay where they are. */
  targetBlobs?: BlobStore
}

/** What the target held before this run. */
export type TargetState = 'empty' | 'this-install'

/** Steps reported while a migration runs, for the progress a person watches. */
export type MigrationProgress =
  | { step: 'target'; state: TargetState }
  | { step: 'blobs-found'; blobs: number; bytes: number }
  | {
      step: 'blob'
      done: number
      total: number
      /** What happened to this blob: copied, found in the target already, or checked in place. */
      outcome: 'copied' | 'present' | 'checked' | 'failed'
    }
  | { step: 'records'; report: ImportReport }

/** What a finished migration did. */
export interface MigrationSummary {
  target?: TargetState
  /** Blobs the records refer to, and their bytes. */
  blobs: number
  bytes: number
  copied: number
  /** Blobs the target held already with the right bytes (an earlier, interrupted run). */
  present: number
  /** Blobs checked where they are (the contents were not moved). */
  checked: number
  /** Undefined when the metadata was not moved. */
  records?: ImportReport
}

/** A blob the records refer to, with what its bytes must be and who uses it. */
interface BlobNeed {
  key: string
  size: number
  sha256: string
  /** 'file <id> version <n>', for messages. */
  usedBy: string
}

/** Blobs copied at once (S3 round trips overlap; memory stays a few parts per copy). */
const PARALLEL_COPIES = 4
/** Failures named one by one in the final error; the rest are counted. */
const FAILURES_LISTED = 20

/**
 * Moves the storage of `ends.source` into the targets, reporting each step through
 * `progress`. Resolves only when every blob was verified against its recorded SHA-256 and
 * every record is in the target; otherwise throws, having imported no record (blobs
 * already copied stay, and a new run keeps them). Refuses a target metadata store that
 * holds another install's data.
 */
export async function migrateStorage(
  ends: MigrationEnds,
  progress: (event: MigrationProgress) => void = () => undefined,
): Promise<MigrationSummary> {
  const { source, targetStore, targetBlobs } = ends
  if (targetStore === undefined && targetBlobs === undefined) {
    throw new DomainError('INVALID_INPUT', 'nothing to move: name a target database or blob store')
  }
  let target: TargetState | undefined
  if (targetStore !== undefined) {
    target = await checkTarget(source.store, targetStore)
    progress({ step: 'target', state: target })
  }

  const needs = await blobNeeds(source.store)
  const bytes = needs.reduce((sum, need) => sum + need.size, 0)
  progress({ step: 'blobs-found', blobs: needs.length, bytes })
  const tally = await moveBlobs(needs, source.blobs, targetBlobs, progress)

  let records: ImportReport | undefined
  if (targetStore !== undefined) {
    // Again, just before writing: a Folio started on the target meanwhile made an install of its own.
    await checkTarget(source.store, targetStore)
    records = await targetStore.transfer.importRecords(source.store.transfer.exportRecords())
    progress({ step: 'records', report: records })
  }
  return {
    ...(target === undefined ? {} : { target }),
    blobs: needs.length,
    bytes,
    ...tally,
    ...(records === undefined ? {} : { records }),
  }
}

/**
 * 'empty', or 'this-install' when the target holds records with this install's signing
 * secret (an earlier run of this migration); anything else is another install's data.
 */
async function checkTarget(source: MetadataStore, target: MetadataStore): Promise<TargetState> {
  if (await target.transfer.isEmpty()) return 'empty'
  const [ours, theirs] = await Promise.all([
    source.settings.get(SIGNING_SECRET_SETTING),
    target.settings.get(SIGNING_SECRET_SETTING),
  ])
  if (ours !== undefined && ours === theirs) return 'this-install'
  throw new DomainError(
    'PRECONDITION_FAILED',
    "the target database already holds another Folio install's data (its signing secret is not this " +
      "install's: was Folio started on it?); nothing was changed. Point FOLIO_DATABASE_URL (or " +
      'FOLIO_DATABASE_SCHEMA) at an empty database or schema',
  )
}

/** Every blob the source's versions use (contents and ONLYOFFICE change archives), each key once. */
async function blobNeeds(store: MetadataStore): Promise<BlobNeed[]> {
  const needs = new Map<string, BlobNeed>()
  for await (const batch of store.transfer.exportRecords()) {
    if (batch.kind !== 'versions') continue
    for (const version of batch.records) {
      const usedBy = `file ${version.fileId} version ${version.version}`
      needs.set(version.blobKey, { key: version.blobKey, size: version.size, sha256: version.sha256, usedBy })
      const changes = changesOf(version)
      if (changes !== undefined) {
        const { blobKey: key, size, sha256 } = changes
        needs.set(key, { key, size, sha256, usedBy: `${usedBy} (changes)` })
      }
    }
  }
  return [...needs.values()]
}

/**
 * Copies each needed blob into `target` (or, without a target, checks it where it is),
 * a few at a time. Every failure is collected; the migration fails after the last blob,
 * naming them, so one run shows every damaged file.
 */
async function moveBlobs(
  needs: BlobNeed[],
  source: BlobStore,
  target: BlobStore | undefined,
  progress: (event: MigrationProgress) => void,
): Promise<{ copied: number; present: number; checked: number }> {
  const tally = { copied: 0, present: 0, checked: 0 }
  const failures: string[] = []
  let next = 0
  let done = 0
  const worker = async (): Promise<void> => {
    for (let index = next++; index < needs.length; index = next++) {
      const need = needs[index]
      if (need === undefined) continue
      let outcome: 'copied' | 'present' | 'checked' | 'failed'
      try {
        outcome = target === undefined ? await checkInPlace(need, source) : await copyBlob(need, source, target)
        tally[outcome]++
      } catch (error) {
        outcome = 'failed'
        failures.push(`${need.usedBy} (blob ${need.key}): ${errorMessage(error)}`)
      }
      done++
      progress({ step: 'blob', done, total: needs.length, outcome })
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL_COPIES, needs.length) }, worker))
  if (failures.length > 0) {
    const listed = failures
      .slice(0, FAILURES_LISTED)
      .map((line) => `\n  ${line}`)
      .join('')
    const more = failures.length > FAILURES_LISTED ? `\n  and ${failures.length - FAILURES_LISTED} more` : ''
    throw new DomainError(
      'PRECONDITION_FAILED',
      `${failures.length} of ${needs.length} blobs could not be moved and verified; no record was imported:` +
        `${listed}${more}`,
    )
  }
  return tally
}

/** Copies one blob unless the target holds it with the right bytes; verifies what was written. */
async function copyBlob(need: BlobNeed, source: BlobStore, target: BlobStore): Promise<'copied' | 'present'> {
  if (await target.exists(need.key)) {
    const there = await digestOf(target, need.key)
    if (there.size === need.size && there.sha256 === need.sha256) return 'present'
    // A copy that does not match (damaged since) is replaced below.
  }
  const body = await readSource(source, need.key)
  let stored
  try {
    stored = await target.putWithKey(need.key, body, { maxBytes: need.size, expectedSize: need.size })
  } catch (error) {
    body.destroy()
    if (isDomainError(error) && (error.code === 'INVALID_INPUT' || error.code === 'PAYLOAD_TOO_LARGE')) {
      throw new Error(`the source blob is not the recorded ${need.size} bytes`)
    }
    throw error
  }
  if (stored.sha256 !== need.sha256) {
    // Never leave bytes under a key whose record says otherwise.
    await target.delete(need.key)
    throw new Error(`the source bytes have SHA-256 ${stored.sha256}, the record says ${need.sha256}`)
  }
  return 'copied'
}

/** Reads one blob where it is and compares it with its record. */
async function checkInPlace(need: BlobNeed, blobs: BlobStore): Promise<'checked'> {
  const found = await digestOf(blobs, need.key)
  if (found.size !== need.size || found.sha256 !== need.sha256) {
    throw new Error(
      `the blob has ${found.size} bytes with SHA-256 ${found.sha256}; the record says ` +
        `${need.size} bytes with ${need.sha256}`,
    )
  }
  return 'checked'
}

async function readSource(source: BlobStore, key: string) {
  try {
    return await source.get(key)
  } catch (error) {
    if (isDomainError(error) && error.code === 'NOT_FOUND') throw new Error('the blob is missing from the source')
    throw error
  }
}

/** Size and SHA-256 of a stored blob, read through. */
async function digestOf(blobs: BlobStore, key: string): Promise<{ size: number; sha256: string }> {
  const digest = contentDigest()
  for await (const chunk of await blobs.get(key)) {
    if (!(chunk instanceof Uint8Array)) throw new Error('a blob store yielded something other than bytes')
    digest.update(chunk)
  }
  return { size: digest.size(), sha256: digest.hex() }
}
