import type { FastifyReply, FastifyRequest } from 'fastify'
import { create as contentDisposition } from 'content-disposition'
import type { AdapterContext, DownloadedAs } from '../../app/index.js'
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

/** GET files/file/{id}/thumbnail: the first page as a PNG of at most 512 px, shown inline. */
export async function sendThumbnail(
  ctx: AdapterContext,
  request: FastifyRequest,
  reply: FastifyReply,
  fileId: string,
): Promise<FastifyReply> {
  return send(reply, await ctx.app.conversion.thumbnail(me(request), fileId), 'inline')
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
