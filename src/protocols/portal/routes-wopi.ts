import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AdapterContext } from '../../app/create-app.js'
import { DomainError } from '../../core/errors.js'
import type { Permission } from '../../core/tokens/signed-token.js'
import { me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { fileIdParams, parseInput } from './schema.js'

/** `mode` from the query or a JSON/form body: 'edit' (default) or 'view'. */
function requestedPermission(request: FastifyRequest): Permission {
  const sources = [request.query, request.body]
  for (const source of sources) {
    if (typeof source !== 'object' || source === null || !('mode' in source)) continue
    const mode: unknown = source.mode
    if (mode === 'view') return 'read'
    if (mode === 'edit' || mode === undefined || mode === '') return 'write'
    throw new DomainError('INVALID_INPUT', 'mode must be "edit" or "view"', { field: 'mode' })
  }
  return 'write'
}

/**
 * `POST /api/2.0/files/file/{fileId}/wopi`: what a host page needs to open a file in a WOPI
 * client. The owner only (anyone else gets 404, as for a missing file). Answers the WOPISrc,
 * a WOPI access token for the caller (write, or read with mode=view) and its expiry
 * (accessTokenTtl, ms since epoch, WOPI's access_token_ttl), plus the discovery's `edit`
 * and `view` action URLs when a WOPI client is configured and handles the extension. The
 * page must post the token as a form field, never in the query, so it stays out of logs and
 * Referer headers (Microsoft's host page guidance).
 */
export function wopiTokenRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    const options = { onRequest: requirePortalUser(ctx) }
    app.post('/files/file/:fileId/wopi', options, async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const by = me(request)
      await ctx.app.files.get(by, fileId)
      return success(await ctx.app.wopi.launch(by, fileId, requestedPermission(request)))
    })
  }
}
