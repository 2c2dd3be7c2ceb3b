import type { FastifyRequest } from 'fastify'
import { DomainError } from '../../core/errors.js'
import { tokenFromAuthorization } from '../../core/tokens/session-token.js'

/**
 * How a browser or API client presents its portal session, shared by every adapter that
 * serves signed-in users (portal API, web UI, editor page).
 */

/** Where a request's portal token came from. */
export interface PortalCredentials {
  token: string
  /** 'cookie' only for the web UI's HttpOnly `folio_session` cookie. */
  source: 'header' | 'cookie'
}

/** Name of the web UI's session cookie (HttpOnly, SameSite=Strict). */
export const SESSION_COOKIE = 'folio_session'

/**
 * The same session under the name ONLYOFFICE's clients use: the Desktop Editors read it
 * after a sign-in in their embedded browser, and the Android app sends it on downloads.
 * Set and cleared with SESSION_COOKIE, with the same flags.
 */
export const PORTAL_COOKIE = 'asc_auth_key'

/**
 * The header every state-changing web UI request carries. A cross-site page
 * cannot add a custom header without a CORS preflight, which Folio never
 * grants, so a cookie-authenticated write without it is refused.
 */
export const CSRF_HEADER = 'x-folio-request'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Where a portal token is read: the Authorization header (the token alone, as
 * ONLYOFFICE sends it, or `Bearer <token>`), else the web UI's HttpOnly cookie.
 */
export function readPortalCredentials(request: FastifyRequest): PortalCredentials | undefined {
  const fromHeader = tokenFromAuthorization(request.headers.authorization)
  if (fromHeader) return { token: fromHeader, source: 'header' }
  const fromCookie = readSessionCookie(request)
  return fromCookie ? { token: fromCookie, source: 'cookie' } : undefined
}

/** The portal token of a request, from the Authorization header or the session cookie. */
export function readPortalToken(request: FastifyRequest): string | undefined {
  return readPortalCredentials(request)?.token
}

/**
 * The session token of the `folio_session` cookie, else of the `asc_auth_key` cookie, when
 * it has the shape of a token.
 */
export function readSessionCookie(request: FastifyRequest): string | undefined {
  const cookie = request.headers.cookie
  if (!cookie) return undefined
  const session = /(?:^|;\s*)folio_session=([A-Za-z0-9_-]{16,128})(?:;|$)/.exec(cookie)
  if (session?.[1] !== undefined) return session[1]
  return /(?:^|;\s*)asc_auth_key=([A-Za-z0-9_-]{16,128})(?:;|$)/.exec(cookie)?.[1]
}

/**
 * CSRF guard for cookie sessions: a request that may change something (not
 * GET/HEAD/OPTIONS) must carry `X-Folio-Request: 1`, else FORBIDDEN.
 */
export function assertCsrfHeader(request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method)) return
  if (request.headers[CSRF_HEADER] === '1') return
  throw new DomainError(
    'FORBIDDEN',
    'a request authenticated by the session cookie must carry the header X-Folio-Request: 1',
  )
}
