import { convertedName, ooxmlTwinOf } from '../../core/conversion/formats.js'
import type { FileRecord } from '../../core/entities.js'
import { DomainError, isDomainError } from '../../core/errors.js'
import { extensionOf } from '../../core/names/file-names.js'
import { fileFor, userPrincipal, type Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { createFileFromBlob } from '../files/files.js'
import { writableFolder } from '../folders/folders.js'
import { enqueueJob, type JobKind } from '../jobs/index.js'

export const CONVERT_TO_OOXML = 'convert-to-ooxml'

/** Where one user's conversion of one file stands, kept in the metadata store (any instance answers). */
export interface OoxmlConversion {
  state: 'waiting' | 'running' | 'done' | 'failed'
  /** The converted file, once done. */
  resultFileId?: string
  /** Why it failed (a sentence for the user, no document content). */
  error?: string
  /** The source's version converted. */
  sourceVersion: number
}

/** A conversion's state as the adapter presents it: with the new file when done. */
export interface OoxmlConversionView extends OoxmlConversion {
  sourceFileId: string
  result?: FileRecord
}

const stateName = (fileId: string, userId: string) => `ooxml-conversion/${fileId}/${userId}`
const subjectOf = (fileId: string, userId: string) => `${fileId}/${userId}`

function converterRuns(ctx: AppContext): boolean {
  return ctx.converter !== undefined && ctx.converter.status().kind !== 'off'
}

async function stateOf(ctx: AppContext, fileId: string, userId: string): Promise<OoxmlConversion | undefined> {
  const stored = await ctx.store.settings.get(stateName(fileId, userId))
  if (stored === undefined) return undefined
  const parsed: unknown = JSON.parse(stored)
  return isConversion(parsed) ? parsed : undefined
}

function isConversion(value: unknown): value is OoxmlConversion {
  return typeof value === 'object' && value !== null && 'state' in value && 'sourceVersion' in value
}

function save(ctx: AppContext, fileId: string, userId: string, state: OoxmlConversion): Promise<void> {
  return ctx.store.settings.put(stateName(fileId, userId), JSON.stringify(state))
}

/**
 * What a user needs to convert a file to its OOXML twin: the file's download right (the
 * new file holds all its contents) and the right to create files in its folder; a link
 * guest makes no files. Returns the file, its twin format and its folder.
 */
async function checked(ctx: AppContext, by: Principal, fileId: string) {
  if (by.kind === 'link') throw new DomainError('FORBIDDEN', 'a share link does not allow converting')
  const file = await fileFor(ctx, by, fileId, 'download')
  const twin = ooxmlTwinOf(extensionOf(file.title))
  if (twin === undefined) {
    throw new DomainError(
      'CONVERSION_UNSUPPORTED',
      `a .${extensionOf(file.title) || 'file without an extension'} has no OOXML format to convert to`,
    )
  }
  const folder = await writableFolder(ctx, by, file.folderId)
  return { file, twin, folder }
}

/**
 * Starts converting a legacy or open document (.doc .xls .ppt .odt .ods .odp .rtf ...) to
 * its OOXML twin beside it, as a background job; `sync` converts before answering. A
 * conversion of the same version already done or under way is answered as it stands.
 */
export async function startOoxmlConversion(
  ctx: AppContext,
  by: Principal,
  fileId: string,
  options: { sync: boolean },
): Promise<OoxmlConversionView | undefined> {
  const { file } = await checked(ctx, by, fileId)
  if (!converterRuns(ctx)) {
    throw new DomainError(
      'CONVERTER_OFF',
      'document conversion is off; set FOLIO_CONVERTER=libreoffice (with LibreOffice installed) or configure ONLYOFFICE Docs',
    )
  }
  const current = await stateOf(ctx, file.id, by.user.id)
  const sameVersion = current !== undefined && current.sourceVersion === file.version
  if (!sameVersion || current.state === 'failed') {
    await save(ctx, file.id, by.user.id, { state: 'waiting', sourceVersion: file.version })
    if (options.sync) await convertToOoxml(ctx, subjectOf(file.id, by.user.id))
    else await enqueueJob(ctx, CONVERT_TO_OOXML, subjectOf(file.id, by.user.id))
  }
  return ooxmlConversionStatus(ctx, by, fileId)
}

/** Where the user's conversion of the file stands; undefined when none was started. */
export async function ooxmlConversionStatus(
  ctx: AppContext,
  by: Principal,
  fileId: string,
): Promise<OoxmlConversionView | undefined> {
  const file = await fileFor(ctx, by, fileId, 'read')
  const state = await stateOf(ctx, file.id, by.user.id)
  if (state === undefined) return undefined
  if (state.state === 'waiting' || state.state === 'running') {
    // A job that failed for good (the converter unreachable too long) leaves its state waiting.
    const [job] = await ctx.store.jobs.find(CONVERT_TO_OOXML, [subjectOf(file.id, by.user.id)])
    if (job?.state === 'failed')
      return {
        ...state,
        state: 'failed',
        error: 'the conversion could not be run; try again later',
        sourceFileId: file.id,
      }
  }
  const result = state.resultFileId === undefined ? undefined : await ctx.store.files.findById(state.resultFileId)
  return { ...state, sourceFileId: file.id, ...(result ? { result } : {}) }
}

/**
 * Runs one conversion (a job's subject is `<fileId>/<userId>`): checks the user's rights
 * again, converts the current version, and creates the new file under the first free name
 * of `<base>.<twin>` in the source's folder. A document the converter cannot read ends
 * `failed` with its message and makes no file; a busy converter is retried later.
 */
export async function convertToOoxml(ctx: AppContext, subject: string): Promise<void> {
  const [fileId = '', userId = ''] = subject.split('/')
  const state = await stateOf(ctx, fileId, userId)
  if (state === undefined || state.state === 'done' || state.state === 'failed') return
  const user = await ctx.store.users.findById(userId)
  const converter = ctx.converter
  try {
    if (user === undefined) throw new DomainError('NOT_FOUND', 'the user who asked for the conversion is gone')
    if (converter === undefined) throw new DomainError('CONVERTER_OFF', 'document conversion is not available here')
    const { file, twin, folder } = await checked(ctx, userPrincipal(user), fileId)
    await save(ctx, fileId, userId, { state: 'running', sourceVersion: file.version })
    const converted = await converter.convert({
      source: { kind: 'blob', blobKey: file.blobKey, extension: extensionOf(file.title) },
      target: twin,
      maxOutputBytes: ctx.config.maxFileSize,
    })
    const blob = await ctx.blobs.put(converted.stream(), {
      maxBytes: ctx.config.maxFileSize,
      expectedSize: converted.size,
    })
    const created = await createFileFromBlob(ctx, {
      ownerId: folder.ownerId,
      folderId: folder.id,
      title: convertedName(file.title, twin),
      blob,
      source: 'create',
      meta: { convertedFrom: file.id, convertedVersion: file.version },
      userId,
    })
    await save(ctx, fileId, userId, { state: 'done', sourceVersion: file.version, resultFileId: created.id })
  } catch (error) {
    if (isDomainError(error) && error.code !== 'CONVERTER_BUSY') {
      await save(ctx, fileId, userId, {
        state: 'failed',
        sourceVersion: state.sourceVersion,
        error: error.message.slice(0, 300),
      })
      return
    }
    throw error
  }
}

export const convertToOoxmlJob: JobKind = {
  kind: CONVERT_TO_OOXML,
  run: (ctx, subject) => convertToOoxml(ctx, subject),
}
