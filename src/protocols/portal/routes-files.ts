import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import type { AppContext } from '../../app/context.js'
import { editingStates } from '../../app/editing.js'
import {
  createBlankFile,
  deleteFile,
  getOwnFile,
  getVersion,
  listFiles,
  renameFile,
  uploadFile,
} from '../../app/files.js'
import { DomainError } from '../../core/errors.js'
import type { FileSortField } from '../../ports/metadata-store.js'
import { sendContent } from '../http/send-content.js'
import { announceRename, prepareDrop } from '../onlyoffice/notify.js'
import { currentUser, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { presentFile, presentVersion } from './presenters.js'
import {
  fileIdParams,
  fileListQuery,
  parseInput,
  titleBody,
  versionParams,
} from './schema.js'
import { displayNames } from './user-names.js'

const SORT_FIELDS: Record<string, FileSortField> = {
  DateAndTime: 'updated',
  updated: 'updated',
  DateAndTimeCreation: 'created',
  created: 'created',
  AZ: 'title',
  Title: 'title',
  title: 'title',
  Size: 'size',
  size: 'size',
}

/** The files API (ONLYOFFICE Workspace paths): list, create, upload, info, download, rename, delete. */
export function fileRoutes(ctx: AppContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('preHandler', requirePortalUser(ctx))

    const present = async (files: Parameters<typeof presentFile>[0][]) => {
      // One query for the whole page's editing states.
      const editing = await editingStates(ctx, files.map((f) => f.id))
      const editors = [...editing.values()].flatMap((state) => state.editors)
      const names = await displayNames(ctx, [
        ...files.flatMap((f) => [f.createdBy, f.updatedBy]),
        ...editors,
      ])
      const now = ctx.clock.now()
      return files.map((file) =>
        presentFile(file, ctx.config.publicUrl, names, now, editing.get(file.id)),
      )
    }

    for (const path of ['/files/@my', '/files/@my.json']) {
      app.get(path, async (request) => {
        const query = parseInput(fileListQuery, request.query)
        const sortBy = SORT_FIELDS[query.sortBy] ?? 'updated'
        // Newest first by default; names A to Z by default.
        const descending = query.sortOrder
          ? query.sortOrder === 'descending'
          : sortBy === 'updated' || sortBy === 'created' || sortBy === 'size'
        const page = await listFiles(ctx, {
          ownerId: currentUser(request).id,
          offset: query.startIndex,
          limit: query.count,
          sortBy,
          descending,
          titleContains: query.filterValue || undefined,
        })
        const files = await present(page.items)
        return success({
          files,
          folders: [],
          current: { id: '@my', title: 'My documents', filesCount: page.total },
          pathParts: ['@my'],
          startIndex: query.startIndex,
          count: files.length,
          total: page.total,
        })
      })
    }

    app.post('/files/@my/file', async (request, reply) => {
      const { title } = parseInput(titleBody, request.body)
      const file = await createBlankFile(ctx, currentUser(request).id, title)
      const [presented] = await present([file])
      return reply.code(201).send(success(presented, 201))
    })

    app.get('/files/file/:fileId', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const file = await getOwnFile(ctx, fileId, currentUser(request).id)
      const [presented] = await present([file])
      return success(presented)
    })

    app.put('/files/file/:fileId', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const { title } = parseInput(titleBody, request.body)
      const user = currentUser(request)
      await getOwnFile(ctx, fileId, user.id)
      const file = await renameFile(ctx, fileId, title, user.id)
      announceRename(ctx, file)
      const [presented] = await present([file])
      return success(presented)
    })

    app.delete('/files/file/:fileId', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const file = await getOwnFile(ctx, fileId, currentUser(request).id)
      const dropEditors = await prepareDrop(ctx, file)
      await deleteFile(ctx, fileId)
      dropEditors()
      return success({ id: fileId, deleted: true })
    })

    app.get('/files/file/:fileId/download', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const file = await getOwnFile(ctx, fileId, currentUser(request).id)
      return sendContent(ctx, request, reply, {
        blobKey: file.blobKey,
        size: file.size,
        sha256: file.sha256,
        fileName: file.title,
        modifiedAt: file.updatedAt,
      })
    })

    app.get('/files/file/:fileId/history', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      await getOwnFile(ctx, fileId, currentUser(request).id)
      const versions = await ctx.store.files.listVersions(fileId)
      const names = await displayNames(ctx, versions.map((v) => v.createdBy))
      return success(versions.reverse().map((v) => presentVersion(v, ctx.config.publicUrl, names)))
    })

    app.get('/files/file/:fileId/version/:version/download', async (request, reply) => {
      const { fileId, version } = parseInput(versionParams, request.params)
      const file = await getOwnFile(ctx, fileId, currentUser(request).id)
      const record = await getVersion(ctx, fileId, version)
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
        limits: { fileSize: ctx.config.maxFileSize + 1, files: 1, fields: 10, fieldSize: 4096 },
      })
      upload.post('/files/@my/upload', async (request, reply) => {
        const ownerId = currentUser(request).id
        const file = request.isMultipart()
          ? await uploadMultipart(ctx, request, ownerId)
          : await uploadRaw(ctx, request, ownerId)
        const [presented] = await present([file])
        return reply.code(201).send(success(presented, 201))
      })
    })
  }
}

async function uploadMultipart(ctx: AppContext, request: FastifyRequest, ownerId: string) {
  const part = await request.file()
  if (!part || part.fieldname !== 'file') {
    throw new DomainError('INVALID_INPUT', 'multipart upload needs one file in the field "file"')
  }
  const query = request.query as Record<string, unknown>
  const title = typeof query.title === 'string' && query.title ? query.title : part.filename
  if (!title) throw new DomainError('INVALID_INPUT', 'the uploaded file has no name', { field: 'file' })
  return uploadFile(ctx, ownerId, title, part.file)
}

async function uploadRaw(ctx: AppContext, request: FastifyRequest, ownerId: string) {
  const query = request.query as Record<string, unknown>
  const title = typeof query.title === 'string' ? query.title : ''
  if (!title) {
    request.raw.resume()
    throw new DomainError('INVALID_INPUT', 'a raw upload needs ?title=<file name>', { field: 'title' })
  }
  const length = request.headers['content-length']
  const expected = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined
  return uploadFile(ctx, ownerId, title, request.body as Readable, expected)
}
