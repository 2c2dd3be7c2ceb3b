import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import * as z from 'zod/mini'
import type { AdapterContext, LockInfo, StagedUpload } from '../../app/index.js'
import { DomainError } from '../../core/errors.js'
import type { FileRecord } from '../../core/entities.js'
import { sendContent } from '../http/send-content.js'
import { registerCheckConversion } from './check-conversion.js'
import { isOwnFormat, outputTypeOf, sendConverted, sendPreview, sendThumbnail } from './download-as.js'
import { currentUser, me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { itemPresenter } from './present-items.js'
import { presentLockInfo, presentVersion } from './presenters.js'
import { folderRef, toRecord } from './routes-folders.js'
import {
  fileIdParams,
  folderRefParams,
  immediatelyInput,
  parseInput,
  titleBody,
  versionParams,
  wholeNumber,
} from './schema.js'

/** The files API (ONLYOFFICE Workspace paths): list, create, upload, info, download, rename, delete. */
export function fileRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('onRequest', requirePortalUser(ctx))

    const present = (request: FastifyRequest, files: FileRecord[]) => itemPresenter(ctx, me(request)).files(files)

    app.post('/files/:folderId/file', async (request, reply) => {
      const { folderId } = parseInput(folderRefParams, request.params)
      const { title } = parseInput(titleBody, request.body)
      const file = await ctx.app.files.createBlank(me(request), title, folderRef(folderId))
      const [presented] = await present(request, [file])
      return reply.code(201).send(success(presented, 201))
    })

    app.get('/files/file/:fileId', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const file = await ctx.app.files.get(me(request), fileId)
      const [presented] = await present(request, [file])
      return success(presented)
    })

    app.put('/files/file/:fileId', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const { title } = parseInput(titleBody, request.body)
      const file = await ctx.app.files.rename(fileId, { by: me(request), title, onClash: 'refuse' })
      const [presented] = await present(request, [file])
      return success(presented)
    })

    // Into the caller's trash, or for good with `immediately` (or from the trash).
    app.delete('/files/file/:fileId', async (request) => {
      const by = me(request)
      const { fileId } = parseInput(fileIdParams, request.params)
      const input = { ...toRecord(request.query), ...toRecord(request.body) }
      const { immediately } = parseInput(immediatelyInput, input)
      // One file: the reply says where it went, so the call waits for the end.
      const op = await ctx.app.folders.delete(by, { folderIds: [], fileIds: [fileId] }, immediately, true)
      const file = op.result?.files[0]
      const trashed = file !== undefined && file.trashedAt !== null && !immediately
      return success({ id: fileId, deleted: true, trashed, ...(trashed ? { folderId: file.folderId } : {}) })
    })

    // A file's WOPI lock: who holds it and since when, and releasing one left by a closed
    // browser. The owner may, and admins may for any file.
    const presentLock = async (info: LockInfo) => {
      const names = await ctx.app.accounts.displayNames(info.holderId === undefined ? [] : [info.holderId])
      return presentLockInfo(info, names)
    }
    app.get('/files/file/:fileId/lock', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      return success(await presentLock(await ctx.app.locks.info(me(request), fileId)))
    })
    app.delete('/files/file/:fileId/lock', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const released = await ctx.app.locks.release(me(request), fileId)
      return success({ ...(await presentLock(released)), released: released.locked })
    })

    // A file's viewUrl; `?version=N` (appended as `&version=N` by ONLYOFFICE's apps) reads
    // an older version.
    app.get('/files/file/:fileId/download', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const version = requestedVersion(request.query)
      const file = await ctx.app.files.get(me(request), fileId, 'download')
      if (version !== undefined && version !== file.version) {
        const record = await ctx.app.files.version(me(request), fileId, version)
        return sendContent(ctx, request, reply, {
          blobKey: record.blobKey,
          size: record.size,
          sha256: record.sha256,
          fileName: file.title,
          modifiedAt: record.createdAt,
        })
      }
      const outputType = outputTypeOf(request)
      if (outputType !== undefined && !isOwnFormat(file.title, outputType)) {
        return sendConverted(ctx, request, reply, fileId, outputType)
      }
      return sendContent(ctx, request, reply, {
        blobKey: file.blobKey,
        size: file.size,
        sha256: file.sha256,
        fileName: file.title,
        modifiedAt: file.updatedAt,
      })
    })

    // Newest first. Each entry is a file object as of that version (ONLYOFFICE's apps read
    // the history as files: id, title, version, viewUrl, created, createdBy) with Folio's
    // own version facts (author, size, source, downloadUrl).
    registerCheckConversion(app, ctx)

    app.get('/files/file/:fileId/thumbnail', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      return sendThumbnail(ctx, reply, me(request), fileId)
    })

    app.get('/files/file/:fileId/preview', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      return sendPreview(ctx, request, reply, me(request), fileId)
    })

    app.get('/files/file/:fileId/history', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const file = await ctx.app.files.get(me(request), fileId)
      const versions = (await ctx.app.files.versions(me(request), fileId)).reverse()
      const names = await ctx.app.accounts.displayNames(versions.map((v) => v.createdBy))
      const asFiles = await present(
        request,
        versions.map((v) => ({
          ...file,
          version: v.version,
          size: v.size,
          sha256: v.sha256,
          blobKey: v.blobKey,
          createdAt: v.createdAt,
          createdBy: v.createdBy,
          updatedAt: v.createdAt,
          updatedBy: v.createdBy,
        })),
      )
      return success(
        versions.map((v, index) => ({
          ...asFiles[index],
          ...presentVersion(v, ctx.config.publicUrl, names),
          viewUrl: `${ctx.config.publicUrl}/api/2.0/files/file/${encodeURIComponent(file.id)}/download?action=download&version=${v.version}`,
        })),
      )
    })

    app.get('/files/file/:fileId/version/:version/download', async (request, reply) => {
      const { fileId, version } = parseInput(versionParams, request.params)
      const file = await ctx.app.files.get(me(request), fileId, 'download')
      const record = await ctx.app.files.version(me(request), fileId, version)
      return sendContent(ctx, request, reply, {
        blobKey: record.blobKey,
        size: record.size,
        sha256: record.sha256,
        fileName: file.title,
        modifiedAt: record.createdAt,
      })
    })

    // Uploads get their own context: no JSON or form parser may touch the body,
    // only multipart (streamed by busboy) and a pass-through for raw bodies.
    await app.register(async (upload) => {
      upload.removeAllContentTypeParsers()
      upload.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
      await upload.register(multipart, {
        // One byte over the limit, so the blob store itself sees the overflow and
        // refuses (busboy would silently truncate at the limit).
        limits: { fileSize: ctx.config.maxFileSize + 1, files: MAX_FILES_PER_UPLOAD, fields: 10, fieldSize: 4096 },
      })
      upload.post('/files/:folderId/upload', async (request, reply) => {
        const { folderId } = parseInput(folderRefParams, request.params)
        const folder = folderRef(folderId)
        if (!request.isMultipart()) {
          const [presented] = await present(request, [await uploadRaw(ctx, request, folder)])
          return reply.code(201).send(success(presented, 201))
        }
        // One file answers its record; several answer the list, as ONLYOFFICE's upload does.
        const files = await uploadMultipart(ctx, request, folder)
        const presented = await present(request, files)
        return reply.code(201).send(success(presented.length === 1 ? presented[0] : presented, 201))
      })

      // New contents for a file, as ONLYOFFICE's mobile apps save a document edited on the
      // device: multipart (the first file part, whatever its name) or a raw body. The same
      // "store new contents" as every other save.
      upload.put('/files/:fileId/update', async (request) => {
        const { fileId } = parseInput(fileIdParams, request.params)
        const file = await storeUpdate(ctx, request, folderRef(fileId))
        const [presented] = await present(request, [file])
        return success(presented)
      })
    })
  }
}

/** The query of a download: ONLYOFFICE's `action` (ignored) and an optional version. */
const downloadQuery = z.object({ version: z.optional(wholeNumber(1)) })

/**
 * The version a download asks for; given twice (a history entry's viewUrl with
 * `&version=N` appended again), the last counts.
 */
function requestedVersion(query: unknown): number | undefined {
  const value: unknown = typeof query === 'object' && query !== null ? Reflect.get(query, 'version') : undefined
  const last: unknown = Array.isArray(value) ? value[value.length - 1] : value
  return parseInput(downloadQuery, { version: last }).version
}

/** Most files one multipart upload may carry; more is refused with 400. */
const MAX_FILES_PER_UPLOAD = 20

/** Errors the multipart parser raises for a body that is not well-formed multipart. */
function malformedMultipart(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return undefined
  if (!(error instanceof Error)) return undefined
  if ('statusCode' in error && typeof error.statusCode === 'number') {
    if (error.statusCode === 413 && 'code' in error && error.code === 'FST_FILES_LIMIT') {
      return new DomainError('INVALID_INPUT', `one upload may carry at most ${MAX_FILES_PER_UPLOAD} files`, {
        field: 'file',
      })
    }
    return undefined
  }
  // busboy: 'Multipart: Boundary not found', 'Unexpected end of multipart data',
  // 'Malformed part header', 'Part terminated early', ...
  return new DomainError('INVALID_INPUT', `malformed multipart body: ${error.message}`, { field: 'file' })
}

/** `createNewIfExist` as a query or form value: 'true' / 'false' (any case), else undefined. */
export function createNewIfExistOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value
  if (typeof value !== 'string') return undefined
  const lower = value.trim().toLowerCase()
  if (lower === 'true') return true
  if (lower === 'false') return false
  if (lower === '') return undefined
  throw new DomainError('INVALID_INPUT', 'createNewIfExist is true or false', { field: 'createNewIfExist' })
}

/**
 * Stores every file of a multipart upload, in the order sent, each as it arrives (so a
 * large one is never held in memory). Every file part is a file whatever its field name
 * (ONLYOFFICE's Android app names the part after the file). ?title= names the first
 * file; the others keep their own names. `createNewIfExist` may come in the query or as a
 * form field before or after the files, so each file is placed once the whole body is
 * read. A body that is not well-formed multipart is 400 and stores nothing.
 */
async function uploadMultipart(ctx: AdapterContext, request: FastifyRequest, folder: string) {
  const query = request.query as Record<string, unknown>
  let createNewIfExist: boolean | undefined
  try {
    createNewIfExist = createNewIfExistOf(query.createNewIfExist)
  } catch (error) {
    request.raw.resume()
    throw error
  }
  const staged: StagedUpload[] = []
  // The parser's own error, when it tears a part down (a later part malformed): the store
  // only sees its input end early, which would read as a client that went away.
  let partFailure: Error | undefined
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') {
        if (part.fieldname.toLowerCase() === 'createnewifexist') createNewIfExist = createNewIfExistOf(part.value)
        continue
      }
      partFailure ??= part.file.errored ?? undefined
      part.file.once('error', (error: Error) => {
        partFailure ??= error
      })
      const named: boolean = staged.length === 0 && typeof query.title === 'string' && query.title !== ''
      const title: string = named ? String(query.title) : part.filename
      if (!title) {
        part.file.resume()
        throw new DomainError('INVALID_INPUT', 'the uploaded file has no name', { field: 'file' })
      }
      staged.push(await ctx.app.files.stageUpload(me(request), title, part.file, undefined, folder))
    }
  } catch (error) {
    await Promise.all(staged.map((upload) => ctx.app.files.discardUpload(upload)))
    throw malformedMultipart(partFailure ?? error) ?? error
  }
  if (staged.length === 0) {
    throw new DomainError('INVALID_INPUT', 'a multipart upload needs a file part', { field: 'file' })
  }
  return ctx.app.files.settleUploads(staged, createNewIfExist)
}

/** The body of `PUT files/{fileId}/update` stored as the file's newest version. */
async function storeUpdate(ctx: AdapterContext, request: FastifyRequest, fileId: string): Promise<FileRecord> {
  const by = me(request)
  if (!request.isMultipart()) {
    const length = request.headers['content-length']
    const expectedSize = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined
    const body = request.body as Readable
    try {
      return await ctx.app.files.storeNewContents(fileId, {
        by,
        body,
        source: 'upload',
        ...(expectedSize !== undefined ? { expectedSize } : {}),
      })
    } catch (error) {
      request.raw.resume()
      throw error
    }
  }
  let stored: FileRecord | undefined
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue
      if (stored !== undefined) {
        part.file.resume()
        continue
      }
      try {
        stored = await ctx.app.files.storeNewContents(fileId, { by, body: part.file, source: 'upload' })
      } catch (error) {
        part.file.resume()
        throw error
      }
    }
  } catch (error) {
    throw malformedMultipart(error) ?? error
  }
  if (stored === undefined) throw new DomainError('INVALID_INPUT', 'the update needs a file part', { field: 'file' })
  return stored
}

async function uploadRaw(ctx: AdapterContext, request: FastifyRequest, folder: string) {
  const query = request.query as Record<string, unknown>
  const title = typeof query.title === 'string' ? query.title : ''
  if (!title) {
    request.raw.resume()
    throw new DomainError('INVALID_INPUT', 'a raw upload needs ?title=<file name>', { field: 'title' })
  }
  const length = request.headers['content-length']
  const expected = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined
  let createNewIfExist: boolean | undefined
  try {
    createNewIfExist = createNewIfExistOf(query.createNewIfExist)
  } catch (error) {
    request.raw.resume()
    throw error
  }
  return ctx.app.files.upload(me(request), title, request.body as Readable, expected, folder, createNewIfExist)
}
