import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type AdapterContext, userPrincipal } from '../../../app/index.js'
import { conversionTable } from '../../../core/conversion/formats.js'
import { previewKinds, type PreviewKind } from '../../../core/conversion/preview.js'
import { DomainError } from '../../../core/errors.js'
import type { UserRecord } from '../../../core/entities.js'
import { sendProblemPage, type PageLink } from '../../http/error-page.js'
import { foundOrUndefined } from '../../http/page-lookup.js'
import type { HttpPlugin } from '../../http/server.js'
import {
  PORTAL_COOKIE,
  SESSION_COOKIE,
  assertCsrfHeader,
  readPortalCredentials,
  readSessionCookie,
} from '../../http/session-credentials.js'
import { requirePortalUser } from '../authenticate.js'
import { success } from '../envelope.js'
import { portalErrorHandler } from '../errors.js'
import { presentProfile } from '../presenters.js'
import { authenticationBody, fileIdParams, parseInput } from '../schema.js'
import {
  UI_CONTENT_SECURITY_POLICY,
  setCommonSecurityHeaders,
  wopiHostContentSecurityPolicy,
} from './security-headers.js'
import { sharePageRoutes } from './share-page.js'
import { loadStaticAssets, pickEncoding, type StaticAssets } from './static-assets.js'
import {
  WOPI_HOST_SCRIPT,
  WOPI_HOST_SCRIPT_PATH,
  WOPI_HOST_STYLE,
  WOPI_HOST_STYLE_PATH,
  renderWopiHostPage,
  resolveActionUrl,
} from './wopi-host-page.js'

/** Where `npm run build:web` writes the front end (dist/web at the package root). */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../../../dist/web/', import.meta.url))

/**
 * Paths the front end routes itself (history API); each answers index.html.
 * web/src/router.ts lists the same screens.
 */
export const CLIENT_ROUTES = [
  '/',
  '/sign-in',
  '/people',
  '/profile',
  '/versions/:fileId',
  '/files/:fileId/preview',
  '/folders/:folderId',
  '/shared',
  '/trash',
]

/** Settings of the web UI plugin (tests point `root` at a build of their own). */
export interface WebUiOptions {
  /** Folder of the built front end; default DEFAULT_WEB_ROOT. */
  root?: string
}

/** What the UI may offer, from GET /api/2.0/settings/capabilities. */
export interface UiCapabilities {
  /** FOLIO_DOCS_URL is set: files open in the ONLYOFFICE editor page /editor/<id>. */
  onlyofficeEditor: boolean
  /** FOLIO_WOPI_DISCOVERY_URL is set: files open in the WOPI host page /wopi-host/<id>. */
  wopiEditor: boolean
  /** Largest upload in bytes (FOLIO_MAX_FILE_SIZE). */
  maxFileSize: number
  /** A converter runs: office documents preview as PDF, download as and thumbnails work. */
  converter: boolean
  /** How each extension previews (pdf, image, text, or converted: a PDF made by the converter). */
  previews: Record<string, PreviewKind>
  /** What each extension can be downloaded as (with a converter). */
  conversions: Record<string, readonly string[]>
}

/** The UI's view of the configuration. */
export function uiCapabilities(ctx: AdapterContext): UiCapabilities {
  return {
    onlyofficeEditor: ctx.config.docs !== undefined,
    wopiEditor: ctx.config.wopi.discoveryUrl !== undefined,
    maxFileSize: ctx.config.maxFileSize,
    converter: ctx.app.conversion.status().kind !== 'off',
    previews: previewKinds(),
    conversions: conversionTable(),
  }
}

/**
 * The web interface: the built front end at `/` (hashed assets cached for a
 * year, index.html revalidated every time, strict CSP), the cookie session
 * endpoints `/ui/session` and the WOPI host page `/wopi-host/<fileId>` (the capabilities
 * the UI adapts to are in webUiApi).
 */
export function webUi(ctx: AdapterContext, options: WebUiOptions = {}): HttpPlugin {
  const root = options.root ?? DEFAULT_WEB_ROOT
  return async (app: FastifyInstance): Promise<void> => {
    webScope(ctx, app)
    await app.register(sessionRoutes(ctx))
    await app.register(wopiHostRoutes(ctx))
    if (ctx.config.docs === undefined) await app.register(editorFallbackRoutes(ctx))
    await app.register(desktopRoutes())
    await app.register(sharePageRoutes(ctx))
    await app.register(staticRoutes(ctx, root))
  }
}

/**
 * The portal pages ONLYOFFICE's Desktop Editors open: the start page (`/Products/Files/`,
 * to which they append `/?desktop=true`) is the web UI, and Workspace's editor address
 * (`DocEditor.aspx?fileid=`) is the editor page under `/doceditor/`, which they open as an
 * editor tab.
 */
function desktopRoutes() {
  return async (app: FastifyInstance): Promise<void> => {
    const startPages = [
      '/Products/Files',
      '/Products/Files/',
      '/Products/Files//',
      '/products/files',
      '/products/files/',
      '/products/files//',
    ]
    for (const path of startPages) app.get(path, async (_request, reply) => reply.redirect('/', 302))
    for (const path of ['/Products/Files/DocEditor.aspx', '/products/files/doceditor.aspx']) {
      app.get(path, async (request, reply) => {
        const query: Record<string, unknown> = { ...(request.query ?? {}) }
        const fileId =
          typeof query.fileid === 'string' ? query.fileid : typeof query.fileId === 'string' ? query.fileId : ''
        const { fileId: id } = parseInput(fileIdParams, { fileId })
        return reply.redirect(`/doceditor/${encodeURIComponent(id)}`, 302)
      })
    }
  }
}

/** Sign-in and sign-out for the browser: the portal token lives only in an HttpOnly cookie. */
function sessionRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    const secure = ctx.config.publicUrl.toLowerCase().startsWith('https:')
    // The session goes in both cookies with the same flags (see PORTAL_COOKIE).
    const cookie = (value: string, maxAgeSeconds: number) =>
      [SESSION_COOKIE, PORTAL_COOKIE].map((name) =>
        [
          `${name}=${value}`,
          'Path=/',
          'HttpOnly',
          'SameSite=Strict',
          `Max-Age=${maxAgeSeconds}`,
          ...(secure ? ['Secure'] : []),
        ].join('; '),
      )

    app.post('/ui/session', async (request, reply) => {
      // A cross-site form cannot sign a victim into the attacker's account either.
      assertCsrfHeader(request)
      const { userName, password } = parseInput(authenticationBody, request.body)
      const session = await ctx.app.accounts.signIn(userName, password, request.ip)
      const maxAge = Math.max(0, Math.floor((session.expiresAt - ctx.clock.now()) / 1000))
      reply.header('Set-Cookie', cookie(session.token, maxAge))
      reply.header('Cache-Control', 'no-store')
      const settings = await ctx.app.files.settings(userPrincipal(session.user))
      return reply.code(201).send(success(presentProfile(session.user, undefined, settings), 201))
    })

    // The UI's session probe: a signed-out browser is an answer, not an error, so a page load
    // logs nothing in the console. An expired or revoked cookie counts as signed out.
    app.get('/ui/session', async (request, reply) => {
      reply.header('Cache-Control', 'no-store')
      const credentials = readPortalCredentials(request)
      if (!credentials) return success({ signedIn: false })
      if (credentials.source === 'cookie') assertCsrfHeader(request)
      const user = await ctx.app.accounts.authenticateToken(credentials.token).catch((error: unknown) => {
        if (error instanceof DomainError && error.code === 'UNAUTHENTICATED') return undefined
        throw error
      })
      if (!user) return success({ signedIn: false })
      const settings = await ctx.app.files.settings(userPrincipal(user))
      return success({
        signedIn: true,
        profile: presentProfile(user, undefined, settings),
        capabilities: uiCapabilities(ctx),
      })
    })

    app.delete('/ui/session', async (request, reply) => {
      assertCsrfHeader(request)
      const token = readSessionCookie(request)
      if (token) await ctx.app.accounts.signOut(token, request.ip)
      reply.header('Set-Cookie', cookie('', 0))
      reply.header('Cache-Control', 'no-store')
      return success(null)
    })
  }
}

/**
 * The web UI's route under /api/2.0: what the UI may offer. The composition root mounts it
 * with the portal API, which owns that prefix and is built on its first request.
 */
export function webUiApi(ctx: AdapterContext): HttpPlugin {
  return async (app: FastifyInstance): Promise<void> => {
    webScope(ctx, app)
    app.get('/api/2.0/settings/capabilities', { onRequest: requirePortalUser(ctx) }, async (_request, reply) => {
      reply.header('Cache-Control', 'private, no-cache')
      return success(uiCapabilities(ctx))
    })
  }
}

/** What every web UI route has: the portal's credentials and error envelope, the security headers. */
function webScope(ctx: AdapterContext, app: FastifyInstance): void {
  app.decorateRequest('portalUser', null)
  app.decorateRequest('portalToken', null)
  app.setErrorHandler(portalErrorHandler(ctx.logger))
  app.addHook('onRequest', async (_request, reply) => setCommonSecurityHeaders(reply))
}

function preferredLanguage(request: FastifyRequest): string {
  const first = (request.headers['accept-language'] ?? '').split(',')[0]?.split(';')[0]?.trim() ?? ''
  return /^[a-z]{2}(-[A-Z]{2})?$/.test(first) ? first : 'en-US'
}

/** The WOPI host page (Microsoft's "host page"), which opens a file in the WOPI client. */
function wopiHostRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get(WOPI_HOST_SCRIPT_PATH, async (_request, reply) => {
      reply.header('Content-Type', 'text/javascript; charset=utf-8')
      reply.header('Cache-Control', 'public, max-age=3600')
      return WOPI_HOST_SCRIPT
    })
    app.get(WOPI_HOST_STYLE_PATH, async (_request, reply) => {
      reply.header('Content-Type', 'text/css; charset=utf-8')
      reply.header('Cache-Control', 'public, max-age=3600')
      return WOPI_HOST_STYLE
    })

    app.get('/wopi-host/:fileId', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const query: Record<string, unknown> = { ...(request.query ?? {}) }
      const action = query.action === 'view' ? 'view' : 'edit'
      const html = (status: number, body: string, csp = UI_CONTENT_SECURITY_POLICY) =>
        reply
          .code(status)
          .header('Content-Type', 'text/html; charset=utf-8')
          .header('Cache-Control', 'no-store')
          .header('Content-Security-Policy', csp)
          .send(body)

      const credentials = readPortalCredentials(request)
      let user: UserRecord | undefined
      try {
        user = credentials ? await ctx.app.accounts.authenticateToken(credentials.token) : undefined
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'UNAUTHENTICATED') throw error
      }
      if (!user || !credentials) {
        const next = `/wopi-host/${encodeURIComponent(fileId)}?action=${action}`
        return reply.redirect(`/sign-in?next=${encodeURIComponent(next)}`, 303)
      }
      const principal = userPrincipal(user)
      const file = await foundOrUndefined(ctx.app.files.get(principal, fileId))
      if (!file) return sendProblemPage(reply, 'NOT_FOUND')
      if (ctx.config.wopi.discoveryUrl === undefined) return sendProblemPage(reply, 'NO_EDITOR', fileLinks(file.id))

      // The application mints the token: one place decides permissions and lifetimes.
      const launch = await ctx.app.wopi.launch(principal, file.id, 'write')
      const urlsrc = action === 'view' ? (launch.view ?? launch.edit) : (launch.edit ?? launch.view)
      if (!urlsrc) return sendProblemPage(reply, 'EDITOR_UNAVAILABLE', fileLinks(file.id))
      const actionUrl = resolveActionUrl(urlsrc, launch.wopiSrc, preferredLanguage(request))
      const page = renderWopiHostPage({
        title: file.title,
        actionUrl,
        accessToken: launch.accessToken,
        accessTokenTtl: launch.accessTokenTtl,
      })
      return html(200, page, wopiHostContentSecurityPolicy(new URL(actionUrl).origin))
    })
  }
}

/** What a person can still do with a file the browser cannot open: download it, see its versions. */
function fileLinks(fileId: string): PageLink[] {
  const id = encodeURIComponent(fileId)
  return [
    { href: `/api/2.0/files/file/${id}/download`, text: 'page.downloadIt' },
    { href: `/versions/${id}`, text: 'page.versions' },
  ]
}

/**
 * `/editor/<id>` (every file's webUrl) when ONLYOFFICE Docs is not configured: on to the
 * WOPI host page when a WOPI client is, else a page saying there is no editor, with the
 * file's download and versions. Not signed in: to the sign-in page and back.
 */
function editorFallbackRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    for (const path of ['/editor/:fileId', '/doceditor/:fileId'])
      app.get(path, async (request, reply) => {
        const { fileId } = parseInput(fileIdParams, request.params)
        const id = encodeURIComponent(fileId)
        const credentials = readPortalCredentials(request)
        const user = credentials
          ? await ctx.app.accounts.authenticateToken(credentials.token).catch((error: unknown) => {
              if (error instanceof DomainError && error.code === 'UNAUTHENTICATED') return undefined
              throw error
            })
          : undefined
        if (!user) return reply.redirect(`/sign-in?next=${encodeURIComponent(`/editor/${id}`)}`, 303)
        const file = await foundOrUndefined(ctx.app.files.get(userPrincipal(user), fileId))
        if (!file) return sendProblemPage(reply, 'NOT_FOUND')
        if (ctx.config.wopi.discoveryUrl !== undefined) return reply.redirect(`/wopi-host/${id}`, 302)
        return sendProblemPage(reply, 'NO_EDITOR', fileLinks(file.id))
      })
  }
}

/** The built front end, from memory. */
function staticRoutes(ctx: AdapterContext, root: string) {
  return async (app: FastifyInstance): Promise<void> => {
    let assets: StaticAssets | undefined = await loadStaticAssets(root)
    if (!assets) {
      ctx.logger.warn({ root }, 'the web interface is not built; run `npm run build` to serve it')
    }
    // A build made after start-up is picked up without a restart.
    const current = async () => (assets ??= await loadStaticAssets(root))

    const send = async (request: FastifyRequest, reply: FastifyReply, path: string) => {
      const loaded = await current()
      if (!loaded) {
        return reply
          .code(503)
          .header('Content-Type', 'text/plain; charset=utf-8')
          .header('Cache-Control', 'no-store')
          .send('The web interface is not built. Run `npm run build` and reload this page.\n')
      }
      const asset = loaded.get(path)
      if (!asset) {
        return reply.code(404).header('Content-Type', 'text/plain; charset=utf-8').send('Not found\n')
      }
      const isPage = path === '/index.html'
      reply.header('Content-Type', asset.contentType)
      reply.header('ETag', asset.etag)
      reply.header('Vary', 'Accept-Encoding')
      // Asset names carry a content hash, so they never change; the page must be revalidated.
      reply.header('Cache-Control', isPage ? 'no-cache' : 'public, max-age=31536000, immutable')
      if (isPage) reply.header('Content-Security-Policy', UI_CONTENT_SECURITY_POLICY)
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send()
      const { body, encoding } = pickEncoding(asset, request.headers['accept-encoding'])
      if (encoding) reply.header('Content-Encoding', encoding)
      return reply.send(body)
    }

    for (const route of CLIENT_ROUTES) {
      app.get(route, (request, reply) => send(request, reply, '/index.html'))
    }
    app.get('/assets/*', (request, reply) => send(request, reply, request.url.split('?')[0] ?? ''))
  }
}
