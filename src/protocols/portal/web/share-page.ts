import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AdapterContext, Principal } from '../../../app/index.js'
import { previewFormatOf } from '../../../core/conversion/preview.js'
import type { FileRecord } from '../../../core/entities.js'
import { extensionOf } from '../../../core/names/file-names.js'
import { escapeHtml, sendProblemPage } from '../../http/error-page.js'
import { foundOrUndefined } from '../../http/page-lookup.js'
import { sendContent } from '../../http/send-content.js'
import { sendPreview } from '../download-as.js'
import { wopiHostContentSecurityPolicy } from './security-headers.js'
import { renderWopiHostPage, resolveActionUrl } from './wopi-host-page.js'
import { guestIdOf, guestName } from '../../http/guest-identity.js'
import { isDomainError } from '../../../core/errors.js'

/**
 * A file's share link in the browser, editor or not: `/s/:fileId?doc=<key>` answers a page
 * with the document's name, owner, size and date, its preview (`/s/:fileId/preview`) and
 * its download (`/s/:fileId/download`), each read through the link's own access on every
 * request. "Open in editor" is offered when an editor is configured; the guest's name is
 * asked only then. A link that is off, replaced or not this file's is a 404 page.
 */

/** Most of a text file the page shows; the rest is in the download. */
const TEXT_PREVIEW_BYTES = 256 * 1024

type LinkQuery = { doc?: unknown; name?: unknown; mode?: unknown }

const STYLE = `:root{--bg:#f6f7f9;--surface:#fff;--text:#1a202c;--muted:#5a6473;--border:#d9dee5;--accent:#2b6cb0;--accent-text:#fff;color-scheme:light dark;font:16px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','Liberation Sans',sans-serif;color:var(--text);background:var(--bg)}
@media (prefers-color-scheme:dark){:root{--bg:#14171c;--surface:#1d2128;--text:#e7ebf0;--muted:#a3adba;--border:#353c47;--accent:#63a4e8;--accent-text:#0b1420}}
body{margin:0}header{padding:.75rem 1rem;border-bottom:1px solid var(--border);background:var(--surface);font-weight:700}
main{max-width:60rem;margin:1.5rem auto;padding:0 1rem}h1{font-size:1.4rem;margin:0 0 .25rem;overflow-wrap:anywhere}
.meta{margin:0 0 1rem;color:var(--muted)}.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-start;margin-bottom:1rem}
.button{display:inline-block;padding:.5rem 1rem;border-radius:8px;border:1px solid var(--border);background:var(--surface);color:var(--accent);text-decoration:none;font:inherit;cursor:pointer}
.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-text)}
details{display:inline-block}summary{list-style:none}summary::-webkit-details-marker{display:none}
details form{margin-top:.5rem;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}input{font:inherit;padding:.4rem;border:1px solid var(--border);border-radius:6px}
.frame{width:100%;height:75vh;border:1px solid var(--border);border-radius:8px;background:var(--surface)}
.image{display:block;max-width:100%;max-height:75vh;margin:0 auto;border:1px solid var(--border)}
pre{max-height:75vh;overflow:auto;padding:1rem;border:1px solid var(--border);border-radius:8px;background:var(--surface);white-space:pre-wrap;overflow-wrap:anywhere}
.none{padding:1.5rem;border:1px dashed var(--border);border-radius:8px}a:focus-visible,.button:focus-visible{outline:3px solid #f6ad55;outline-offset:2px}`

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64')

/** CSP of the link page: its inline style, the preview from Folio itself, forms to Folio. */
const SHARE_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "img-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ')

/** The key of the link in a query, or '' (the longest key kept is 256 characters). */
function keyOf(query: LinkQuery): string {
  return typeof query.doc === 'string' ? query.doc.slice(0, 256) : ''
}

/** The principal of whoever holds the link (the preview and the download need no name). */
async function linkHolder(
  ctx: AdapterContext,
  fileId: string,
  key: string,
): Promise<{ principal: Principal; file: FileRecord } | undefined> {
  if (key === '') return undefined
  return foundOrUndefined(ctx.app.sharing.linkPrincipal(fileId, key, { id: 'link-reader', name: 'Guest' }))
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  const units = ['KB', 'MB', 'GB', 'TB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`
}

/** The query string that carries the link's key. */
function keyQuery(key: string): string {
  return `doc=${encodeURIComponent(key)}`
}

async function previewHtml(ctx: AdapterContext, file: FileRecord, base: string, key: string): Promise<string> {
  const format = previewFormatOf(extensionOf(file.title))
  const src = `${base}/preview?${keyQuery(key)}`
  const title = escapeHtml(`Preview of ${file.title}`)
  if (format === undefined)
    return '<p class="none">There is no preview of this kind of file. Download it to open it.</p>'
  if (format.kind === 'image') return `<img class="image" src="${escapeHtml(src)}" alt="${title}">`
  if (format.kind === 'converted' && ctx.app.conversion.status().kind === 'off') {
    return '<p class="none" data-reason="no-converter">A preview of this document needs LibreOffice, which is not running on this Folio. Download the document to open it.</p>'
  }
  if (format.kind === 'text') {
    const end = Math.min(file.size, TEXT_PREVIEW_BYTES) - 1
    const chunks: Buffer[] = []
    if (end >= 0)
      for await (const chunk of await ctx.app.files.openBlob(file.blobKey, { start: 0, end }))
        chunks.push(Buffer.from(chunk))
    return `<pre aria-label="${escapeHtml(`Contents of ${file.title}`)}">${escapeHtml(Buffer.concat(chunks).toString('utf8'))}</pre>`
  }
  return `<iframe class="frame" src="${escapeHtml(src)}" title="${title}"></iframe>`
}

async function renderSharePage(ctx: AdapterContext, file: FileRecord, key: string): Promise<string> {
  const base = `/s/${encodeURIComponent(file.id)}`
  const owner = (await ctx.app.accounts.displayNames([file.ownerId])).get(file.ownerId) ?? ''
  const date = new Date(file.updatedAt).toISOString().replace('T', ' ').slice(0, 16) + ' UTC'
  // ONLYOFFICE Docs' editor page, else the WOPI client's host page.
  const editorPath =
    ctx.config.docs !== undefined
      ? `${base}/editor`
      : ctx.config.wopi.discoveryUrl !== undefined
        ? `${base}/wopi`
        : undefined
  const editor =
    editorPath !== undefined
      ? `<details><summary class="button primary">Open in editor</summary><form method="get" action="${escapeHtml(editorPath)}">` +
        `<input type="hidden" name="doc" value="${escapeHtml(key)}">` +
        '<label>Your name (others editing see it) <input name="name" maxlength="64" required></label> ' +
        '<button type="submit" class="button primary">Open</button></form></details>'
      : ''
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(file.title)} - Folio</title>
<style>${STYLE}</style>
</head>
<body>
<header>Folio</header>
<main>
<h1>${escapeHtml(file.title)}</h1>
<p class="meta">Shared by <span class="owner">${escapeHtml(owner)}</span> · <span class="size">${escapeHtml(sizeText(file.size))}</span> · <time datetime="${new Date(file.updatedAt).toISOString()}">${escapeHtml(date)}</time></p>
<div class="actions">${editor}<a class="button" href="${escapeHtml(`${base}/download?${keyQuery(key)}`)}" download>Download</a></div>
${await previewHtml(ctx, file, base, key)}
</main>
</body>
</html>
`
}

function sendPage(reply: FastifyReply, html: string): FastifyReply {
  return (
    reply
      .code(200)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Content-Security-Policy', SHARE_PAGE_CSP)
      // The page's address holds the link's key: never cached, never sent on as a referrer.
      .header('Cache-Control', 'no-store')
      .header('Referrer-Policy', 'no-referrer')
      .send(html)
  )
}

/** The routes of a share link's page, its preview and its download. */
export function sharePageRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Params: { fileId: string }; Querystring: LinkQuery }>('/s/:fileId', async (request, reply) => {
      const key = keyOf(request.query)
      const opened = await linkHolder(ctx, request.params.fileId, key)
      if (!opened) return sendProblemPage(reply, 'NOT_FOUND')
      // A name given with the key: the guest has asked for the editor (addresses made before
      // the page existed carry it too).
      if (request.query.name !== undefined && ctx.config.docs !== undefined) {
        return reply.redirect(`/s/${encodeURIComponent(opened.file.id)}/editor${queryOf(request)}`, 302)
      }
      return sendPage(reply, await renderSharePage(ctx, opened.file, key))
    })

    // The WOPI client's host page for a link's guest (when no ONLYOFFICE Docs is configured):
    // edit with a ReadWrite link, view with any other.
    app.get<{ Params: { fileId: string }; Querystring: LinkQuery }>('/s/:fileId/wopi', async (request, reply) => {
      const key = keyOf(request.query)
      const opened = await linkHolder(ctx, request.params.fileId, key)
      if (!opened) return sendProblemPage(reply, 'NOT_FOUND')
      if (ctx.config.wopi.discoveryUrl === undefined) return sendProblemPage(reply, 'NO_EDITOR')
      const guest = {
        id: guestIdOf(request, reply, ctx.config.publicUrl.startsWith('https:')),
        name: guestName(request.query.name),
      }
      const launch = await ctx.app.wopi.launchByLink(opened.file.id, key, guest, 'write').catch((error: unknown) => {
        if (isDomainError(error) && error.code === 'FORBIDDEN')
          return ctx.app.wopi.launchByLink(opened.file.id, key, guest, 'read')
        throw error
      })
      const urlsrc = launch.permission === 'write' ? (launch.edit ?? launch.view) : (launch.view ?? launch.edit)
      if (!urlsrc) return sendProblemPage(reply, 'EDITOR_UNAVAILABLE')
      const actionUrl = resolveActionUrl(urlsrc, launch.wopiSrc, 'en-US')
      return reply
        .code(200)
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .header('Referrer-Policy', 'no-referrer')
        .header('Content-Security-Policy', wopiHostContentSecurityPolicy(new URL(actionUrl).origin))
        .send(
          renderWopiHostPage({
            title: opened.file.title,
            actionUrl,
            accessToken: launch.accessToken,
            accessTokenTtl: launch.accessTokenTtl,
          }),
        )
    })

    app.get<{ Params: { fileId: string }; Querystring: LinkQuery }>('/s/:fileId/preview', async (request, reply) => {
      const opened = await linkHolder(ctx, request.params.fileId, keyOf(request.query))
      if (!opened) return sendProblemPage(reply, 'NOT_FOUND')
      return sendPreview(ctx, request, reply, opened.principal, opened.file.id)
    })

    app.get<{ Params: { fileId: string }; Querystring: LinkQuery }>('/s/:fileId/download', async (request, reply) => {
      const opened = await linkHolder(ctx, request.params.fileId, keyOf(request.query))
      if (!opened) return sendProblemPage(reply, 'NOT_FOUND')
      const file = await ctx.app.files.get(opened.principal, opened.file.id, 'download')
      return sendContent(ctx, request, reply, {
        blobKey: file.blobKey,
        size: file.size,
        sha256: file.sha256,
        fileName: file.title,
        modifiedAt: file.updatedAt,
      })
    })
  }
}

/** The request's own query string ('' or '?...'). */
function queryOf(request: FastifyRequest): string {
  const at = request.url.indexOf('?')
  return at < 0 ? '' : request.url.slice(at)
}
