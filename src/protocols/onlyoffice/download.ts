import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../app/context.js'
import { changesOf } from '../../app/editing.js'
import { isDomainError } from '../../core/errors.js'
import { verifyToken, type TokenClaims } from '../../core/tokens/signed-token.js'
import { sendContent } from '../http/send-content.js'
import { bearerToken, verifyDocsToken } from './jwt.js'
import { ONLYOFFICE_PATHS } from './links.js'

/**
 * document.url and the history links: file contents for Docs, which has no portal
 * session. The signed token in the query names the file and version. Docs adds its own
 * `Bearer` JWT with `{payload: {url}}` (fact sheet A7); that header is no portal
 * credential and is never refused. When it verifies and names this very link, it also
 * stands in for the link's expiry, so Docs can still fetch a link it was given in time
 * (its signature and file are checked all the same).
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

async function docsJwtNamesThisLink(ctx: AppContext, request: FastifyRequest): Promise<boolean> {
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
  ctx: AppContext,
  request: FastifyRequest,
  fileId: string,
): Promise<TokenClaims | undefined> {
  const query = isRecord(request.query) ? request.query : {}
  const token = typeof query.token === 'string' ? query.token : ''
  const check = verifyToken(ctx.signingSecret, token, 'download', ctx.clock.now())
  let claims = check.ok ? check.claims : undefined
  if (!check.ok && check.reason === 'expired' && (await docsJwtNamesThisLink(ctx, request))) {
    // Checked again with the expiry left out (time 0): signature and scope still count.
    const again = verifyToken(ctx.signingSecret, token, 'download', 0)
    claims = again.ok ? again.claims : undefined
  }
  return claims?.fileId === fileId ? claims : undefined
}

function fileIdOf(request: FastifyRequest): string {
  const params = isRecord(request.params) ? request.params : {}
  return typeof params.fileId === 'string' ? params.fileId : ''
}

function refuse(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').header('Cache-Control', 'no-store').send(message)
}

/** GET /onlyoffice/download/:fileId and /onlyoffice/changes/:fileId (?token=...). */
export function downloadRoutes(ctx: AppContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.setErrorHandler((error, request, reply) => {
      if (isDomainError(error) && error.code === 'NOT_FOUND') return refuse(reply, 404, 'not found')
      ctx.logger.error({ err: error, url: request.url }, 'ONLYOFFICE download failed')
      return refuse(reply, 500, 'internal error')
    })

    app.get(`${ONLYOFFICE_PATHS.download}/:fileId`, async (request, reply) => {
      const fileId = fileIdOf(request)
      const claims = await authorize(ctx, request, fileId)
      if (!claims) return refuse(reply, 403, 'this link is not valid (expired or not for this file)')
      const file = await ctx.store.files.findById(fileId)
      if (!file) return refuse(reply, 404, 'not found')
      const version = await ctx.store.files.getVersion(fileId, claims.version ?? file.version)
      if (!version) return refuse(reply, 404, 'not found')
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
        return refuse(reply, 403, 'this link is not valid (expired or not for this file)')
      }
      const version = await ctx.store.files.getVersion(fileId, claims.version)
      const changes = version ? changesOf(version) : undefined
      if (!version || !changes) return refuse(reply, 404, 'not found')
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
