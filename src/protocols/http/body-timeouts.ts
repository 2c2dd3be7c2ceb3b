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

function expectsBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  if (length !== undefined) return length.trim() !== '0'
  return req.headers['transfer-encoding'] !== undefined
}

/**
 * Guards every request with a body against clients that send it slowly (slowloris):
 * a small parsed body (JSON, form, text) must arrive whole within bodyTimeoutMs, and
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
    const parsed = PARSED_TYPE.test(req.headers['content-type'] ?? '')
    let settled = false
    const stop = (bodyEnded: boolean): void => {
      if (settled) return
      settled = true
      clearTimeout(deadline)
      req.removeListener('timeout', onIdle)
      reply.raw.removeListener('timeout', onIdleWhenComplete)
      // Only while the body is still the socket's business: after the response Node
      // uses the socket's timeout for keep-alive.
      if (bodyEnded) req.socket.setTimeout(0)
    }
    const expire = (why: string): void => {
      if (settled) return
      stop(false)
      refuse(request, reply, parsed, new BodyTimeoutError(why))
    }
    const deadline = parsed
      ? setTimeout(() => expire('the request body did not arrive in time'), timeouts.bodyTimeoutMs)
      : undefined
    deadline?.unref()
    const onIdle = (): void => expire('the request body stalled')
    // The whole body has arrived (the app is still reading it): not the client's fault.
    const onIdleWhenComplete = (): void => stop(true)
    req.setTimeout(timeouts.uploadIdleTimeoutMs, onIdle)
    reply.raw.on('timeout', onIdleWhenComplete)
    req.once('end', () => stop(true))
    reply.raw.once('close', () => {
      // Routine (a closed tab, a lost network): one line at info, no stack.
      if (!settled && !req.complete) {
        request.log.info(
          { method: req.method, path: request.url.split('?')[0] },
          'the client closed the connection before its request body was complete',
        )
      }
      stop(false)
    })
    done()
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
  // A stream being consumed (an upload): answer here, then end the request with the
  // error, so its consumer stops and keeps nothing, and the connection closes.
  const end = (): void => {
    req.destroy(error)
  }
  // The route's own handler fails next, on a request already answered; Fastify would log
  // that at error level with a stack. This request has nothing more worth logging.
  request.log.level = 'silent'
  if (reply.raw.headersSent) {
    end()
    return
  }
  const body = JSON.stringify({ statusCode: 408, error: 'Request Timeout', message: error.message })
  reply.raw.writeHead(408, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  })
  reply.raw.end(body, end)
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
  const path = (req.url ?? '').split('?')[0]
  let settled = false
  const stop = (bodyEnded: boolean): void => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    req.removeListener('timeout', onIdle)
    res.removeListener('timeout', onIdleWhenComplete)
    if (bodyEnded) req.socket.setTimeout(0)
  }
  const expire = (why: string): void => {
    if (settled) return
    stop(false)
    const error = new BodyTimeoutError(why)
    logger.info({ method: req.method, path }, error.message)
    answerTimeout(req, res, error)
  }
  const timer = deadline
    ? setTimeout(() => expire('the request body did not arrive in time'), timeouts.bodyTimeoutMs)
    : undefined
  timer?.unref()
  const onIdle = (): void => expire('the request body stalled')
  const onIdleWhenComplete = (): void => stop(true)
  req.setTimeout(timeouts.uploadIdleTimeoutMs, onIdle)
  res.on('timeout', onIdleWhenComplete)
  req.once('end', () => stop(true))
  res.once('close', () => {
    if (!settled && !req.complete) {
      logger.info({ method: req.method, path }, 'the client closed the connection before its request body was complete')
    }
    stop(false)
  })
}

/** 408 (unless an answer already went out), then the request ends with the error. */
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
