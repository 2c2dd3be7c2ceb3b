import { Readable } from 'node:stream'
import { blankDocument } from '../core/documents/blank-documents.js'
import { DomainError } from '../core/errors.js'
import { newId } from '../core/ids.js'
import { candidateNames, extensionOf, validateFileName } from '../core/names/file-names.js'
import type { ByteRange, StoredBlob } from '../ports/blob-store.js'
import type {
  FileListQuery,
  FilePatch,
  FileRecord,
  VersionRecord,
  VersionSource,
} from '../ports/metadata-store.js'
import type { AppContext } from './context.js'

/** How many times a compare-and-set is retried before giving up (heavy contention). */
const MAX_CAS_ATTEMPTS = 64

/** Throws NAME_INVALID unless the title is a legal file name. */
export function assertValidTitle(title: string, field = 'title'): void {
  const check = validateFileName(title)
  if (!check.ok) throw new DomainError('NAME_INVALID', `invalid file name: ${check.reason}`, { field })
}

/** Reads a file; NOT_FOUND when it does not exist. */
export async function getFile(ctx: AppContext, fileId: string): Promise<FileRecord> {
  const file = await ctx.store.files.findById(fileId)
  if (!file) throw new DomainError('NOT_FOUND', 'file not found')
  return file
}

/**
 * Reads a file the user owns. Another user's file answers NOT_FOUND, exactly
 * like a missing one, so ids of other people's files cannot be probed.
 */
export async function getOwnFile(ctx: AppContext, fileId: string, userId: string): Promise<FileRecord> {
  const file = await ctx.store.files.findById(fileId)
  if (!file || file.ownerId !== userId) throw new DomainError('NOT_FOUND', 'file not found')
  return file
}

/** What createFileFromBlob needs: the owner, the wanted name and the stored contents. */
export interface NewFileInput {
  ownerId: string
  title: string
  blob: StoredBlob
  source: VersionSource
  meta?: Record<string, unknown>
  /** Who creates it (createdBy, updatedBy and the first version's author); the owner by default. */
  userId?: string
  /** Use `title` exactly: NAME_TAKEN when the owner has it already, instead of a free variant. */
  exactTitle?: boolean
}

/**
 * Creates a file from a stored blob under the first free name derived from
 * `title` ('Report.docx', 'Report (2).docx', ...), or under `title` itself with
 * `exactTitle`. The blob is deleted if the file cannot be created, so a failure
 * leaves nothing behind.
 */
export async function createFileFromBlob(ctx: AppContext, input: NewFileInput): Promise<FileRecord> {
  try {
    assertValidTitle(input.title)
    const now = ctx.clock.now()
    const userId = input.userId ?? input.ownerId
    const titles = input.exactTitle ? [input.title] : candidateNames(input.title)
    for (const title of titles) {
      const file: FileRecord = {
        id: newId(),
        ownerId: input.ownerId,
        title,
        version: 1,
        size: input.blob.size,
        sha256: input.blob.sha256,
        blobKey: input.blob.key,
        createdAt: now,
        createdBy: userId,
        updatedAt: now,
        updatedBy: userId,
        lock: null,
        keyVersion: 1,
        revision: 0,
      }
      const version = versionOf(file.id, 1, input.blob, input.source, userId, now, input.meta ?? {})
      try {
        await ctx.store.files.create(file, version)
        return file
      } catch (error) {
        if (input.exactTitle) throw error
        if (error instanceof DomainError && error.code === 'NAME_TAKEN') continue
        throw error
      }
    }
    throw new DomainError('NAME_TAKEN', 'no free name could be derived from this title')
  } catch (error) {
    await ctx.blobs.delete(input.blob.key).catch(() => undefined)
    throw error
  }
}

function versionOf(
  fileId: string,
  version: number,
  blob: StoredBlob,
  source: VersionSource,
  userId: string,
  now: number,
  meta: Record<string, unknown>,
): VersionRecord {
  return {
    fileId,
    version,
    blobKey: blob.key,
    size: blob.size,
    sha256: blob.sha256,
    createdAt: now,
    createdBy: userId,
    source,
    meta,
  }
}

/** Streams a body into the blob store under the configured size limit. */
export function storeBody(ctx: AppContext, body: Readable, expectedSize?: number): Promise<StoredBlob> {
  if (expectedSize !== undefined && expectedSize > ctx.config.maxFileSize) {
    body.resume()
    return Promise.reject(
      new DomainError('PAYLOAD_TOO_LARGE', `file is larger than ${ctx.config.maxFileSize} bytes`),
    )
  }
  return ctx.blobs.put(body, { maxBytes: ctx.config.maxFileSize, expectedSize })
}

/** Uploads a new file (streamed; never buffered whole). */
export async function uploadFile(
  ctx: AppContext,
  ownerId: string,
  title: string,
  body: Readable,
  expectedSize?: number,
): Promise<FileRecord> {
  assertValidTitle(title)
  const blob = await storeBody(ctx, body, expectedSize)
  return createFileFromBlob(ctx, { ownerId, title, blob, source: 'upload' })
}

/** Creates a new empty document: a valid blank package for docx/xlsx/pptx, else 0 bytes. */
export async function createBlankFile(
  ctx: AppContext,
  ownerId: string,
  title: string,
): Promise<FileRecord> {
  assertValidTitle(title)
  const bytes = blankDocument(extensionOf(title)) ?? new Uint8Array(0)
  const blob = await ctx.blobs.put(Readable.from([Buffer.from(bytes)]), {
    maxBytes: ctx.config.maxFileSize,
  })
  return createFileFromBlob(ctx, { ownerId, title, blob, source: 'create' })
}

/**
 * The row a compare-and-set attempt starts from: on the first attempt the record the caller
 * has just read, when given (saves a read per call), otherwise a fresh read. `given` says
 * which: a decision on a given record is trusted only when it writes, since then the
 * compare-and-set proves the row has not changed since; a refusal or a no-op on it is taken
 * again on a fresh read, so every answer rests on the row as it is, as without `current`.
 */
async function startingRow(
  ctx: AppContext,
  fileId: string,
  attempt: number,
  current: FileRecord | undefined,
): Promise<{ file: FileRecord; given: boolean }> {
  if (attempt > 0 || current === undefined) {
    return { file: await getFile(ctx, fileId), given: false }
  }
  if (current.id !== fileId) throw new Error(`record of file ${current.id} given for ${fileId}`)
  return { file: current, given: true }
}

/**
 * Runs a compare-and-set loop on one file: read, let `decide` return a patch
 * (or throw to refuse), write only if nobody changed the row meanwhile, and
 * decide again on the fresh row otherwise. The rule lives in `decide` (usually
 * a core function); atomicity lives in the store's conditional update. With
 * `current` (the record the caller read moments ago, as WOPI's authorize does)
 * the first attempt starts from it instead of reading the row again.
 */
export async function mutateFile(
  ctx: AppContext,
  fileId: string,
  decide: (file: FileRecord) => FilePatch | undefined,
  current?: FileRecord,
): Promise<FileRecord> {
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const { file, given } = await startingRow(ctx, fileId, attempt, current)
    let patch: FilePatch | undefined
    try {
      patch = decide(file)
    } catch (error) {
      if (given) continue
      throw error
    }
    if (!patch) {
      if (given) continue
      return file
    }
    const updated = await ctx.store.files.update(fileId, file.revision, patch)
    if (updated) return updated
  }
  throw new DomainError('CONCURRENT_UPDATE', 'the file is changing too fast; try again')
}

export interface NewVersionInput {
  blob: StoredBlob
  userId: string
  source: VersionSource
  meta?: Record<string, unknown>
  /** Force saves keep the ONLYOFFICE document key; every other version rotates it. */
  keepDocumentKey?: boolean
  /** Called on the fresh row before each commit attempt; throw to refuse. */
  precondition?: (file: FileRecord) => void
  /** The record the caller read already: the first attempt starts from it (see mutateFile). */
  current?: FileRecord
}

/**
 * Makes a stored blob the file's newest version, atomically: the version row and
 * the new head land in one transaction, guarded by the row's revision. If the
 * commit is refused or fails, the blob is deleted and the old version stays.
 */
export async function commitNewVersion(
  ctx: AppContext,
  fileId: string,
  input: NewVersionInput,
): Promise<FileRecord> {
  try {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const { file, given } = await startingRow(ctx, fileId, attempt, input.current)
      try {
        input.precondition?.(file)
      } catch (error) {
        if (given) continue
        throw error
      }
      const now = ctx.clock.now()
      const next = file.version + 1
      const meta = input.meta ?? {}
      const version = versionOf(file.id, next, input.blob, input.source, input.userId, now, meta)
      const patch: FilePatch = { updatedAt: now, updatedBy: input.userId }
      if (!input.keepDocumentKey) patch.keyVersion = next
      const updated = await ctx.store.files.commitVersion(fileId, file.revision, version, patch)
      if (updated) return updated
    }
    throw new DomainError('CONCURRENT_UPDATE', 'the file is changing too fast; try again')
  } catch (error) {
    await ctx.blobs.delete(input.blob.key).catch(() => undefined)
    throw error
  }
}

/** Renames a file; NAME_INVALID for an illegal name, NAME_TAKEN when the owner has it already. */
export async function renameFile(
  ctx: AppContext,
  fileId: string,
  title: string,
  userId: string,
): Promise<FileRecord> {
  assertValidTitle(title)
  return mutateFile(ctx, fileId, (file) =>
    file.title === title ? undefined : { title, updatedAt: ctx.clock.now(), updatedBy: userId },
  )
}

/** Blobs a version names in its meta beside its contents (an editor save's changes.zip). */
function attachedBlobKeys(version: VersionRecord): string[] {
  const key = version.meta.changesBlobKey
  return typeof key === 'string' ? [key] : []
}

/** How deleteFile may refuse. */
export interface DeleteFileOptions {
  /** Called on the fresh row before each delete attempt; throw to refuse (say, while locked). */
  precondition?: (file: FileRecord) => void
}

/**
 * Deletes a file, its versions and their contents. The delete is a compare-and-set on the
 * row read just before: if anything changes the file meanwhile (a Lock, a save), the row
 * is read again and `precondition` decides again, so it never deletes a file it would
 * have refused. NOT_FOUND when the file does not exist (or went meanwhile).
 */
export async function deleteFile(
  ctx: AppContext,
  fileId: string,
  options: DeleteFileOptions = {},
): Promise<void> {
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const file = await getFile(ctx, fileId)
    options.precondition?.(file)
    // Read under the same revision, so a version added meanwhile makes this attempt retry
    // rather than leave its attachments behind.
    const attached = (await ctx.store.files.listVersions(fileId)).flatMap(attachedBlobKeys)
    const deletion = await ctx.store.files.delete(fileId, file.revision)
    if (deletion.outcome === 'not-found') throw new DomainError('NOT_FOUND', 'file not found')
    if (deletion.outcome === 'deleted') {
      await deleteBlobsOf(ctx, [...deletion.blobKeys, ...attached])
      return
    }
  }
  throw new DomainError('CONCURRENT_UPDATE', 'the file is changing too fast; try again')
}

async function deleteBlobsOf(ctx: AppContext, blobKeys: string[]): Promise<void> {
  // Metadata is gone first, so a crash here leaves unreferenced blobs, never a dangling record.
  await Promise.all(
    blobKeys.map((key) =>
      ctx.blobs.delete(key).catch((error: unknown) => {
        ctx.logger.warn({ err: error, blobKey: key }, 'could not delete blob of a deleted file')
      }),
    ),
  )
}

/** One page of a user's files and the total count. */
export function listFiles(
  ctx: AppContext,
  query: FileListQuery,
): Promise<{ total: number; items: FileRecord[] }> {
  return ctx.store.files.list(query)
}

/** A stored version, or NOT_FOUND. */
export async function getVersion(
  ctx: AppContext,
  fileId: string,
  version: number,
): Promise<VersionRecord> {
  const record = await ctx.store.files.getVersion(fileId, version)
  if (!record) throw new DomainError('NOT_FOUND', `version ${version} not found`)
  return record
}

/** Opens the bytes of a blob (whole or a range) as a stream. */
export function openBlob(ctx: AppContext, blobKey: string, range?: ByteRange): Promise<Readable> {
  return ctx.blobs.get(blobKey, range)
}
