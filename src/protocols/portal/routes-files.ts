import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import type { AdapterContext } from '../../app/create-app.js'
import type { LockInfo } from '../../app/locks.js'
import { DomainError } from '../../core/errors.js'
import type { FileRecord } from '../../core/entities.js'
import { sendContent } from '../http/send-content.js'
import { isOwnFormat, outputTypeOf, sendConverted, sendThumbnail } from './download-as.js'
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
} from './schema.js'

/** The files API (ONLYOFFICE Workspace paths): list, create, upload, info, download, rename, delete. */
export function fileRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('onRequest', requirePortalUser(ctx))

    const present = (request: FastifyRequest, files: FileRecord[]) =>
      itemPresenter(ctx, me(request)).files(files)

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

    app.get('/files/file/:fileId/download', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const file = await ctx.app.files.get(me(request), fileId, 'download')
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

    app.get('/files/file/:fileId/thumbnail', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      return sendThumbnail(ctx, request, reply, fileId)
    })

    app.get('/files/file/:fileId/history', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const versions = await ctx.app.files.versions(me(request), fileId)
      const names = await ctx.app.accounts.displayNames(versions.map((v) => v.createdBy))
      return success(versions.reverse().map((v) => presentVersion(v, ctx.config.publicUrl, names)))
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
    })
  }
}

/** Most files one multipart upload may carry; more is refused with 400. */
const MAX_FILES_PER_UPLOAD = 20

/** Errors the multipart parser raises for a body that is not well-formed multipart. */
function malformedMultipart(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return undefined
  if (!(error instanceof Error)) return undefined
  if ('statusCode' in error && typeof error.statusCode === 'number') {
    if (error.statusCode === 413 && 'code' in error && error.code === 'FST_FILES_LIMIT') {
      return new DomainError(
        'INVALID_INPUT',
        `one upload may carry at most ${MAX_FILES_PER_UPLOAD} files`,
        { field: 'file' },
      )
    }
    return undefined
  }
  // busboy: 'Multipart: Boundary not found', 'Unexpected end of multipart data',
  // 'Malformed part header', 'Part terminated early', ...
  return new DomainError('INVALID_INPUT', `malformed multipart body: ${error.message}`, { field: 'file' })
}

/**
 * Stores every file of a multipart upload, in the order sent, each as it arrives (so a
 * large one is never held in memory): parts in the field "file" are files; other fields
 * are ignored. ?title= names the first file; the others keep their own names. A body that
 * is not well-formed multipart is 400; a file already stored before the malformation
 * stays stored and listed.
 */
async function uploadMultipart(ctx: AdapterContext, request: FastifyRequest, folder: string) {
  const query = request.query as Record<string, unknown>
  const stored: FileRecord[] = []
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue
      if (part.fieldname !== 'file') {
        part.file.resume()
        throw new DomainError('INVALID_INPUT', 'files must be sent in the field "file"', { field: 'file' })
      }
      const named: boolean = stored.length === 0 && typeof query.title === 'string' && query.title !== ''
      const title: string = named ? String(query.title) : part.filename
      if (!title) {
        part.file.resume()
        throw new DomainError('INVALID_INPUT', 'the uploaded file has no name', { field: 'file' })
      }
      stored.push(await ctx.app.files.upload(me(request), title, part.file, undefined, folder))
    }
  } catch (error) {
    throw malformedMultipart(error) ?? error
  }
  if (stored.length === 0) {
    throw new DomainError('INVALID_INPUT', 'multipart upload needs a file in the field "file"', { field: 'file' })
  }
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
  return ctx.app.files.upload(me(request), title, request.body as Readable, expected, folder)
}
