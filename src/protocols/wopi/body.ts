/**
 * Request bodies of the WOPI host. Nothing parses them (the host answers on node:http,
 * before Fastify and its content-type parsers), so the bytes reach storage exactly as sent.
 */
import { PassThrough, type Readable } from 'node:stream'
import type { RawReply } from '../http/raw-reply.js'
import type { RawRequest } from '../http/raw-request.js'
import { DomainError } from '../../core/errors.js'
import { readContentLength } from './headers.js'

/** A refused body up to this size is read and dropped; a larger one closes the connection. */
const DRAIN_LIMIT_BYTES = 1024 * 1024

/**
 * The request body as a stream the blob store may consume and, on failure, destroy
 * without destroying the connection: the raw request is piped into it, so a refused
 * upload can still be answered (see releaseBody). A client that aborts mid-body makes
 * the stream fail, so nothing half-sent is ever stored.
 * Why not the request itself: the store reads it through stream.pipeline, which destroys
 * its source on any failure, and destroying an unfinished IncomingMessage destroys the
 * socket, so a refused upload (413, 409) could no longer be answered.
 */
export function bodyStream(request: RawRequest): Readable {
  const raw = request.raw
  const body = new PassThrough()
  const cutShort = () => {
    if (!raw.complete) {
      body.destroy(new DomainError('INVALID_INPUT', 'the request body was cut short'))
    }
  }
  raw.once('close', cutShort)
  raw.once('error', cutShort)
  body.once('close', () => raw.off('close', cutShort))
  raw.pipe(body)
  return body
}

/**
 * Makes sure a body nobody will read does not stall the reply or the next request: a small
 * rest is read and dropped; a large or unknown one is dropped while the reply asks for the
 * connection to close, so the client need not send it all.
 */
export function releaseBody(request: RawRequest, reply: RawReply): void {
  const raw = request.raw
  if (raw.complete || raw.destroyed) return
  let length: number | undefined
  try {
    length = readContentLength(request.headers)
  } catch {
    length = undefined
  }
  if ((length === undefined || length > DRAIN_LIMIT_BYTES) && !reply.sent) {
    reply.header('Connection', 'close')
  }
  raw.unpipe()
  raw.resume()
}

/**
 * Reads a small body (PutUserInfo) whole. Throws INVALID_INPUT when it is longer than
 * `limit` bytes; the rest is left for releaseBody.
 */
export async function readSmallBody(request: RawRequest, limit: number): Promise<Buffer> {
  const declared = readContentLength(request.headers)
  if (declared !== undefined && declared > limit) {
    throw new DomainError('INVALID_INPUT', `the body may be at most ${limit} bytes`)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of bodyStream(request)) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
    size += bytes.length
    if (size > limit) {
      throw new DomainError('INVALID_INPUT', `the body may be at most ${limit} bytes`)
    }
    chunks.push(bytes)
  }
  return Buffer.concat(chunks)
}
