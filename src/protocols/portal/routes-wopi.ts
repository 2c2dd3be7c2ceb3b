import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AdapterContext } from '../../app/index.js'
import { DomainError } from '../../core/errors.js'
import type { Permission } from '../../core/tokens/signed-token.js'
import { me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import * as z from 'zod/mini'
import { guestIdOf, guestName } from '../http/guest-identity.js'
import { readPortalCredentials } from '../http/session-credentials.js'
import { toRecord } from './routes-folders.js'
import { fileIdParams, parseInput, text } from './schema.js'

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
 * client. Whoever may read the file (its owner, someone it is shared with; anyone else gets
 * 404, as for a missing file), or a guest with the key of the file's share link (`doc`,
 * without portal credentials; `name` is the name they give). Answers the WOPISrc,
 * a WOPI access token for the caller (write, or read with mode=view) and its expiry
 * (accessTokenTtl, ms since epoch, WOPI's access_token_ttl), plus the discovery's `edit`
 * and `view` action URLs when a WOPI client is configured and handles the extension. The
 * page must post the token as a form field, never in the query, so it stays out of logs and
 * Referer headers (Microsoft's host page guidance).
 */
export function wopiTokenRoutes(ctx: AdapterContext) {
  const authenticate = requirePortalUser(ctx)
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/files/file/:fileId/wopi', async (request, reply) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const permission = requestedPermission(request)
      const { doc, name } = parseInput(linkInput, { ...toRecord(request.query), ...toRecord(request.body) })
      // With the key of the file's share link and no portal credentials: a guest, as for
      // openedit (a stable id per browser from its cookie, and the name they typed).
      if (doc !== undefined && readPortalCredentials(request) === undefined) {
        const secure = ctx.config.publicUrl.startsWith('https:')
        const guest = { id: guestIdOf(request, reply, secure), name: guestName(name) }
        return success(await ctx.app.wopi.launchByLink(fileId, doc, guest, permission))
      }
      await authenticate(request)
      const by = me(request)
      await ctx.app.files.get(by, fileId)
      return success(await ctx.app.wopi.launch(by, fileId, permission))
    })
  }
}

/** A share link's key (`doc`, as in openedit) and the guest's name, from the query or body. */
const linkInput = z.object({
  doc: z.optional(text(1, 256)),
  name: z.optional(text(0, 256)),
})
