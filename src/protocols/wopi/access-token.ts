/**
 * The addresses handed to WOPI clients. The access tokens in them are issued by the
 * application (app/wopi/launch.ts): HMAC-signed claim sets bound to one user, one file and
 * one permission, expiring after FOLIO_WOPI_TOKEN_TTL.
 */
import { type AdapterContext, wopiSrcFor } from '../../app/index.js'

/** The WOPISrc of a file (see app/wopi/launch.ts). */
export function wopiSrcOf(ctx: AdapterContext, fileId: string): string {
  return wopiSrcFor(ctx.config.internalUrl, fileId)
}

/** The URL of a file with its token, as PutRelativeFile's `Url` wants it. */
export function wopiFileUrl(ctx: AdapterContext, fileId: string, token: string): string {
  return `${wopiSrcOf(ctx, fileId)}?access_token=${encodeURIComponent(token)}`
}

/** The host page that opens a file in the WOPI client (served by the web UI). */
export function hostPageUrl(ctx: AdapterContext, fileId: string, action: 'edit' | 'view'): string {
  return `${ctx.config.publicUrl}/wopi-host/${fileId}?action=${action}`
}
