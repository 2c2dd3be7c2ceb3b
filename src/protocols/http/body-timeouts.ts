import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** How long request bodies may take. */
export interface BodyTimeouts {
  /** Whole-body deadline for small parsed bodies (JSON, forms, text). */
  bodyTimeoutMs: number
  /** Longest pause between two bytes of any other body (uploads, PutFile, saves). */
  uploadIdleTimeoutMs: number
}

/** A client that sent its body too slowly: 408, and the connection is closed. */
export class BodyTimeoutError extends Error {
  readonly statusCode = 408
  readonly code = 'FOLIO_BODY_TIMEOUT'
  constructor(message: string) {
    super(message)
    this.name = 'BodyTimeoutError'
  }
}

/** Bodies Folio reads whole into memory (small by the body limit): they get a deadline. */
const PARSED_TYPE = /^\s*(?:application\/(?:[\w.+-]*\+)?json|application\/x-www-form-urlencoded|text\/)/i

/**
 * The route config of a route that reads every body whole into memory whatever its
 * Content-Type says (the ONLYOFFICE callback): its bodies get the whole-body deadline too,
 * so a label cannot buy a body more time than its size deserves.
 */
export const READS_BODY_WHOLE = { readsBodyWhole: true } as const

function readsBodyWhole(request: FastifyRequest): boolean {
  const config: unknown = request.routeOptions.config
  return typeof config === 'object' && config !== null && 'readsBodyWhole' in config && config.readsBodyWhole === true
}

function expectsBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  if (length !== undefined) return length.trim() !== '0'
  return req.headers['transfer-encoding'] !== undefined
}

/**
 * Guards every request with a body against clients that send it slowly (slowloris):
 * a small parsed body (JSON, form, text, or any body of a READS_BODY_WHOLE route) must
 * arrive whole within bodyTimeoutMs, and
 * any body must not pause for uploadIdleTimeoutMs (a large upload may take as long as
 * it needs while bytes keep coming). Either way the client gets 408 and the connection
 * is closed. Nothing runs once the body has been read. A client that closes the
 * connection mid-body is logged in one line at info.
 */
export function guardBodyTimes(app: FastifyInstance, timeouts: BodyTimeouts): void {
  app.addHook('onRequest', (request, reply, done) => {
    const req = request.raw
    if (!expectsBody(req)) {
      done()
      return
    }
    // A body read whole has a deadline, by its Content-Type or by its route's say-so.
    const parsed = PARSED_TYPE.test(req.headers['content-type'] ?? '') || readsBodyWhole(request)
    // Without the query: it may hold a token.
    const facts = { method: req.method, path: request.url.split('?')[0] }
    watchBody(req, reply.raw, {
      deadline: parsed,
      timeouts,
      expired: (error) => refuse(request, reply, parsed, error),
      abandoned: () => request.log.info(facts, CLIENT_LEFT),
    })
    done()
  })
}

/** What a body watch does when the body times out or the client leaves mid-body. */
interface BodyWatch {
  /** A whole-body deadline of bodyTimeoutMs (small bodies read whole), on top of the idle one. */
  deadline: boolean
  timeouts: BodyTimeouts
  expired(error: BodyTimeoutError): void
  abandoned(): void
}

/** Routine (a closed tab, a lost network): one line at info, no stack. */
const CLIENT_LEFT = 'the client closed the connection before its request body was complete'

/**
 * The timers of one request's body, for Fastify routes and raw routes alike: the idle
 * timeout between bytes, the whole-body deadline when asked, both stopped once the body
 * has arrived or the exchange is over.
 */
function watchBody(req: IncomingMessage, res: ServerResponse, watch: BodyWatch): void {
  let settled = false
  const stop = (bodyEnded: boolean): void => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    req.removeListener('timeout', onIdle)
    res.removeListener('timeout', onIdleWhenComplete)
    // Only while the body is still the socket's business: after the response Node
    // uses the socket's timeout for keep-alive.
    if (bodyEnded) req.socket.setTimeout(0)
  }
  const expire = (why: string): void => {
    if (settled) return
    stop(false)
    watch.expired(new BodyTimeoutError(why))
  }
  const timer = watch.deadline
    ? setTimeout(() => expire('the request body did not arrive in time'), watch.timeouts.bodyTimeoutMs)
    : undefined
  timer?.unref()
  const onIdle = (): void => expire('the request body stalled')
  // The whole body has arrived (the app is still reading it): not the client's fault.
  const onIdleWhenComplete = (): void => stop(true)
  req.setTimeout(watch.timeouts.uploadIdleTimeoutMs, onIdle)
  res.on('timeout', onIdleWhenComplete)
  req.once('end', () => stop(true))
  res.once('close', () => {
    if (!settled && !req.complete) watch.abandoned()
    stop(false)
  })
}

/** Answers 408 with Connection: close, and makes whatever is reading the body give up. */
function refuse(request: FastifyRequest, reply: FastifyReply, parsed: boolean, error: BodyTimeoutError): void {
  const req = request.raw
  // Routine for a server on the internet: one line, no stack, and the query (it may hold
  // a token) left out.
  request.log.info({ method: req.method, path: request.url.split('?')[0] }, error.message)
  // A body parser still waiting on a parsed body: hand it the error, and the protocol's
  // error handler answers 408 in its own format (Fastify closes the connection).
  if (parsed && !req.readableEnded && req.listenerCount('error') > 0) {
    reply.header('connection', 'close')
    req.emit('error', error)
    return
  }
  // The route's own handler fails next, on a request already answered; Fastify would log
  // that at error level with a stack. This request has nothing more worth logging.
  request.log.level = 'silent'
  answerTimeout(req, reply.raw, error)
}

/** Where a raw route's body guard logs (the application's logger). */
interface InfoLogger {
  info(facts: object, message: string): void
}

/**
 * guardBodyTimes for a request answered outside Fastify (raw-routes.ts): the same rules,
 * with the route saying whether the body is a small one read whole (`deadline`: it must
 * arrive within bodyTimeoutMs) or an upload (only the idle timeout). A body that times out
 * is answered 408 with Connection: close here, and the request is destroyed with the
 * error, so whatever reads it stops and keeps nothing. Does nothing for a request without
 * a body.
 */
export function guardRawBody(
  req: IncomingMessage,
  res: ServerResponse,
  deadline: boolean,
  timeouts: BodyTimeouts,
  logger: InfoLogger,
): void {
  if (!expectsBody(req)) return
  const facts = { method: req.method, path: (req.url ?? '').split('?')[0] }
  watchBody(req, res, {
    deadline,
    timeouts,
    expired: (error) => {
      logger.info(facts, error.message)
      answerTimeout(req, res, error)
    },
    abandoned: () => logger.info(facts, CLIENT_LEFT),
  })
}

/**
 * 408 with Connection: close (unless an answer already went out), then the request ends
 * with the error, so whatever consumes the body stops and keeps nothing.
 */
function answerTimeout(req: IncomingMessage, res: ServerResponse, error: BodyTimeoutError): void {
  const end = (): void => {
    req.destroy(error)
  }
  if (res.headersSent) {
    end()
    return
  }
  const body = JSON.stringify({ statusCode: 408, error: 'Request Timeout', message: error.message })
  res.writeHead(408, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  })
  res.end(body, end)
}
