import type { AdapterContext } from '../../app/index.js'
import type { UserRecord } from '../../core/entities.js'

/**
 * The links Folio hands to ONLYOFFICE Docs. Each carries a signed token (HMAC with the
 * instance secret) naming the file, so Docs needs no portal session and a link for one
 * file never opens another. Docs' server, not the browser, fetches every one of them
 * (document.url, callbackUrl, and setHistoryData's url, previous.url and changesUrl: the
 * editor hands those to its server, which downloads them with its JWT), so they all start
 * with FOLIO_INTERNAL_URL.
 */

/**
 * Life of a download link (document.url, history urls). Docs fetches document.url as
 * the editor opens, so an hour is ample and keeps a leaked link short-lived.
 */
export const DOWNLOAD_LINK_TTL_MS = 60 * 60_000

/**
 * Life of a callbackUrl. Docs keeps calling it for as long as the session is open and
 * sends status 2 after the last editor leaves, which may be days later.
 */
export const CALLBACK_LINK_TTL_MS = 30 * 24 * 3_600_000

/** Paths of the routes the links point to (under the Folio root). */
export const ONLYOFFICE_PATHS = {
  callback: '/onlyoffice/callback',
  download: '/onlyoffice/download',
  changes: '/onlyoffice/changes',
} as const

/** Who a download link is made for: the user and their token generation now. */
export type LinkHolder = Pick<UserRecord, 'id' | 'tokenGeneration'>

/**
 * A signed read link to one version's bytes under one of the download routes. It carries
 * the holder's token generation, so a password change ends it; every use is checked
 * against the holder's access now (app/docs-links.ts).
 */
function versionLink(
  ctx: AdapterContext,
  path: string,
  fileId: string,
  holder: LinkHolder,
  version: number,
  link?: string,
): string {
  const token = ctx.app.tokens.sign({
    scope: 'download',
    fileId,
    userId: holder.id,
    permission: 'read',
    expiresAt: ctx.clock.now() + DOWNLOAD_LINK_TTL_MS,
    version,
    generation: holder.tokenGeneration,
    ...(link === undefined ? {} : { link }),
  })
  return `${ctx.config.internalUrl}${path}/${fileId}?token=${token}`
}

/**
 * document.url for one version's contents (signed 'download' token). `link` (the share
 * link's key hash) ties it to the link an editor was opened through.
 */
export function downloadLink(
  ctx: AdapterContext,
  fileId: string,
  holder: LinkHolder,
  version: number,
  link?: string,
): string {
  return versionLink(ctx, ONLYOFFICE_PATHS.download, fileId, holder, version, link)
}

/** The changes.zip kept with one version (same token kind as its download link). */
export function changesLink(ctx: AdapterContext, fileId: string, holder: LinkHolder, version: number): string {
  return versionLink(ctx, ONLYOFFICE_PATHS.changes, fileId, holder, version)
}

/**
 * editorConfig.callbackUrl: names the file and proves Folio issued it (signed 'callback'
 * token); `link` as for downloadLink.
 */
export function callbackLink(ctx: AdapterContext, fileId: string, userId: string, link?: string): string {
  const token = ctx.app.tokens.sign({
    scope: 'callback',
    fileId,
    userId,
    permission: 'write',
    expiresAt: ctx.clock.now() + CALLBACK_LINK_TTL_MS,
    ...(link === undefined ? {} : { link }),
  })
  return `${ctx.config.internalUrl}${ONLYOFFICE_PATHS.callback}/${fileId}?token=${token}`
}
