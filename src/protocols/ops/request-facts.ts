import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * What the access log and the metrics know about a finished request, read only from the
 * route pattern, method, status and a few headers, so no protocol adapter has to report
 * to them. Never the URL itself: its query may carry a token.
 */
export interface RequestFacts {
  method: string
  /** Route pattern ('/wopi/files/:fileId'), or '(unmatched)' for a 404 outside every route. */
  route: string
  status: number
  /** Milliseconds from the request's arrival to the end of the response. */
  durationMs: number
  /** Response body bytes, when the response declared Content-Length. */
  bytes: number | undefined
  /** The signed-in portal user's id, when the request was authenticated as one. */
  userId: string | undefined
}

/** What the metrics read of a request besides its facts (a Fastify request or a raw one). */
export interface ObservedRequest {
  method?: string | undefined
  headers: IncomingHttpHeaders
  /** The parsed body, where Fastify parsed one (the editor callback's status). */
  body?: unknown
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])

function methodLabel(method: string | undefined): string {
  return method !== undefined && METHODS.has(method) ? method : 'OTHER'
}

/** The facts of a request once its response has been sent (an onResponse hook). */
export function requestFacts(request: FastifyRequest, reply: FastifyReply): RequestFacts {
  const length = Number(reply.getHeader('content-length'))
  return {
    method: methodLabel(request.method),
    route: request.routeOptions.url ?? '(unmatched)',
    status: reply.statusCode,
    durationMs: Math.round(reply.elapsedTime * 10) / 10,
    bytes: Number.isSafeInteger(length) ? length : undefined,
    userId: portalUserId(request),
  }
}

/**
 * The facts of a request answered outside Fastify (http/raw-routes.ts: the WOPI host),
 * once its response has finished; `route` and `startedAt` come from the raw route.
 */
export function rawRequestFacts(
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  startedAt: number,
): RequestFacts {
  const length = Number(res.getHeader('content-length'))
  return {
    method: methodLabel(req.method),
    route,
    status: res.statusCode,
    durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
    bytes: Number.isSafeInteger(length) ? length : undefined,
    userId: undefined,
  }
}

/** The portal adapter decorates requests with `portalUser`; read it without depending on it. */
function portalUserId(request: FastifyRequest): string | undefined {
  const user: unknown = Reflect.get(request, 'portalUser')
  if (typeof user !== 'object' || user === null) return undefined
  const id: unknown = Reflect.get(user, 'id')
  return typeof id === 'string' ? id : undefined
}

/** WOPI operations by name; anything else a client sends is counted as 'other'. */
const WOPI_OVERRIDES = new Set([
  'LOCK',
  'UNLOCK',
  'REFRESH_LOCK',
  'GET_LOCK',
  'PUT',
  'PUT_RELATIVE',
  'RENAME_FILE',
  'DELETE',
  'PUT_USER_INFO',
  'GET_SHARE_URL',
])

/**
 * The WOPI operation of a request under /wopi/files: CheckFileInfo and GetFile for GETs,
 * else the X-WOPI-Override header (UnlockAndRelock is LOCK with X-WOPI-OldLock);
 * undefined for any other route.
 */
export function wopiOperation(request: ObservedRequest, route: string): string | undefined {
  if (!route.startsWith('/wopi/files/')) return undefined
  const contents = route.endsWith('/contents')
  if (request.method === 'GET' || request.method === 'HEAD') return contents ? 'GetFile' : 'CheckFileInfo'
  const header = request.headers['x-wopi-override']
  const override = typeof header === 'string' ? header.trim().toUpperCase() : ''
  if (override === '') return 'missing'
  if (!WOPI_OVERRIDES.has(override)) return 'other'
  if (override === 'LOCK' && request.headers['x-wopi-oldlock'] !== undefined) return 'UNLOCK_AND_RELOCK'
  return override
}

/** True for the ONLYOFFICE Docs editing callback route. */
export function isEditorCallback(route: string): boolean {
  return route.startsWith('/onlyoffice/callback/')
}

/** The sign-in routes (portal API and the web interface's session). */
export function isSignIn(request: ObservedRequest, route: string): boolean {
  return (
    request.method === 'POST' &&
    (route === '/api/2.0/authentication.json' || route === '/api/2.0/authentication' || route === '/ui/session')
  )
}

/** success (2xx), throttled (429), failure (anything else) for a sign-in's status. */
export function signInOutcome(status: number): 'success' | 'throttled' | 'failure' {
  if (status >= 200 && status < 300) return 'success'
  if (status === 429) return 'throttled'
  return 'failure'
}
