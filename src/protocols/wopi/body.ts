/**
 * Request bodies of the WOPI host. No content-type parser touches them (the WOPI context
 * passes every body through untouched), so the bytes reach storage exactly as sent.
 */
import { PassThrough, type Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { DomainError } from '../../core/errors.js'
import { readContentLength } from './headers.js'

/** A refused body up to this size is read and dropped; a larger one closes the connection. */
const DRAIN_LIMIT_BYTES = 1024 * 1024

/**
 * The request body as a stream the blob store may consume and, on failure, destroy
 * without destroying the connection: the raw request is piped into it, so a refused
 * upload can still be answered (see releaseBody). A client that aborts mid-body makes
 * the stream fail, so nothing half-sent is ever stored.
 */
export function bodyStream(request: FastifyRequest): Readable {
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
export function releaseBody(request: FastifyRequest, reply: FastifyReply): void {
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
export async function readSmallBody(request: FastifyRequest, limit: number): Promise<Buffer> {
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
