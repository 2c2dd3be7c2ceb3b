/**
 * Answering a request on node:http directly, for routes that bypass Fastify (the WOPI
 * host's route table, raw-routes.ts). Headers are collected and written in one writeHead;
 * the wire format is the one Fastify wrote for the same replies (lower-case names,
 * Content-Length on every reply, `application/json; charset=utf-8` for JSON), so clients
 * see no difference.
 */
import type { ServerResponse } from 'node:http'
import { pipeline, type Readable } from 'node:stream'

const JSON_TYPE = 'application/json; charset=utf-8'

/** Every text reply Folio writes is UTF-8 and says so (a name in a message would read as mojibake). */
export const TEXT_TYPE = 'text/plain; charset=utf-8'

export class RawReply {
  private readonly headers: Record<string, string> = {}

  constructor(readonly res: ServerResponse) {}

  /** True once the status line went out (nothing more can be said but the body). */
  get sent(): boolean {
    return this.res.headersSent
  }

  /** Sets a response header; names are case-insensitive, the last value wins. */
  header(name: string, value: string): this {
    this.headers[name.toLowerCase()] = value
    return this
  }

  /** Sets several headers. */
  setHeaders(headers: Readonly<Record<string, string>>): this {
    for (const name in headers) this.header(name, headers[name] ?? '')
    return this
  }

  /** A reply without a body (204 and 304 carry no Content-Length, as HTTP wants). */
  empty(status: number): void {
    if (status !== 204 && status !== 304) this.headers['content-length'] = '0'
    this.res.writeHead(status, this.headers)
    this.res.end()
  }

  /** A text body, UTF-8 plain text unless a Content-Type was set. */
  text(status: number, text: string, type = TEXT_TYPE): void {
    this.headers['content-type'] ??= type
    this.string(status, text)
  }

  /** A JSON text already serialized; `bytes`, its UTF-8 length, when the caller knows it. */
  json(status: number, json: string, bytes?: number): void {
    this.headers['content-type'] ??= JSON_TYPE
    this.string(status, json, bytes)
  }

  /**
   * A string body, handed to node:http as a string: it then goes out in one write with
   * the status line and headers (a Buffer body is a second chunk, a writev of two).
   */
  private string(status: number, text: string, bytes = Buffer.byteLength(text)): void {
    this.headers['content-length'] = String(bytes)
    this.res.writeHead(status, this.headers)
    this.res.end(text)
  }

  /** A body in one buffer (a HEAD request gets the headers only: node:http drops the body). */
  bytes(status: number, body: Buffer): void {
    this.headers['content-length'] = String(body.length)
    this.res.writeHead(status, this.headers)
    this.res.end(body)
  }

  /**
   * A streamed body whose Content-Length the caller set. The source is destroyed when
   * the client goes away; a source that fails mid-body cuts the connection, so a client
   * never takes a short body for the whole.
   */
  stream(status: number, body: Readable): void {
    this.res.writeHead(status, this.headers)
    if (this.res.req.method === 'HEAD') {
      body.destroy()
      this.res.end()
      return
    }
    pipeline(body, this.res, () => undefined)
  }
}
