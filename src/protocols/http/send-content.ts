import { create as contentDisposition } from 'content-disposition'
import parseRange from 'range-parser'
import type { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { mimeTypeOf } from '../../core/documents/file-types.js'
import { extensionOf } from '../../core/names/file-names.js'
import type { AdapterContext } from '../../app/create-app.js'

/** The stored bytes to send and how to name them. */
export interface Content {
  blobKey: string
  size: number
  sha256: string
  fileName: string
  /** Last change, for Last-Modified. */
  modifiedAt: number
}

export interface SendOptions {
  /** 'attachment' for downloads, 'inline' to let a browser show it. */
  disposition?: 'attachment' | 'inline'
  /** Honour Range (206 / 416). On by default. */
  ranges?: boolean
  /** Extra headers (for example X-WOPI-ItemVersion). */
  headers?: Record<string, string>
}

/**
 * Streams stored content with the headers a download needs: a strong ETag
 * (the SHA-256 of the bytes), If-None-Match (304), a single byte Range (206,
 * or 416 when unsatisfiable) and a Content-Disposition that is safe for any
 * file name (ASCII fallback plus RFC 5987 filename*).
 */
export async function sendContent(
  ctx: AdapterContext,
  request: FastifyRequest,
  reply: FastifyReply,
  content: Content,
  options: SendOptions = {},
): Promise<FastifyReply> {
  const etag = `"${content.sha256}"`
  reply.header('ETag', etag)
  reply.header('Last-Modified', new Date(content.modifiedAt).toUTCString())
  reply.header('Accept-Ranges', options.ranges === false ? 'none' : 'bytes')
  reply.header('Content-Type', mimeTypeOf(extensionOf(content.fileName)))
  reply.header('Content-Disposition', contentDisposition(content.fileName, {
    type: options.disposition ?? 'attachment',
  }))
  reply.header('X-Content-Type-Options', 'nosniff')
  reply.header('Cache-Control', 'private, no-cache')
  for (const [name, value] of Object.entries(options.headers ?? {})) reply.header(name, value)

  if (request.headers['if-none-match'] === etag) return reply.code(304).send()

  const rangeHeader = options.ranges === false ? undefined : request.headers.range
  if (rangeHeader && content.size > 0) {
    const ifRange = request.headers['if-range']
    const rangeApplies = ifRange === undefined || ifRange === etag
    const ranges = rangeApplies ? parseRange(content.size, rangeHeader, { combine: true }) : -2
    if (ranges === -1) {
      reply.header('Content-Range', `bytes */${content.size}`)
      return reply.code(416).type('text/plain').send('requested range not satisfiable')
    }
    // One range is served as 206; several (rare) or a malformed header fall back to the whole body.
    if (Array.isArray(ranges) && ranges.length === 1 && ranges[0]) {
      const { start, end } = ranges[0]
      const stream = await ctx.app.files.openBlob(content.blobKey, { start, end })
      reply.header('Content-Range', `bytes ${start}-${end}/${content.size}`)
      reply.header('Content-Length', String(end - start + 1))
      return reply.code(206).send(stream)
    }
  }
  reply.header('Content-Length', String(content.size))
  if (content.size === 0) return reply.code(200).send(Buffer.alloc(0))
  const stream = await ctx.app.files.openBlob(content.blobKey)
  if (content.size > SMALL_CONTENT_BYTES) return reply.code(200).send(stream)
  return reply.code(200).send(await readSmall(stream, content.size))
}

/**
 * Content up to this size is sent as one buffer. Not buffering whole files: the bound is
 * fixed and small (a stream holds 64 KiB chunks anyway), and it saves a small reply the
 * plumbing of a stream (pipe, listeners, a write per chunk) on the hot GetFile path.
 */
const SMALL_CONTENT_BYTES = 64 * 1024

/** Reads a stream of `size` bytes (at most SMALL_CONTENT_BYTES) into one buffer. */
async function readSmall(stream: Readable, size: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let length = 0
  try {
    for await (const chunk of stream) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)
      length += bytes.length
      if (length > size) break
      chunks.push(bytes)
    }
  } finally {
    stream.destroy()
  }
  // The store and the metadata disagree (a damaged blob): fail rather than send other bytes.
  if (length !== size) throw new Error(`stored content is ${length} bytes, expected ${size}`)
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, length)
}
