import { create as contentDisposition } from 'content-disposition'
import parseRange from 'range-parser'
import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { mimeTypeOf } from '../../core/documents/file-types.js'
import { extensionOf } from '../../core/names/file-names.js'
import type { AdapterContext } from '../../app/index.js'
import { TEXT_TYPE } from './raw-reply.js'
import { httpDate } from './timestamps.js'

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

/** What sendContent answers: status, headers and the body (bytes, a stream, or text). */
export interface ContentReply {
  status: number
  headers: Record<string, string>
  body?: Buffer | Readable
  /** A short explanation (416), sent as text/plain. */
  text?: string
}

/**
 * Decides the answer to a download of stored content, with the headers a download needs:
 * a strong ETag (the SHA-256 of the bytes), If-None-Match (304), a single byte Range
 * (206, or 416 when unsatisfiable) and a Content-Disposition that is safe for any file
 * name (ASCII fallback plus RFC 5987 filename*). Shared by Fastify routes (sendContent)
 * and the WOPI host, which answers on node:http directly.
 */
export async function contentReply(
  ctx: AdapterContext,
  requestHeaders: IncomingHttpHeaders,
  content: Content,
  options: SendOptions = {},
): Promise<ContentReply> {
  const etag = `"${content.sha256}"`
  const headers: Record<string, string> = {
    ETag: etag,
    'Last-Modified': httpDate(content.modifiedAt),
    'Accept-Ranges': options.ranges === false ? 'none' : 'bytes',
    'Content-Type': mimeTypeOf(extensionOf(content.fileName)),
    'Content-Disposition': dispositionOf(content.fileName, options.disposition ?? 'attachment'),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, no-cache',
  }
  const extra = options.headers
  if (extra !== undefined) for (const name in extra) headers[name] = extra[name] ?? ''

  if (requestHeaders['if-none-match'] === etag) return { status: 304, headers }

  const rangeHeader = options.ranges === false ? undefined : requestHeaders.range
  if (rangeHeader && content.size > 0) {
    const ifRange = requestHeaders['if-range']
    const rangeApplies = ifRange === undefined || ifRange === etag
    const ranges = rangeApplies ? parseRange(content.size, rangeHeader, { combine: true }) : -2
    if (ranges === -1 && /^bytes=/i.test(rangeHeader)) {
      headers['Content-Range'] = `bytes */${content.size}`
      headers['Content-Type'] = TEXT_TYPE
      return { status: 416, headers, text: 'requested range not satisfiable' }
    }
    // One range is served as 206; several (rare) or a malformed header fall back to the whole body,
    // and so does a range in any unit but bytes (RFC 9110 14.2: a recipient ignores a Range
    // whose unit it does not understand; unit names are case-insensitive).
    const inBytes = Array.isArray(ranges) && ranges.type.toLowerCase() === 'bytes'
    if (inBytes && ranges.length === 1 && ranges[0]) {
      const { start, end } = ranges[0]
      const stream = await ctx.app.files.openBlob(content.blobKey, { start, end })
      headers['Content-Range'] = `bytes ${start}-${end}/${content.size}`
      headers['Content-Length'] = String(end - start + 1)
      return { status: 206, headers, body: stream }
    }
  }
  headers['Content-Length'] = String(content.size)
  if (content.size === 0) return { status: 200, headers, body: Buffer.alloc(0) }
  if (content.size <= SMALL_CONTENT_BYTES) {
    // Whole from the store when it can (no stream at all), else read from a stream below.
    const whole = await ctx.app.files.readSmallBlob(content.blobKey)
    if (whole !== undefined) {
      checkSize(whole.length, content.size)
      return { status: 200, headers, body: whole }
    }
  }
  const stream = await ctx.app.files.openBlob(content.blobKey)
  if (content.size > SMALL_CONTENT_BYTES) return { status: 200, headers, body: stream }
  return { status: 200, headers, body: await readSmall(stream, content.size) }
}

let lastDisposition = { fileName: '', type: '', header: '' }

/**
 * The Content-Disposition of `fileName`; the last answer is kept, as an editor polling one
 * file asks for the same name on every GetFile (the header is a pure function of both).
 */
function dispositionOf(fileName: string, type: 'attachment' | 'inline'): string {
  const last = lastDisposition
  if (last.fileName === fileName && last.type === type && last.header !== '') return last.header
  const header = contentDisposition(fileName, { type })
  lastDisposition = { fileName, type, header }
  return header
}

/** Streams stored content through a Fastify reply (see contentReply). */
export async function sendContent(
  ctx: AdapterContext,
  request: FastifyRequest,
  reply: FastifyReply,
  content: Content,
  options: SendOptions = {},
): Promise<FastifyReply> {
  const answer = await contentReply(ctx, request.headers, content, options)
  reply.headers(answer.headers).code(answer.status)
  if (answer.text !== undefined) return reply.type(TEXT_TYPE).send(answer.text)
  return reply.send(answer.body)
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
  checkSize(length, size)
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, length)
}

/** Throws unless the stored `length` is the recorded `size`. */
function checkSize(length: number, size: number): void {
  // The store and the metadata disagree (a damaged blob): fail rather than send other bytes.
  if (length !== size) throw new Error(`stored content is ${length} bytes, expected ${size}`)
}
