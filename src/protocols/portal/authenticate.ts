import type { FastifyRequest } from 'fastify'
import { type AdapterContext, type Principal, userPrincipal } from '../../app/index.js'
import { DomainError } from '../../core/errors.js'
import type { UserRecord } from '../../core/entities.js'
import { assertCsrfHeader, readPortalCredentials } from '../http/session-credentials.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, set by the portal's authentication hook. */
    portalUser: UserRecord | null
    /** The raw portal token of this request (for logout). */
    portalToken: string | null
  }
}

/**
 * preHandler: resolves the token to a user, or refuses with 401. A token from
 * the cookie also needs the CSRF header on state-changing methods (403).
 */
export function requirePortalUser(ctx: AdapterContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const credentials = readPortalCredentials(request)
    if (!credentials) throw new DomainError('UNAUTHENTICATED', 'an Authorization token is required')
    if (credentials.source === 'cookie') assertCsrfHeader(request)
    request.portalUser = await ctx.app.accounts.authenticateToken(credentials.token)
    request.portalToken = credentials.token
  }
}

/** The signed-in user of a request behind requirePortalUser. */
export function currentUser(request: FastifyRequest): UserRecord {
  if (!request.portalUser) throw new DomainError('UNAUTHENTICATED', 'not signed in')
  return request.portalUser
}

/** The signed-in user of a request behind requirePortalUser, as a principal for the access policy. */
export function me(request: FastifyRequest): Principal {
  return { ...userPrincipal(currentUser(request)), address: request.ip }
}
