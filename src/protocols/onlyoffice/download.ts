import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AdapterContext } from '../../app/index.js'
import { DomainError, isDomainError } from '../../core/errors.js'
import type { TokenClaims } from '../../core/tokens/signed-token.js'
import { sendContent } from '../http/send-content.js'
import { bearerToken, verifyDocsToken } from './jwt.js'
import { ONLYOFFICE_PATHS } from './links.js'
import { DOWNLOAD_STATUS, sendDownloadRefusal } from './replies.js'

/**
 * document.url and the history links: file contents for Docs, which has no portal
 * session. The signed token in the query names the file and version. Docs adds its own
 * `Bearer` JWT with `{payload: {url}}` when JWT is on; that header is no portal
 * credential and is never refused. When it verifies and names this very link, it also
 * stands in for the link's expiry, so Docs can still fetch a link it was given in time
 * (its signature and file are checked all the same). Whatever the token says, each use is
 * decided by the application from the access and the file as they are now
 * (files.forLink): a removed share, user or share link, a password change or a trashed
 * file ends the link at once.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

async function docsJwtNamesThisLink(ctx: AdapterContext, request: FastifyRequest): Promise<boolean> {
  const docs = ctx.config.docs
  if (docs?.jwtSecret === undefined) return false
  const token = bearerToken(request.headers[docs.jwtHeader.toLowerCase()])
  if (token === undefined) return false
  const claims = await verifyDocsToken(token, docs.jwtSecret, ctx.clock.now())
  const payload = claims?.payload
  if (!isRecord(payload) || typeof payload.url !== 'string') return false
  try {
    const named = new URL(payload.url)
    // endsWith: behind a proxy with a path prefix Folio sees the link without it.
    return (named.pathname + named.search).endsWith(request.url)
  } catch {
    return false
  }
}

async function authorize(
  ctx: AdapterContext,
  request: FastifyRequest,
  fileId: string,
): Promise<TokenClaims | undefined> {
  const query = isRecord(request.query) ? request.query : {}
  const token = typeof query.token === 'string' ? query.token : ''
  const check = ctx.app.tokens.verify(token, 'download', ctx.clock.now())
  let claims = check.ok ? check.claims : undefined
  if (!check.ok && check.reason === 'expired' && (await docsJwtNamesThisLink(ctx, request))) {
    // Checked again with the expiry left out (time 0): signature and scope still count.
    const again = ctx.app.tokens.verify(token, 'download', 0)
    claims = again.ok ? again.claims : undefined
  }
  if (claims?.fileId !== fileId) return undefined
  return claims
}

function fileIdOf(request: FastifyRequest): string {
  const params = isRecord(request.params) ? request.params : {}
  return typeof params.fileId === 'string' ? params.fileId : ''
}

const invalidLink = () => new DomainError('FORBIDDEN', 'this link is not valid (expired or not for this file)')
const gone = () => new DomainError('NOT_FOUND', 'not found')

/** GET /onlyoffice/download/:fileId and /onlyoffice/changes/:fileId (?token=...). */
export function downloadRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.setErrorHandler((error, request, reply) => {
      const status = isDomainError(error) ? DOWNLOAD_STATUS[error.code] : 500
      // The route pattern, never the URL: the URL carries the download token.
      if (status >= 500) ctx.logger.error({ err: error, route: request.routeOptions.url }, 'ONLYOFFICE download failed')
      return sendDownloadRefusal(reply, status)
    })

    app.get(`${ONLYOFFICE_PATHS.download}/:fileId`, async (request, reply) => {
      const fileId = fileIdOf(request)
      const claims = await authorize(ctx, request, fileId)
      if (!claims) throw invalidLink()
      const { file, version } = await ctx.app.files.forLink(claims)
      return sendContent(ctx, request, reply, {
        blobKey: version.blobKey,
        size: version.size,
        sha256: version.sha256,
        fileName: file.title,
        modifiedAt: version.createdAt,
      })
    })

    app.get(`${ONLYOFFICE_PATHS.changes}/:fileId`, async (request, reply) => {
      const fileId = fileIdOf(request)
      const claims = await authorize(ctx, request, fileId)
      if (!claims || claims.version === undefined) {
        throw invalidLink()
      }
      const { version } = await ctx.app.files.forLink(claims)
      const changes = ctx.app.editing.changesOf(version)
      if (!changes) throw gone()
      return sendContent(ctx, request, reply, {
        blobKey: changes.blobKey,
        size: changes.size,
        sha256: changes.sha256,
        fileName: 'changes.zip',
        modifiedAt: version.createdAt,
      })
    })
  }
}
