/**
 * What a route that bypasses Fastify (raw-routes.ts) knows of its request: the raw
 * message and the few things derived from it, each computed only when asked for.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { parse as parseQuery } from 'node:querystring'

/** querystring.parse's maxKeys: pairs after the first 1000 are ignored, empty ones included. */
const MAX_QUERY_PAIRS = 1000

export class RawRequest {
  readonly method: string
  readonly headers: IncomingHttpHeaders
  /** The request target exactly as sent: path and query string. */
  readonly url: string
  /** The path, before '?'. */
  readonly path: string

  constructor(
    readonly raw: IncomingMessage,
    /** FOLIO_TRUST_PROXY: X-Forwarded-For/-Proto/-Host describe the client. */
    private readonly trustProxy: boolean,
  ) {
    this.method = raw.method ?? 'GET'
    this.headers = raw.headers
    this.url = raw.url ?? '/'
    const mark = this.url.indexOf('?')
    this.path = mark === -1 ? this.url : this.url.slice(0, mark)
  }

  /**
   * One query parameter exactly as querystring.parse reads it (a repeated one is an array,
   * undefined when absent). A query with nothing to decode (no '%' or '+', as WOPI clients
   * send the token) is scanned for that name alone: parsing every parameter into an object
   * was a few per cent of a WOPI call's CPU, for the one token. Any other query is parsed.
   */
  queryParam(name: string): string | string[] | undefined {
    const url = this.url
    const mark = url.indexOf('?')
    if (mark === -1) return undefined
    if (url.includes('%', mark) || url.includes('+', mark)) return parseQuery(url.slice(mark + 1))[name]
    let found: string | string[] | undefined
    let start = mark + 1
    // The next '=' at or after `start` (-1: none left), searched again only once passed,
    // so a long query without '=' is scanned once, not once per pair.
    let equals = url.indexOf('=', start)
    for (let pairs = 0; pairs < MAX_QUERY_PAIRS && start < url.length; pairs++) {
      let end = url.indexOf('&', start)
      if (end === -1) end = url.length
      if (equals !== -1 && equals < start) equals = url.indexOf('=', start)
      const keyEnd = equals !== -1 && equals < end ? equals : end
      if (end > start && keyEnd - start === name.length && url.startsWith(name, start)) {
        const value = keyEnd === end ? '' : url.slice(keyEnd + 1, end)
        found = found === undefined ? value : typeof found === 'string' ? [found, value] : [...found, value]
      }
      start = end + 1
    }
    return found
  }

  /**
   * The client's address: the socket's peer, or with FOLIO_TRUST_PROXY the first address
   * of X-Forwarded-For (every hop trusted, as Fastify's trustProxy: true does).
   */
  get ip(): string | undefined {
    if (this.trustProxy) {
      const forwarded = firstOf(this.headers['x-forwarded-for'])
      if (forwarded !== undefined) return forwarded
    }
    return this.raw.socket.remoteAddress
  }

  /** The scheme the client used: the proxy's X-Forwarded-Proto when trusted. */
  get protocol(): string {
    if (this.trustProxy) {
      const forwarded = lastOf(this.headers['x-forwarded-proto'])
      if (forwarded !== undefined) return forwarded
    }
    return 'encrypted' in this.raw.socket && this.raw.socket.encrypted === true ? 'https' : 'http'
  }

  /** The host the client asked for: the proxy's X-Forwarded-Host when trusted. */
  get host(): string {
    if (this.trustProxy) {
      const forwarded = lastOf(this.headers['x-forwarded-host'])
      if (forwarded !== undefined) return forwarded
    }
    return this.headers.host ?? ''
  }
}

/** The first entry of a comma-separated header ('' entries skipped), undefined when none. */
function firstOf(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value.join(',') : value
  if (!text) return undefined
  for (const part of text.split(',')) {
    const entry = part.trim()
    if (entry !== '') return entry
  }
  return undefined
}

/** The last entry of a header a proxy may have appended to. */
function lastOf(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value.join(',') : value
  if (!text) return undefined
  const entry = text.slice(text.lastIndexOf(',') + 1).trim()
  return entry === '' ? undefined : entry
}
