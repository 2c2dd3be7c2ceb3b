import type { FastifyInstance } from 'fastify'
import * as z from 'zod/mini'
import type { AccessLevel, AdapterContext, BodyFetcher } from '../../app/index.js'
import { DomainError } from '../../core/errors.js'
import type { FileRecord, UserRecord, VersionRecord } from '../../core/entities.js'
import { guestIdOf, guestName } from '../http/guest-identity.js'
import { readPortalCredentials } from '../http/session-credentials.js'
import { currentUser, me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { presentFile, presentVersion, presignedUrl } from './presenters.js'
import { fileIdParams, parseInput, text, versionParams, wholeNumber } from './schema.js'

/**
 * The ONLYOFFICE pieces the editor routes present: handed in by the composition root (the
 * ONLYOFFICE adapter implements them), so the portal imports no other adapter.
 */
export interface EditorTools {
  /** NOT_SUPPORTED unless ONLYOFFICE Docs is configured. */
  requireDocs(): void
  /** The editor config for `file`, opened by `user` in `mode`. */
  editorConfig(
    file: FileRecord,
    user: UserRecord,
    mode: 'edit' | 'view',
    access: AccessLevel,
    link?: string,
    /** Opened through a link that denies downloads. */
    denyDownload?: boolean,
  ): Promise<unknown>
  /** Asks Docs to save an open document now (PRECONDITION_FAILED when it is not open). */
  forcesave(file: FileRecord): Promise<{ key: string; result: 'requested' | 'not-modified' }>
  /** The history pane's list of versions. */
  refreshHistoryData(file: FileRecord, versions: VersionRecord[], names: Map<string, string>): unknown
  /** The history pane's data of one version (NOT_SUPPORTED without Docs). */
  historyData(
    file: FileRecord,
    version: VersionRecord,
    holder: Pick<UserRecord, 'id' | 'tokenGeneration'>,
  ): Promise<unknown>
  /**
   * A link the browser handed over, rewritten to the Docs server's internal address;
   * undefined when it is not on the Docs server; NOT_SUPPORTED without Docs.
   */
  vetDocsLink(url: string): string | undefined
  /** Fetches a vetted link from the Docs server. */
  fetch: BodyFetcher
  /** The connected Docs' version (asked of its command service, kept a while); '' without Docs. */
  docsVersion(): Promise<string>
  /** Where browsers load Docs' api.js from; '' without Docs. */
  docsApiUrl(): string
  /**
   * The editor config of a document edited on a device without Docs: the same key, mode and
   * permissions as Docs would get, `documentUrl` to fetch the bytes, no callback and no token.
   */
  deviceEditorConfig(
    file: FileRecord,
    user: UserRecord,
    mode: 'edit' | 'view',
    access: AccessLevel,
    documentUrl: string,
  ): unknown
}

/** A boolean from a query ('true' / 'false', any case). */
const queryFlag = z.optional(
  z.pipe(
    z.union([
      z.boolean(),
      z.string().check(z.refine((v) => ['true', 'false'].includes(v.toLowerCase()), { message: 'true or false' })),
    ]),
    z.transform((v) => v === true || (typeof v === 'string' && v.toLowerCase() === 'true')),
  ),
)

const openEditQuery = z.object({
  mode: z._default(z.enum(['edit', 'view']), 'edit'),
  /** ONLYOFFICE's apps ask with flags instead of `mode`: view wins, then edit or fill. */
  edit: queryFlag,
  view: queryFlag,
  fill: queryFlag,
  /** The version the app has (it opens the current one). */
  version: z.optional(wholeNumber(1)),
  /** A share link's key: opens the file without an account, within the link's access. */
  doc: z.optional(text(1, 256)),
  /** The name a link guest typed. */
  name: z.optional(text(0, 256)),
})

/**
 * openedit: the editor config of a file (ONLYOFFICE portal path). A signed-in caller gets
 * the mode and permissions of their access. With `doc=<key>` of the file's share link and
 * no portal credentials, a guest gets the link's access under a guest identity (a stable
 * id per browser, kept in a cookie, and the name they typed); the editor's download and
 * callback links stay tied to the link, so turning it off stops them too.
 */
/** The mode an openedit asks for: `view=true` views; `edit=false` without `fill=true` views. */
export function requestedMode(query: {
  mode: 'edit' | 'view'
  edit?: boolean
  view?: boolean
  fill?: boolean
}): 'edit' | 'view' {
  if (query.view === true) return 'view'
  if (query.edit === true || query.fill === true) return 'edit'
  if (query.edit === false) return 'view'
  return query.mode
}

export function openEditRoutes(ctx: AdapterContext, tools: EditorTools) {
  const authenticate = requirePortalUser(ctx)
  return async (app: FastifyInstance): Promise<void> => {
    for (const path of ['/files/file/:fileId/openedit', '/files/file/:fileId/openedit.json']) {
      app.get(path, async (request, reply) => {
        const { fileId } = parseInput(fileIdParams, request.params)
        const query = parseInput(openEditQuery, request.query)
        const { doc, name } = query
        const mode = requestedMode(query)
        if (doc !== undefined && readPortalCredentials(request) === undefined) {
          const secure = ctx.config.publicUrl.startsWith('https:')
          const guest = { id: guestIdOf(request, reply, secure), name: guestName(name) }
          const opened = await ctx.app.sharing.linkPrincipal(fileId, doc, guest)
          const keyHash = opened.principal.kind === 'link' ? opened.principal.keyHash : undefined
          return success(
            await tools.editorConfig(
              opened.file,
              opened.principal.user,
              mode,
              opened.access,
              keyHash,
              opened.denyDownload,
            ),
          )
        }
        await authenticate(request)
        const file = await ctx.app.files.get(me(request), fileId)
        if (await ctx.app.folders.isInTrash(file)) {
          throw new DomainError('INVALID_INPUT', 'the file is in the trash: restore it to open it')
        }
        const access = await ctx.app.authorize(me(request), 'read', file)
        if (ctx.config.docs === undefined) {
          // No Docs: the config an app edits on the device with (ONLYOFFICE's iOS app): the
          // document's key, a presigned link to its bytes and the permissions, no editor.
          const { token } = await ctx.app.files.presign(me(request), file.id)
          const url = presignedUrl(ctx.config.publicUrl, file.id, token)
          return success(tools.deviceEditorConfig(file, currentUser(request), mode, access, url))
        }
        return success(await tools.editorConfig(file, currentUser(request), mode, access))
      })
    }
  }
}

const restoreBody = z.object({ version: wholeNumber(1) })

const saveAsBody = z.object({
  url: text(1, 8192),
  title: text(1, 1024),
  fileType: text(1, 10),
})

/**
 * Portal routes of the ONLYOFFICE editor: the editor config (openedit), force save,
 * the history pane's data, restore and "save copy as". Whoever may read a file opens it,
 * with the mode and permissions of their access; `?mode=view` asks for a viewer's config.
 */
export function editorRoutes(ctx: AdapterContext, tools: EditorTools) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('onRequest', requirePortalUser(ctx))

    app.post('/files/file/:fileId/forcesave', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const file = await ctx.app.files.get(me(request), fileId, 'edit')
      return success(await tools.forcesave(file))
    })

    app.get('/files/file/:fileId/edit-history', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const file = await ctx.app.files.get(me(request), fileId)
      const versions = await ctx.app.files.versions(me(request), fileId)
      const names = await ctx.app.accounts.displayNames(versions.map((v) => v.createdBy))
      return success(tools.refreshHistoryData(file, versions, names))
    })

    app.get('/files/file/:fileId/edit-history/:version/data', async (request) => {
      const { fileId, version } = parseInput(versionParams, request.params)
      tools.requireDocs()
      const user = me(request)
      const file = await ctx.app.files.get(user, fileId)
      const record = await ctx.app.files.version(user, fileId, version)
      return success(await tools.historyData(file, record, user.user))
    })

    app.post('/files/file/:fileId/restore', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const { version } = parseInput(restoreBody, request.body)
      const user = me(request)
      const file = await ctx.app.files.restore(user, fileId, version)
      const head = await ctx.app.files.version(user, fileId, file.version)
      const names = await ctx.app.accounts.displayNames([head.createdBy])
      return success(presentVersion(head, ctx.config.publicUrl, names))
    })

    app.post('/files/file/:fileId/saveas', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const body = parseInput(saveAsBody, request.body)
      // The browser hands over the link; it is fetched only from the Docs server.
      const url = tools.vetDocsLink(body.url)
      const user = me(request)
      await ctx.app.files.get(user, fileId)
      if (url === undefined) {
        throw new DomainError('INVALID_INPUT', 'url must be a link on the ONLYOFFICE Docs server', {
          field: 'url',
        })
      }
      const copy = await ctx.app.editing.saveCopy(
        user,
        { sourceFileId: fileId, title: body.title, fileType: body.fileType, url },
        tools.fetch,
      )
      const names = await ctx.app.accounts.displayNames([copy.createdBy])
      const presented = presentFile(copy, ctx.config.publicUrl, names, ctx.clock.now())
      return reply.code(201).send(success(presented, 201))
    })
  }
}
