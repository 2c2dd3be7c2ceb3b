/**
 * WOPI access tokens and the addresses handed to WOPI clients. A token is an HMAC-signed
 * claim set (core/tokens/signed-token, scope 'wopi') bound to one user, one file and one
 * permission, expiring after FOLIO_WOPI_TOKEN_TTL. Nothing is stored, so every instance
 * sharing the signing secret accepts it.
 */
import type { AppContext } from '../../app/context.js'
import { signToken, type Permission, type TokenClaims } from '../../core/tokens/signed-token.js'

/** A freshly issued access token and its expiry (ms since epoch, WOPI's access_token_ttl). */
export interface IssuedToken {
  token: string
  expiresAt: number
}

/** Issues a WOPI access token for `userId` on `fileId` with `permission`. */
export function issueWopiToken(
  ctx: AppContext,
  fileId: string,
  userId: string,
  permission: Permission,
): IssuedToken {
  const expiresAt = ctx.clock.now() + ctx.config.wopiTokenTtlMs
  const claims: TokenClaims = { scope: 'wopi', fileId, userId, permission, expiresAt }
  const token = signToken(ctx.signingSecret, claims)
  return { token, expiresAt }
}

/**
 * The WOPISrc of a file: `<internal URL>/wopi/files/<id>`. Only the WOPI client's server
 * calls it, so it uses the address servers reach Folio at (FOLIO_INTERNAL_URL); proofs
 * are checked against the same URL.
 */
export function wopiSrcOf(ctx: AppContext, fileId: string): string {
  return `${ctx.config.internalUrl}/wopi/files/${fileId}`
}

/** The URL of a file with its token, as PutRelativeFile's `Url` wants it. */
export function wopiFileUrl(ctx: AppContext, fileId: string, token: string): string {
  return `${wopiSrcOf(ctx, fileId)}?access_token=${encodeURIComponent(token)}`
}

/** The host page that opens a file in the WOPI client (served by the web UI). */
export function hostPageUrl(ctx: AppContext, fileId: string, action: 'edit' | 'view'): string {
  return `${ctx.config.publicUrl}/wopi-host/${fileId}?action=${action}`
}
