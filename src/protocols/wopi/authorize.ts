/**
 * The gate every WOPI request passes: access token present (401), proof headers acceptable
 * (500), token genuine, unexpired and issued for this file (401), file present (404), token
 * user present (401). Write operations additionally need a write token (401 otherwise).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../app/context.js'
import { DomainError } from '../../core/errors.js'
import { isWellFormedId } from '../../core/ids.js'
import { verifyToken, type Permission, type TokenClaims } from '../../core/tokens/signed-token.js'
import type { FileRecord, UserRecord } from '../../ports/metadata-store.js'
import { checkProof } from './discovery.js'
import { readAccessToken } from './headers.js'

/** One authorized WOPI request: what every operation handler receives. */
export interface WopiCall {
  ctx: AppContext
  request: FastifyRequest
  reply: FastifyReply
  /** The file as read when the request was authorized (may be stale for CAS decisions). */
  file: FileRecord
  user: UserRecord
  permission: Permission
  /** The access token exactly as sent. */
  token: string
}

function fileIdParam(request: FastifyRequest): string {
  const params = request.params
  if (typeof params === 'object' && params !== null && 'fileId' in params) {
    const value: unknown = params.fileId
    if (typeof value === 'string') return value
  }
  return ''
}

/** Authorizes a request to /wopi/files/{id} ('file') or /wopi/files/{id}/contents ('contents'). */
export async function authorize(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  target: 'file' | 'contents',
): Promise<WopiCall> {
  const fileId = fileIdParam(request)
  const token = readAccessToken(request.query, request.headers)
  if (token === undefined) throw new DomainError('UNAUTHENTICATED', 'an access_token is required')
  await checkProof(ctx, { accessToken: token, fileId, target, headers: request.headers })
  const claims = verifyAccessToken(ctx, token)
  if (claims.fileId !== fileId) {
    throw new DomainError('UNAUTHENTICATED', 'the access token was issued for another file')
  }
  const file = isWellFormedId(fileId) ? await ctx.store.files.findById(fileId) : undefined
  if (!file) throw new DomainError('NOT_FOUND', 'file not found')
  // Read on every call: a removed user's tokens stop working at once, on every instance.
  const user = await ctx.store.users.findById(claims.userId)
  if (!user) throw new DomainError('UNAUTHENTICATED', 'the user of this token no longer exists')
  return { ctx, request, reply, file, user, permission: claims.permission, token }
}

/** Tokens remembered per signing secret; beyond this the oldest is forgotten (~0.5 KB each). */
const MAX_REMEMBERED_TOKENS = 2048

const rememberedTokens = new WeakMap<Buffer, Map<string, TokenClaims>>()

/**
 * The claims of a genuine, unexpired WOPI token; 401 otherwise. An editor sends the same
 * token on every call of a session, so a token whose HMAC verified once is remembered by
 * its exact text and only its expiry is checked again: the HMAC was about a tenth of the
 * CPU of a lock call. Tokens are stateless (nothing revokes one before it expires), so
 * remembering the verdict changes no answer.
 */
function verifyAccessToken(ctx: AppContext, token: string): TokenClaims {
  const now = ctx.clock.now()
  let remembered = rememberedTokens.get(ctx.signingSecret)
  if (remembered === undefined) {
    remembered = new Map()
    rememberedTokens.set(ctx.signingSecret, remembered)
  }
  const known = remembered.get(token)
  if (known !== undefined && now < known.expiresAt) return known
  remembered.delete(token)
  const check = verifyToken(ctx.signingSecret, token, 'wopi', now)
  if (!check.ok) throw new DomainError('UNAUTHENTICATED', `access token rejected: ${check.reason}`)
  if (remembered.size >= MAX_REMEMBERED_TOKENS) {
    const oldest = remembered.keys().next()
    if (oldest.done !== true) remembered.delete(oldest.value)
  }
  remembered.set(token, check.claims)
  return check.claims
}

/** Refuses (401, as WOPI has no 403) unless the token allows changes. */
export function requireWrite(call: WopiCall): void {
  if (call.permission !== 'write') {
    throw new DomainError('FORBIDDEN', 'this access token is read-only')
  }
}
