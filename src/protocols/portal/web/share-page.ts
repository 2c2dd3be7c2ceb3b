import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AdapterContext } from '../../../app/index.js'
import { previewFormatOf } from '../../../core/conversion/preview.js'
import type { FileRecord } from '../../../core/entities.js'
import { extensionOf } from '../../../core/names/file-names.js'
import { escapeHtml, sendProblemPage } from '../../http/error-page.js'
import { foundOrUndefined } from '../../http/page-lookup.js'
import { sendContent } from '../../http/send-content.js'
import { sendPreview, sendThumbnail } from '../download-as.js'
import { wopiHostContentSecurityPolicy } from './security-headers.js'
import { renderWopiHostPage, resolveActionUrl } from './wopi-host-page.js'
import { guestIdOf, guestName } from '../../http/guest-identity.js'
import { isDomainError } from '../../../core/errors.js'
import { renderFolderLinkPage } from './folder-link-page.js'
import { languageOf, pageDate, pageSize, pageText, type PageLanguage } from '../../http/page-texts/index.js'
import { crumbs, keyQuery, linkPage, sendLinkPage } from './link-page-layout.js'

/**
 * A share link in the browser, editor or not: `/s/:fileId?doc=<key>` answers a page with the
 * document's name, owner, size and date, its preview (`/s/:fileId/preview`) and its
 * download (`/s/:fileId/download`, not offered and refused when the link denies downloads),
 * each read through the link's own access on every request. The key of a folder link opens
 * every file and folder below its folder the same way (`/s/:folderId?doc=<key>` lists a
 * folder, folder-link-page.ts). "Open in editor" is offered when an editor is configured;
 * the guest's name is asked only then. A link that is off, expired, replaced or does not
 * reach the item is a 404 page.
 */

/** Most of a text file the page shows; the rest is in the download. */
const TEXT_PREVIEW_BYTES = 256 * 1024

type LinkQuery = { doc?: unknown; name?: unknown; mode?: unknown }

/** The key of the link in a query, or '' (the longest key kept is 256 characters). */
function keyOf(query: LinkQuery): string {
  return typeof query.doc === 'string' ? query.doc.slice(0, 256) : ''
}

/** The principal of whoever holds the link (the preview and the download need no name). */
async function linkHolder(ctx: AdapterContext, fileId: string, key: string): Promise<OpenedFile | undefined> {
  if (key === '') return undefined
  return foundOrUndefined(ctx.app.sharing.linkPrincipal(fileId, key, { id: 'link-reader', name: 'Guest' }))
}

async function previewHtml(
  ctx: AdapterContext,
  language: PageLanguage,
  file: FileRecord,
  base: string,
  key: string,
): Promise<string> {
  const format = previewFormatOf(extensionOf(file.title))
  const src = `${base}/preview?${keyQuery(key)}`
  const title = escapeHtml(pageText(language.locale, 'link.previewOf', { name: file.title }))
  if (format === undefined) return `<p class="none">${escapeHtml(pageText(language.locale, 'link.noPreview'))}</p>`
  if (format.kind === 'image') return `<img class="image" src="${escapeHtml(src)}" alt="${title}">`
  if (format.kind === 'converted' && ctx.app.conversion.status().kind === 'off') {
    return `<p class="none" data-reason="no-converter">${escapeHtml(pageText(language.locale, 'link.noConverter'))}</p>`
  }
  if (format.kind === 'text') {
    const end = Math.min(file.size, TEXT_PREVIEW_BYTES) - 1
    const chunks: Buffer[] = []
    if (end >= 0)
      for await (const chunk of await ctx.app.files.openBlob(file.blobKey, { start: 0, end }))
        chunks.push(Buffer.from(chunk))
    return `<pre aria-label="${escapeHtml(pageText(language.locale, 'link.contentsOf', { name: file.title }))}">${escapeHtml(Buffer.concat(chunks).toString('utf8'))}</pre>`
  }
  return `<iframe class="frame" src="${escapeHtml(src)}" title="${title}"></iframe>`
}

/** A file opened through a link: the file, and what the link's page offers on it. */
type OpenedFile = Awaited<ReturnType<AdapterContext['app']['sharing']['linkPrincipal']>>

async function renderSharePage(
  ctx: AdapterContext,
  language: PageLanguage,
  opened: OpenedFile,
  key: string,
): Promise<string> {
  const { file } = opened
  const text = (key_: Parameters<typeof pageText>[1]) => escapeHtml(pageText(language.locale, key_))
  const base = `/s/${encodeURIComponent(file.id)}`
  const owner = (await ctx.app.accounts.displayNames([file.ownerId])).get(file.ownerId) ?? ''
  // Reached through a folder link: the folders from the linked one down to the file's.
  const folderPage =
    opened.linkedFolderId !== undefined && file.folderId !== null
      ? await foundOrUndefined(ctx.app.sharing.openFolderLink(file.folderId, key))
      : undefined
  // ONLYOFFICE Docs' editor page, else the WOPI client's host page.
  const editorPath =
    ctx.config.docs !== undefined
      ? `${base}/editor`
      : ctx.config.wopi.discoveryUrl !== undefined
        ? `${base}/wopi`
        : undefined
  const editor =
    editorPath !== undefined
      ? `<details><summary class="button primary">${text('link.openInEditor')}</summary><form method="get" action="${escapeHtml(editorPath)}">` +
        `<input type="hidden" name="doc" value="${escapeHtml(key)}">` +
        `<label>${text('link.guestName')} <input name="name" maxlength="64" required></label> ` +
        `<button type="submit" class="button primary">${text('link.open')}</button></form></details>`
      : ''
  const download = opened.denyDownload
    ? ''
    : `<a class="button" href="${escapeHtml(`${base}/download?${keyQuery(key)}`)}" download>${text('link.download')}</a>`
  const main = `${folderPage === undefined ? '' : crumbs(language, folderPage.path, key, false)}
<h1>${escapeHtml(file.title)}</h1>
<p class="meta">${text('link.sharedBy')} <span class="owner">${escapeHtml(owner)}</span> · <span class="size">${escapeHtml(pageSize(language, file.size))}</span> · <time datetime="${new Date(file.updatedAt).toISOString()}">${escapeHtml(pageDate(language, file.updatedAt))}</time>${opened.denyDownload ? ` · <span class="view-only">${text('link.viewOnly')}</span>` : ''}</p>
<div class="actions">${editor}${download}</div>
${await previewHtml(ctx, language, file, base, key)}`
  return linkPage(language, file.title, main)
}

/** The routes of a share link's page, its preview and its download. */
export function sharePageRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Params: { fileId: string }; Querystring: LinkQuery }>('/s/:fileId', async (request, reply) => {
      const key = keyOf(request.query)
      const language = languageOf(request)
      const opened = await linkHolder(ctx, request.params.fileId, key)
      if (!opened) {
        // Not a file this key reaches: a folder below a folder link, else the "not here" page.
        const folder =
          key === '' ? undefined : await foundOrUndefined(ctx.app.sharing.openFolderLink(request.params.fileId, key))
        if (!folder) return sendProblemPage(reply, 'NOT_FOUND')
        return sendLinkPage(reply, language, await renderFolderLinkPage(ctx, language, folder, key))
      }
      // A name given with the key: the guest has asked for the editor (addresses made before
      // the page existed carry it too).
      if (request.query.name !== undefined && ctx.config.docs !== undefined) {
        return reply.redirect(`/s/${encodeURIComponent(opened.file.id)}/editor${queryOf(request)}`, 302)
      }
      return sendLinkPage(reply, language, await renderSharePage(ctx, language, opened, key))
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

    // A folder link page's thumbnails (a view: shown even when downloads are denied).
    app.get<{ Params: { fileId: string }; Querystring: LinkQuery }>('/s/:fileId/thumbnail', async (request, reply) => {
      const opened = await linkHolder(ctx, request.params.fileId, keyOf(request.query))
      if (!opened) return sendProblemPage(reply, 'NOT_FOUND')
      return sendThumbnail(ctx, reply, opened.principal, opened.file.id)
    })

    app.get<{ Params: { fileId: string }; Querystring: LinkQuery }>('/s/:fileId/download', async (request, reply) => {
      const opened = await linkHolder(ctx, request.params.fileId, keyOf(request.query))
      if (!opened) return sendProblemPage(reply, 'NOT_FOUND')
      if (opened.denyDownload) return sendProblemPage(reply, 'FORBIDDEN')
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
