/**
 * Routes served on node:http directly, before Fastify: the WOPI host's hot path (every
 * editor polls it) skips Fastify's per-request routing, hooks, reply object and onSend
 * chain (about a tenth of the CPU of a CheckFileInfo or a lock call, measured with
 * bench/cpu-per-request.ts). A raw route owns a path prefix; every other request goes to
 * Fastify as before.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { TEXT_TYPE } from './raw-reply.js'

/** What the access log and the metrics learn of a request answered by a raw route. */
export interface RawRequestFacts {
  /** Route pattern ('/wopi/files/:fileId'), or '(unmatched)'. */
  route: string
  /** performance.now() when the request arrived. */
  startedAt: number
}

/** Called once per answered request (access log, metrics); absent when nobody listens. */
export type RawRequestObserver = (req: IncomingMessage, res: ServerResponse, facts: RawRequestFacts) => void

/** One raw route: the requests whose path starts with `prefix` (exactly `prefix` included). */
export interface RawRoute {
  /** '/wopi' serves '/wopi' and '/wopi/...', never '/wopi-host'. */
  prefix: string
  /**
   * Answers the request (asynchronously as it likes, never throwing) and returns the route
   * pattern it matched, for the observer.
   */
  handle(req: IncomingMessage, res: ServerResponse): string
  /** False when what answers the route writes its own access log and metrics (lazy-mount.ts). */
  observed?: boolean
}

/** Requests wait for this before any raw route sees them (main.ts: the admin account). */
export interface RequestGate {
  isOpen(): boolean
  opened: Promise<void>
}

export interface RawDispatchOptions {
  routes: readonly RawRoute[]
  observe?: RawRequestObserver
  gate?: RequestGate
  /** True once the server is closing: raw routes then answer 503, as Fastify does. */
  closing: () => boolean
}

/** The last-resort answer when what serves a route failed before answering. */
export function answerInternalError(res: ServerResponse): void {
  const body = 'internal server error'
  if (!res.headersSent) res.writeHead(500, { 'content-type': TEXT_TYPE, 'content-length': String(body.length) })
  res.end(body)
}

function owns(prefix: string, url: string): boolean {
  if (!url.startsWith(prefix)) return false
  const next = url.charCodeAt(prefix.length)
  // End of the URL, '/' or '?'.
  return Number.isNaN(next) || next === 47 || next === 63
}

/**
 * The request listener for the node:http server: a raw route's request is answered here,
 * anything else goes to `fallback` (Fastify's handler).
 */
export function rawDispatcher(
  options: RawDispatchOptions,
  fallback: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { routes, observe, gate, closing } = options
  const serve = (route: RawRoute, req: IncomingMessage, res: ServerResponse): void => {
    if (closing()) {
      const body = 'the server is shutting down'
      res.writeHead(503, { 'content-type': TEXT_TYPE, 'content-length': String(body.length), connection: 'close' })
      res.end(body)
      return
    }
    const startedAt = observe ? performance.now() : 0
    let pattern: string
    try {
      pattern = route.handle(req, res)
    } catch {
      // A route's own failures are answered by the route; this is the last resort.
      answerInternalError(res)
      return
    }
    if (observe && route.observed !== false) {
      const facts = { route: pattern, startedAt }
      res.once('finish', () => observe(req, res, facts))
    }
  }
  return (req, res) => {
    const url = req.url ?? '/'
    for (const route of routes) {
      if (!owns(route.prefix, url)) continue
      if (gate === undefined || gate.isOpen()) serve(route, req, res)
      else void gate.opened.then(() => serve(route, req, res))
      return
    }
    fallback(req, res)
  }
}
