import type { FastifyReply, FastifyRequest } from 'fastify'
import { create as contentDisposition } from 'content-disposition'
import type { AdapterContext, DownloadedAs, Preview, Principal } from '../../app/index.js'
import { sendContent } from '../http/send-content.js'
import { mimeTypeOf } from '../../core/documents/file-types.js'
import { normalizeExtension } from '../../core/conversion/formats.js'
import { extensionOf } from '../../core/names/file-names.js'
import { me } from './authenticate.js'

/**
 * "Download as", as ONLYOFFICE's download handler takes it: `?outputtype=.pdf` on a file's
 * download URL answers the file converted to that format, named `<title>.pdf`. The same
 * format as the file's own is the file itself (the caller then sends it as usual).
 */

/** The `outputtype` query parameter, when one is given. */
export function outputTypeOf(request: FastifyRequest): string | undefined {
  const query = request.query
  if (typeof query !== 'object' || query === null) return undefined
  const value: unknown = Reflect.get(query, 'outputtype')
  return typeof value === 'string' && value.trim() !== '' ? value : undefined
}

/** True when `outputType` names the file's own format: no conversion needed. */
export function isOwnFormat(title: string, outputType: string): boolean {
  return normalizeExtension(outputType) === extensionOf(title)
}

/** Sends the file converted to `outputType` (415 for a pair Folio cannot convert). */
export async function sendConverted(
  ctx: AdapterContext,
  request: FastifyRequest,
  reply: FastifyReply,
  fileId: string,
  outputType: string,
): Promise<FastifyReply> {
  return send(reply, await ctx.app.conversion.downloadAs(me(request), fileId, outputType), 'attachment')
}

/**
 * GET files/file/{id}/thumbnail (and a link page's thumbnails): the first page as a PNG of
 * at most 512 px, shown inline.
 */
export async function sendThumbnail(
  ctx: AdapterContext,
  reply: FastifyReply,
  by: Principal,
  fileId: string,
): Promise<FastifyReply> {
  return send(reply, await ctx.app.conversion.thumbnail(by, fileId), 'inline')
}

/**
 * CSP of a preview shown by the browser itself. An image or text is sandboxed (nothing in
 * it runs, even when opened on its own); a PDF is not, because Chromium's PDF viewer does
 * not run in a sandboxed document. Every preview may be framed by Folio's own pages only.
 */
const PREVIEW_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'"
const SANDBOXED_PREVIEW_CSP = `${PREVIEW_CSP}; sandbox`

/**
 * GET files/file/{id}/preview (and a share link's preview): the preview of the current
 * version, inline, for the browser to show: a PDF (the file or its rendition), an image,
 * or text as text/plain. The same access as a download.
 */
export async function sendPreview(
  ctx: AdapterContext,
  request: FastifyRequest,
  reply: FastifyReply,
  by: Principal,
  fileId: string,
): Promise<FastifyReply> {
  const preview: Preview = await ctx.app.conversion.preview(by, fileId)
  // Its frame-ancestors below, not the web UI's blanket DENY, says who may frame it.
  reply.removeHeader('X-Frame-Options')
  reply.header(
    'Content-Security-Policy',
    preview.kind === 'pdf' || preview.kind === 'converted' ? PREVIEW_CSP : SANDBOXED_PREVIEW_CSP,
  )
  if (preview.kind === 'converted') return send(reply, preview.converted, 'inline')
  const { file } = preview
  return sendContent(
    ctx,
    request,
    reply,
    {
      blobKey: file.blobKey,
      size: file.size,
      sha256: file.sha256,
      fileName: file.title,
      modifiedAt: file.updatedAt,
    },
    { disposition: 'inline', headers: { 'Content-Type': preview.contentType } },
  )
}

function send(reply: FastifyReply, converted: DownloadedAs, type: 'attachment' | 'inline'): FastifyReply {
  return reply
    .header('Content-Type', converted.target === 'png' ? 'image/png' : mimeTypeOf(converted.target))
    .header('Content-Length', String(converted.size))
    .header('Content-Disposition', contentDisposition(converted.fileName, { type }))
    .header('Cache-Control', 'private, no-store')
    .header('X-Content-Type-Options', 'nosniff')
    .send(converted.stream)
}
