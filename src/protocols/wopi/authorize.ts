/**
 * The gate every WOPI request passes: access token present (401), proof headers acceptable
 * (500), token genuine, unexpired and issued for this file (401), file present (404), token
 * user present (401). Write operations additionally need a write token (401 otherwise).
 */
import type { RawReply } from '../http/raw-reply.js'
import type { RawRequest } from '../http/raw-request.js'
import type { AdapterContext, Principal } from '../../app/index.js'
import { DomainError } from '../../core/errors.js'
import type { Permission } from '../../core/tokens/signed-token.js'
import type { FileRecord, UserRecord } from '../../core/entities.js'
import type { ProofChecker } from './discovery.js'
import { readAccessToken } from './headers.js'

/** One authorized WOPI request: what every operation handler receives. */
export interface WopiCall {
  ctx: AdapterContext
  request: RawRequest
  reply: RawReply
  /** The file as read when the request was authorized (may be stale for CAS decisions). */
  file: FileRecord
  user: UserRecord
  permission: Permission
  /** The token's user acting with the token's permission, for the access policy. */
  principal: Principal
  /** The access token exactly as sent. */
  token: string
  /** A link guest whose link denies downloads. */
  viewOnly: boolean
}

/**
 * The URL a WOPI client requested, as it saw it, for checking its proof: the path and
 * query exactly as sent (request.url is the raw request target: every parameter, such as
 * access_token_ttl, and the token in the client's own percent-encoding) after the address
 * WOPI clients reach Folio at, FOLIO_INTERNAL_URL (whose path, if any, is a prefix a proxy
 * removed). With FOLIO_TRUST_PROXY on, the scheme and host the proxy reports
 * (X-Forwarded-Proto, X-Forwarded-Host) are a second candidate; without it, client-supplied
 * headers never shape the URL.
 */
export function requestUrlsForProof(ctx: AdapterContext, request: RawRequest): string[] {
  const internal = ctx.config.internalUrl.replace(/\/+$/, '')
  const urls = [internal + request.url]
  if (ctx.config.trustProxy) {
    const prefix = new URL(internal).pathname.replace(/\/+$/, '')
    const forwarded = `${request.protocol}://${request.host}${prefix}${request.url}`
    if (!urls.includes(forwarded)) urls.push(forwarded)
  }
  return urls
}

/** Authorizes a request to /wopi/files/{fileId} or /wopi/files/{fileId}/contents. */
export async function authorize(
  ctx: AdapterContext,
  proofs: ProofChecker,
  request: RawRequest,
  reply: RawReply,
  fileId: string,
): Promise<WopiCall> {
  const token = readAccessToken(request.queryParam('access_token'), request.headers)
  if (token === undefined) throw new DomainError('UNAUTHENTICATED', 'an access_token is required')
  // Without a WOPI client there is no proof to check: skip building its URLs, and the await.
  if (proofs.checksProofs) {
    await proofs.checkProof({ accessToken: token, urls: requestUrlsForProof(ctx, request), headers: request.headers })
  }
  const { file, user, permission, principal, viewOnly } = await ctx.app.wopi.access(token, fileId, request.ip)
  // Built field by field: spreading the access into a new object took V8's slow path on
  // every call (a few per cent of a CheckFileInfo's CPU).
  return { ctx, request, reply, file, user, permission, principal, token, viewOnly: viewOnly === true }
}

/** Refuses (401, as WOPI has no 403) unless the token allows changes to the file. */
export async function requireWrite(call: WopiCall): Promise<void> {
  await call.ctx.app.authorize(call.principal, 'edit', call.file)
}
