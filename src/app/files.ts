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

interface NewFileInput {
  ownerId: string
  title: string
  blob: StoredBlob
  source: VersionSource
  meta?: Record<string, unknown>
}

/**
 * Creates a file from a stored blob under the first free name derived from
 * `title` ('Report.docx', 'Report (2).docx', ...). The blob is deleted if the
 * file cannot be created, so a failure leaves nothing behind.
 */
export async function createFileFromBlob(ctx: AppContext, input: NewFileInput): Promise<FileRecord> {
  try {
    assertValidTitle(input.title)
    const now = ctx.clock.now()
    for (const title of candidateNames(input.title)) {
      const file: FileRecord = {
        id: newId(),
        ownerId: input.ownerId,
        title,
        version: 1,
        size: input.blob.size,
        sha256: input.blob.sha256,
        blobKey: input.blob.key,
        createdAt: now,
        createdBy: input.ownerId,
        updatedAt: now,
        updatedBy: input.ownerId,
        lock: null,
        keyVersion: 1,
        revision: 0,
      }
      const version = versionOf(file.id, 1, input.blob, input.source, input.ownerId, now, input.meta ?? {})
      try {
        await ctx.store.files.create(file, version)
        return file
      } catch (error) {
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
 * Runs a compare-and-set loop on one file: read, let `decide` return a patch
 * (or throw to refuse), write only if nobody changed the row meanwhile, and
 * decide again on the fresh row otherwise. The rule lives in `decide` (usually
 * a core function); atomicity lives in the store's conditional update.
 */
export async function mutateFile(
  ctx: AppContext,
  fileId: string,
  decide: (file: FileRecord) => FilePatch | undefined,
): Promise<FileRecord> {
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const file = await getFile(ctx, fileId)
    const patch = decide(file)
    if (!patch) return file
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
      const file = await getFile(ctx, fileId)
      input.precondition?.(file)
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

/** Deletes a file, its versions and their contents. */
export async function deleteFile(ctx: AppContext, fileId: string): Promise<void> {
  const attached = (await ctx.store.files.listVersions(fileId)).flatMap(attachedBlobKeys)
  const blobKeys = await ctx.store.files.delete(fileId)
  if (!blobKeys) throw new DomainError('NOT_FOUND', 'file not found')
  // Metadata is gone first, so a crash here leaves unreferenced blobs, never a dangling record.
  await Promise.all(
    [...blobKeys, ...attached].map((key) =>
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
