import { Readable } from 'node:stream'
import { blankDocument } from '../../core/documents/blank-documents.js'
import { DomainError } from '../../core/errors.js'
import { newId } from '../../core/ids.js'
import { candidateNames, extensionOf } from '../../core/names/file-names.js'
import { assertValidTitle, repairName } from '../../core/names/name-rules.js'
import type { ByteRange, StoredBlob } from '../../ports/blob-store.js'
import type { FileRecord, VersionRecord, VersionSource } from '../../core/entities.js'
import type { FileListQuery, FilePatch } from '../../ports/metadata-store.js'
import { compareAndSet, MAX_CAS_ATTEMPTS, RETRY } from '../compare-and-set.js'
import type { AppContext } from '../context.js'
import { rootFolder } from '../roots.js'
import { enqueueIndexing } from '../search/index-version-job.js'
import { enqueueThumbnail } from '../conversion/thumbnail-job.js'
import { freeDroppedVersions, planRetention } from './version-retention.js'
import { dropRenditionsOf } from '../conversion/index.js'
import { assertRoomFor } from '../accounts/quota.js'

/** Reads a file; NOT_FOUND when it does not exist. */
export async function getFile(ctx: AppContext, fileId: string): Promise<FileRecord> {
  const file = await ctx.store.files.findById(fileId)
  if (!file) throw new DomainError('NOT_FOUND', 'file not found')
  return file
}

/** What createFileFromBlob needs: the owner, the wanted name and the stored contents. */
export interface NewFileInput {
  ownerId: string
  /** The folder to create it in; the owner's 'my' root when left out. */
  folderId?: string
  title: string
  blob: StoredBlob
  source: VersionSource
  meta?: Record<string, unknown>
  /** Who creates it (createdBy, updatedBy and the first version's author); the owner by default. */
  userId?: string
  /** Use `title` exactly: NAME_TAKEN when the folder has it already, instead of a free variant. */
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
    const wanted = assertValidTitle(input.title)
    const now = ctx.clock.now()
    const userId = input.userId ?? input.ownerId
    // Counted against the owner, whoever uploads (a sharee into the owner's folder).
    await assertRoomFor(ctx, input.ownerId, input.blob.size)
    const folderId = input.folderId ?? (await rootFolder(ctx, input.ownerId, 'my')).id
    const create = async (title: string): Promise<FileRecord> => {
      const file: FileRecord = {
        id: newId(),
        ownerId: input.ownerId,
        folderId,
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
        trashedAt: null,
        originFolderId: null,
      }
      const version = versionOf(file.id, 1, input.blob, input.source, userId, now, input.meta ?? {})
      await ctx.store.files.create(file, version)
      void enqueueIndexing(ctx, file.id)
      void enqueueThumbnail(ctx, file.id)
      void enqueueThumbnail(ctx, file.id)
      return file
    }
    if (input.exactTitle) return await create(wanted)
    return await withFreeName(ctx, folderId, wanted, create)
  } catch (error) {
    await ctx.blobs.delete(input.blob.key).catch(() => undefined)
    throw error
  }
}

/**
 * The one free-name rule: tries `write` with the first name of `wanted`'s series
 * ('Report.docx', 'Report (2).docx', ...) that the folder does not hold yet, and with the
 * next one whenever the write still finds it taken (another request got there first).
 * `ownTitle` (the file's current name, on a rename) counts as free. NAME_TAKEN when the
 * series runs out.
 */
export async function withFreeName<T>(
  ctx: AppContext,
  folderId: string,
  wanted: string,
  write: (title: string) => Promise<T>,
  ownTitle?: string,
): Promise<T> {
  for (const title of candidateNames(wanted)) {
    const isOwnName = ownTitle !== undefined && title.toLowerCase() === ownTitle.toLowerCase()
    if (!isOwnName && (await ctx.store.files.titleExists(folderId, title))) continue
    try {
      return await write(title)
    } catch (error) {
      if (error instanceof DomainError && error.code === 'NAME_TAKEN') continue
      throw error
    }
  }
  throw new DomainError('NAME_TAKEN', 'no free name could be derived from this title')
}

/** The first name of `wanted`'s series the folder does not hold, if any (for suggestions). */
export async function firstFreeName(ctx: AppContext, folderId: string, wanted: string): Promise<string | undefined> {
  for (const candidate of candidateNames(wanted)) {
    if (!(await ctx.store.files.titleExists(folderId, candidate))) return candidate
  }
  return undefined
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
    return Promise.reject(new DomainError('PAYLOAD_TOO_LARGE', `file is larger than ${ctx.config.maxFileSize} bytes`))
  }
  return ctx.blobs.put(body, { maxBytes: ctx.config.maxFileSize, expectedSize })
}

/**
 * Uploads a new file (streamed; never buffered whole) into `folderId` (the owner's 'my'
 * root when left out). Characters illegal in names are replaced with '_'.
 */
export async function uploadFile(
  ctx: AppContext,
  ownerId: string,
  wanted: string,
  body: Readable,
  expectedSize?: number,
  folderId?: string,
  userId?: string,
): Promise<FileRecord> {
  let title: string
  try {
    title = repairName(wanted)
  } catch (error) {
    body.resume()
    throw error
  }
  if (expectedSize !== undefined) {
    // A declared size over the quota is refused before its bytes are stored.
    try {
      await assertRoomFor(ctx, ownerId, expectedSize)
    } catch (error) {
      body.resume()
      throw error
    }
  }
  const blob = await storeBody(ctx, body, expectedSize)
  return createFileFromBlob(ctx, {
    ownerId,
    title,
    blob,
    source: 'upload',
    ...(folderId ? { folderId } : {}),
    ...(userId ? { userId } : {}),
  })
}

/**
 * Creates a new empty document (a valid blank package for docx/xlsx/pptx, else 0 bytes)
 * in `folderId` (the owner's 'my' root when left out), its name repaired as on upload.
 */
export async function createBlankFile(
  ctx: AppContext,
  ownerId: string,
  wanted: string,
  folderId?: string,
  userId?: string,
): Promise<FileRecord> {
  const title = repairName(wanted)
  const bytes = blankDocument(extensionOf(title)) ?? new Uint8Array(0)
  const blob = await ctx.blobs.put(Readable.from([Buffer.from(bytes)]), {
    maxBytes: ctx.config.maxFileSize,
  })
  return createFileFromBlob(ctx, {
    ownerId,
    title,
    blob,
    source: 'create',
    ...(folderId ? { folderId } : {}),
    ...(userId ? { userId } : {}),
  })
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
  return { file: givenRecord(fileId, current), given: true }
}

/** `current` as the record of `fileId`; another file's record is a caller's mistake. */
function givenRecord(fileId: string, current: FileRecord): FileRecord {
  if (current.id !== fileId) throw new Error(`record of file ${current.id} given for ${fileId}`)
  return current
}

/**
 * One compare-and-set attempt of mutateFile on `file`: decide, then write only if the row
 * is still at the revision decided on (`given`: see startingRow). Not an async function:
 * the first attempt of every WOPI lock call runs here, and hands on the store's promise.
 */
function attemptMutation(
  ctx: AppContext,
  file: FileRecord,
  decide: (file: FileRecord) => FilePatch | undefined,
  given: boolean,
): FileRecord | typeof RETRY | Promise<FileRecord | typeof RETRY> {
  let patch: FilePatch | undefined
  try {
    patch = decide(file)
  } catch (error) {
    // A refusal of the caller's (possibly stale) row is decided again on a fresh read.
    if (given) return RETRY
    throw error
  }
  if (!patch) return given ? RETRY : file
  return ctx.store.files.update(file.id, file.revision, patch).then(orRetry)
}

function orRetry(record: FileRecord | undefined): FileRecord | typeof RETRY {
  return record ?? RETRY
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
  const onFreshRead = async () => attemptMutation(ctx, await getFile(ctx, fileId), decide, false)
  if (current === undefined) return compareAndSet(onFreshRead)
  const first = await attemptMutation(ctx, givenRecord(fileId, current), decide, true)
  if (first !== RETRY) return first
  // The first attempt was one of the loop's.
  return compareAndSet(onFreshRead, MAX_CAS_ATTEMPTS - 1)
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
export async function commitNewVersion(ctx: AppContext, fileId: string, input: NewVersionInput): Promise<FileRecord> {
  let dropped: VersionRecord[] = []
  let committed: FileRecord
  try {
    committed = await compareAndSet(async (attempt) => {
      const { file, given } = await startingRow(ctx, fileId, attempt, input.current)
      try {
        input.precondition?.(file)
      } catch (error) {
        // A refusal of the caller's (possibly stale) row is decided again on a fresh read.
        if (given) return RETRY
        throw error
      }
      const now = ctx.clock.now()
      const next = file.version + 1
      const meta = input.meta ?? {}
      const incoming = { source: input.source, createdBy: input.userId, createdAt: now, meta }
      // Squashed or surplus versions go in the same transaction as the new one lands.
      const plan = await planRetention(ctx, file, incoming)
      const version = versionOf(file.id, next, input.blob, input.source, input.userId, now, {
        ...meta,
        ...plan.meta,
      })
      const patch: FilePatch = { updatedAt: now, updatedBy: input.userId }
      if (!input.keepDocumentKey) patch.keyVersion = next
      const drop = plan.drop.map((v) => v.version)
      // The owner's quota, with what the versions dropped in this same commit free.
      const freeing = plan.drop.reduce((sum, v) => sum + v.size, 0)
      await assertRoomFor(ctx, file.ownerId, input.blob.size, freeing)
      const result = await ctx.store.files.commitVersion(fileId, file.revision, version, patch, drop)
      if (result === undefined) return RETRY
      dropped = plan.drop
      return result
    })
  } catch (error) {
    await ctx.blobs.delete(input.blob.key).catch(() => undefined)
    throw error
  }
  void enqueueIndexing(ctx, fileId)
  void enqueueThumbnail(ctx, fileId)
  await freeDroppedVersions(ctx, dropped)
  return committed
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
export async function deleteFile(ctx: AppContext, fileId: string, options: DeleteFileOptions = {}): Promise<void> {
  await compareAndSet(async () => {
    const file = await getFile(ctx, fileId)
    options.precondition?.(file)
    // Read under the same revision, so a version added meanwhile makes this attempt retry
    // rather than leave its attachments behind.
    const attached = (await ctx.store.files.listVersions(fileId)).flatMap(attachedBlobKeys)
    const deletion = await ctx.store.files.delete(fileId, file.revision)
    if (deletion.outcome === 'not-found') throw new DomainError('NOT_FOUND', 'file not found')
    if (deletion.outcome !== 'deleted') return RETRY
    await deleteBlobsOf(ctx, [...deletion.blobKeys, ...attached])
    return undefined
  })
}

/**
 * Deletes those of `blobKeys` that no version of any file uses any more (a copy shares
 * its source's blobs, so bytes go only with their last user).
 */
export async function deleteBlobsOf(ctx: AppContext, blobKeys: string[]): Promise<void> {
  // Metadata is gone first, so a crash here leaves unreferenced blobs, never a dangling record.
  const inUse = await ctx.store.files.blobKeysInUse(blobKeys)
  await Promise.all(
    [...new Set(blobKeys)]
      .filter((key) => !inUse.has(key))
      .map((key) =>
        ctx.blobs.delete(key).catch((error: unknown) => {
          ctx.logger.warn({ err: error, blobKey: key }, 'could not delete blob of a deleted file')
        }),
      ),
  )
  await dropRenditionsOf(
    ctx,
    blobKeys.filter((key) => !inUse.has(key)),
  )
}

/** One page of the files of a user's 'my' root and the total count. */
export async function listFiles(
  ctx: AppContext,
  ownerId: string,
  query: Omit<FileListQuery, 'folderId'>,
): Promise<{ total: number; items: FileRecord[] }> {
  const root = await rootFolder(ctx, ownerId, 'my')
  return ctx.store.files.list({ ...query, folderId: root.id })
}

/** A stored version, or NOT_FOUND. */
export async function getVersion(ctx: AppContext, fileId: string, version: number): Promise<VersionRecord> {
  const record = await ctx.store.files.getVersion(fileId, version)
  if (!record) throw new DomainError('NOT_FOUND', `version ${version} not found`)
  return record
}

/** Every version of a file, oldest first. */
export function listVersions(ctx: AppContext, fileId: string): Promise<VersionRecord[]> {
  return ctx.store.files.listVersions(fileId)
}

/** A small blob's bytes whole, or undefined: then openBlob streams them (see BlobStore.getSmall). */
export function readSmallBlob(ctx: AppContext, blobKey: string): Promise<Buffer | undefined> {
  return ctx.blobs.getSmall(blobKey)
}

/** Opens the bytes of a blob (whole or a range) as a stream. */
export function openBlob(ctx: AppContext, blobKey: string, range?: ByteRange): Promise<Readable> {
  return ctx.blobs.get(blobKey, range)
}
