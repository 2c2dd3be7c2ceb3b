/**
 * What a route that bypasses Fastify (raw-routes.ts) knows of its request: the raw
 * message and the few things derived from it, each computed only when asked for.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring'

export class RawRequest {
  readonly method: string
  readonly headers: IncomingHttpHeaders
  /** The request target exactly as sent: path and query string. */
  readonly url: string
  /** The path, before '?'. */
  readonly path: string
  private parsedQuery: ParsedUrlQuery | undefined

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

  /** The query string's parameters; a repeated one is an array. */
  get query(): ParsedUrlQuery {
    if (this.parsedQuery === undefined) {
      const mark = this.url.indexOf('?')
      this.parsedQuery = mark === -1 ? {} : parseQuery(this.url.slice(mark + 1))
    }
    return this.parsedQuery
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
