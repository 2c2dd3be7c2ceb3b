import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { AppContext } from '../../app/context.js'
import { restoreVersion, saveEditorCopy } from '../../app/editing.js'
import { getOwnFile, getVersion } from '../../app/files.js'
import { documentKey } from '../../core/documents/document-key.js'
import { DomainError } from '../../core/errors.js'
import { COMMAND_ERRORS } from '../onlyoffice/command-client.js'
import { toInternalDocsUrl } from '../onlyoffice/docs-url.js'
import { editorConfigFor } from '../onlyoffice/editor-config.js'
import { historyData, refreshHistoryData } from '../onlyoffice/history.js'
import { commandClientFor, fetcherFor, requireDocsSettings } from '../onlyoffice/services.js'
import { currentUser, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { presentFile, presentVersion } from './presenters.js'
import { fileIdParams, parseInput, versionParams } from './schema.js'
import { displayNames } from './user-names.js'

const openEditQuery = z.object({ mode: z.enum(['edit', 'view']).default('edit') })

const restoreBody = z.object({ version: z.coerce.number().int().min(1) })

const saveAsBody = z.object({
  url: z.string().min(1).max(8192),
  title: z.string().min(1).max(1024),
  fileType: z.string().min(1).max(10),
})

/**
 * Portal routes of the ONLYOFFICE editor: the editor config (openedit), force save,
 * the history pane's data, restore and "save copy as". Only the owner reaches a file
 * (there is no sharing yet); `?mode=view` on openedit asks for a viewer's config.
 */
export function editorRoutes(ctx: AppContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('preHandler', requirePortalUser(ctx))

    for (const path of ['/files/file/:fileId/openedit', '/files/file/:fileId/openedit.json']) {
      app.get(path, async (request) => {
        const { fileId } = parseInput(fileIdParams, request.params)
        const { mode } = parseInput(openEditQuery, request.query)
        const user = currentUser(request)
        const file = await getOwnFile(ctx, fileId, user.id)
        return success(await editorConfigFor(ctx, file, user, mode))
      })
    }

    app.post('/files/file/:fileId/forcesave', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const file = await getOwnFile(ctx, fileId, currentUser(request).id)
      const key = documentKey(file.id, file.keyVersion)
      const reply = await commandClientFor(ctx).forcesave(key)
      if (reply.error === COMMAND_ERRORS.ok) return success({ key, result: 'requested' })
      // Nothing changed since the last save: no status 6 will come.
      if (reply.error === COMMAND_ERRORS.notModified) return success({ key, result: 'not-modified' })
      if (reply.error === COMMAND_ERRORS.unknownKey) {
        throw new DomainError('PRECONDITION_FAILED', 'the document is not open in ONLYOFFICE Docs')
      }
      throw new DomainError('UPSTREAM_FAILED', `ONLYOFFICE Docs refused the force save (error ${reply.error})`)
    })

    app.get('/files/file/:fileId/edit-history', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const file = await getOwnFile(ctx, fileId, currentUser(request).id)
      const versions = await ctx.store.files.listVersions(fileId)
      const names = await displayNames(ctx, versions.map((v) => v.createdBy))
      return success(refreshHistoryData(file, versions, names))
    })

    app.get('/files/file/:fileId/edit-history/:version/data', async (request) => {
      const { fileId, version } = parseInput(versionParams, request.params)
      requireDocsSettings(ctx)
      const user = currentUser(request)
      const file = await getOwnFile(ctx, fileId, user.id)
      const record = await getVersion(ctx, fileId, version)
      return success(await historyData(ctx, file, record, user.id))
    })

    app.post('/files/file/:fileId/restore', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const { version } = parseInput(restoreBody, request.body)
      const user = currentUser(request)
      await getOwnFile(ctx, fileId, user.id)
      const file = await restoreVersion(ctx, fileId, version, user.id)
      const head = await getVersion(ctx, fileId, file.version)
      const names = await displayNames(ctx, [head.createdBy])
      return success(presentVersion(head, ctx.config.publicUrl, names))
    })

    app.post('/files/file/:fileId/saveas', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const body = parseInput(saveAsBody, request.body)
      const docs = requireDocsSettings(ctx)
      const user = currentUser(request)
      const source = await getOwnFile(ctx, fileId, user.id)
      // The browser hands over the link; it is fetched only from the Docs server.
      const url = toInternalDocsUrl(body.url, docs)
      if (url === undefined) {
        throw new DomainError('INVALID_INPUT', 'url must be a link on the ONLYOFFICE Docs server', {
          field: 'url',
        })
      }
      const copy = await saveEditorCopy(
        ctx,
        { ownerId: user.id, title: body.title, fileType: body.fileType, url, sourceFileId: source.id },
        fetcherFor(ctx),
      )
      const names = await displayNames(ctx, [copy.createdBy])
      const presented = presentFile(copy, ctx.config.publicUrl, names, ctx.clock.now())
      return reply.code(201).send(success(presented, 201))
    })
  }
}
