import type { FastifyRequest } from 'fastify'
import { authenticateToken } from '../../app/accounts.js'
import type { AppContext } from '../../app/context.js'
import { DomainError } from '../../core/errors.js'
import { tokenFromAuthorization } from '../../core/tokens/session-token.js'
import type { UserRecord } from '../../ports/metadata-store.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, set by the portal's authentication hook. */
    portalUser: UserRecord | null
    /** The raw portal token of this request (for logout). */
    portalToken: string | null
  }
}

/**
 * Where a portal token is read: the Authorization header (the token alone, as
 * ONLYOFFICE sends it, or `Bearer <token>`), else the web UI's HttpOnly cookie.
 */
export function readPortalToken(request: FastifyRequest): string | undefined {
  const fromHeader = tokenFromAuthorization(request.headers.authorization)
  if (fromHeader) return fromHeader
  const cookie = request.headers.cookie
  if (!cookie) return undefined
  const match = /(?:^|;\s*)folio_session=([A-Za-z0-9_-]{16,128})(?:;|$)/.exec(cookie)
  return match?.[1]
}

/** preHandler: resolves the token to a user, or refuses with 401. */
export function requirePortalUser(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = readPortalToken(request)
    if (!token) throw new DomainError('UNAUTHENTICATED', 'an Authorization token is required')
    request.portalUser = await authenticateToken(ctx, token)
    request.portalToken = token
  }
}

/** The signed-in user of a request behind requirePortalUser. */
export function currentUser(request: FastifyRequest): UserRecord {
  if (!request.portalUser) throw new DomainError('UNAUTHENTICATED', 'not signed in')
  return request.portalUser
}
