import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import * as z from 'zod/mini'
import type { AdapterContext, UserSettings } from '../../app/index.js'
import { DomainError } from '../../core/errors.js'
import type { FileRecord } from '../../core/entities.js'
import { sendContent } from '../http/send-content.js'
import { me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { itemPresenter } from './present-items.js'
import { presignedUrl } from './presenters.js'
import type { EditorTools } from './routes-editor.js'
import { fileIdParams, parseInput, text } from './schema.js'

/** A boolean from JSON or a form/query ('true' / 'false', any case). */
const flag = z.union([
  z.boolean(),
  z.pipe(
    z.string().check(z.refine((v) => ['true', 'false'].includes(v.toLowerCase()), { message: 'true or false' })),
    z.transform((v) => v.toLowerCase() === 'true'),
  ),
])

const setBody = z.object({ set: flag })

const docServiceQuery = z.object({ version: z.optional(flag) })

const trackQuery = z.object({
  docKeyForTrack: text(1, 256),
  isFinish: z._default(flag, false),
})

const presignedQuery = z.object({ token: text(1, 2048) })

const saveEditingQuery = z.object({ title: z.optional(text(0, 1024)) })

const userIdParams = z.object({ userId: text(1, 128) })

/**
 * The files settings as ONLYOFFICE's `GET files/settings` reports them: the caller's own
 * choices, and fixed answers for what Folio always does (originals kept, no forcesave
 * copies, the recent and favourites sections not offered).
 */
function presentSettings(settings: UserSettings) {
  return {
    updateIfExist: settings.updateIfExist,
    storeOriginalFiles: true,
    confirmDelete: true,
    forcesave: false,
    storeForcesave: false,
    recentSection: false,
    favoritesSection: false,
    templatesSection: false,
    hideConfirmConvertOpen: true,
    hideConfirmConvertSave: true,
    externalShare: true,
  }
}

/** Both spellings of a portal path: as is and with ONLYOFFICE's '.json' suffix. */
const withJson = (path: string): string[] => [path, `${path}.json`]

/**
 * Calls ONLYOFFICE's own apps (Documents for Android and iOS) make beside browsing: the
 * files settings and what a same-named upload does, where Docs' api.js is, presigned
 * links for opening a document on the device, editing on the device without Docs
 * (startedit, trackeditfile, saveediting), and the calls whose failure the apps ignore
 * (push notifications, the mobile registration, avatars), answered without storing
 * anything.
 */
export function appRoutes(ctx: AdapterContext, tools: Pick<EditorTools, 'docsVersion' | 'docsApiUrl'>) {
  return async (app: FastifyInstance): Promise<void> => {
    // A presigned link is the credential itself: no login, the token re-checked on every use.
    app.get('/files/presigned/:fileId', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const { token } = parseInput(presignedQuery, request.query)
      const { file, version } = await ctx.app.files.openPresigned(token, fileId)
      reply.header('Cache-Control', 'private, no-store')
      return sendContent(ctx, request, reply, {
        blobKey: version.blobKey,
        size: version.size,
        sha256: version.sha256,
        fileName: file.title,
        modifiedAt: version.createdAt,
      })
    })

    await app.register(async (signedIn) => {
      signedIn.addHook('preHandler', requirePortalUser(ctx))

      for (const path of withJson('/files/settings')) {
        signedIn.get(path, async (request) => success(presentSettings(await ctx.app.files.settings(me(request)))))
      }

      for (const path of withJson('/files/updateifexist')) {
        signedIn.put(path, async (request) => {
          const { set } = parseInput(setBody, request.body)
          const settings = await ctx.app.files.setUpdateIfExist(me(request), set)
          return success(settings.updateIfExist)
        })
      }

      // Where Docs' api.js is: the address alone, or with ?version=true also Docs' version
      // ('' for both without Docs, so an app edits on the device instead).
      for (const path of withJson('/files/docservice')) {
        signedIn.get(path, async (request) => {
          const { version } = parseInput(docServiceQuery, request.query)
          const docServiceUrlApi = tools.docsApiUrl()
          if (version !== true) return success(docServiceUrlApi)
          return success({ docServiceUrlApi, version: docServiceUrlApi === '' ? '' : await tools.docsVersion() })
        })
      }

      for (const path of withJson('/files/file/:fileId/presigneduri')) {
        signedIn.get(path, async (request) => {
          const { fileId } = parseInput(fileIdParams, request.params)
          const { file, token } = await ctx.app.files.presign(me(request), fileId)
          return success(presignedUrl(ctx.config.publicUrl, file.id, token))
        })
      }

      for (const path of withJson('/files/file/:fileId/startedit')) {
        signedIn.post(path, async (request) => {
          const { fileId } = parseInput(fileIdParams, request.params)
          const { key } = await ctx.app.editing.startLocal(me(request), fileId)
          return success(key)
        })
      }

      // ONLYOFFICE answers a tracking call with a key/value pair: key true while it is fine.
      for (const path of withJson('/files/file/:fileId/trackeditfile')) {
        signedIn.get(path, async (request) => {
          const { fileId } = parseInput(fileIdParams, request.params)
          const { docKeyForTrack, isFinish } = parseInput(trackQuery, request.query)
          await ctx.app.editing.trackLocal(me(request), fileId, docKeyForTrack, isFinish)
          return success({ key: true, value: '' })
        })
      }

      // Push notifications, the mobile registration: Folio sends none and keeps nothing.
      for (const path of [
        ...withJson('/settings/push/docregisterdevice'),
        ...withJson('/portal/mobile/registration'),
      ]) {
        signedIn.post(path, async () => success(null))
      }
      for (const path of withJson('/settings/push/docsubscribe')) {
        signedIn.put(path, async () => success(null))
      }

      // Folio keeps no photos: every size is the empty address, which the apps answer with
      // initials.
      for (const path of withJson('/people/:userId/photo')) {
        signedIn.get(path, async (request) => {
          const { userId } = parseInput(userIdParams, request.params)
          await ctx.app.accounts.requireUserById(userId)
          return success({ original: '', retina: '', max: '', big: '', medium: '', small: '' })
        })
      }

      // A document edited on the device: the raw body (its name in ?title=) or multipart
      // (the first file part). Bodies are not parsed as JSON or forms here.
      await signedIn.register(async (saves) => {
        saves.removeAllContentTypeParsers()
        saves.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
        await saves.register(multipart, {
          limits: { fileSize: ctx.config.maxFileSize + 1, files: 1, fields: 10, fieldSize: 4096 },
        })
        for (const path of withJson('/files/file/:fileId/saveediting')) {
          saves.put(path, async (request) => {
            const { fileId } = parseInput(fileIdParams, request.params)
            parseInput(saveEditingQuery, request.query)
            const file = await saveEditing(ctx, request, fileId)
            const [presented] = await itemPresenter(ctx, me(request)).files([file])
            return success(presented)
          })
        }
      })
    })
  }
}

async function saveEditing(ctx: AdapterContext, request: FastifyRequest, fileId: string): Promise<FileRecord> {
  const by = me(request)
  if (!request.isMultipart()) {
    const length = request.headers['content-length']
    const expectedSize = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined
    try {
      return await ctx.app.editing.saveLocal(by, fileId, request.body as Readable, expectedSize)
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
        stored = await ctx.app.editing.saveLocal(by, fileId, part.file, undefined)
      } catch (error) {
        part.file.resume()
        throw error
      }
    }
  } catch (error) {
    if (error instanceof DomainError) throw error
    throw new DomainError(
      'INVALID_INPUT',
      `malformed multipart body: ${error instanceof Error ? error.message : 'unreadable'}`,
      { field: 'file' },
    )
  }
  if (stored === undefined)
    throw new DomainError('INVALID_INPUT', 'saveediting needs the document as a file part', { field: 'file' })
  return stored
}
