import { createServer, type Server } from 'node:http'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { AdapterContext } from '../../app/index.js'
import { guardBodyTimes } from './body-timeouts.js'
import { sendProblemPage, wantsPage } from './error-page.js'
import { lazyMount, type ReadyHandler } from './lazy-mount.js'
import { rawDispatcher, type RawRequestObserver, type RawRoute, type RequestGate } from './raw-routes.js'

/** Idle kept-alive connections close after this; editors keep theirs open between calls. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000

/** Protocol adapters the composition root mounts (portal, WOPI, callback, web UI). */
export type HttpPlugin = (app: FastifyInstance) => Promise<void>

export interface HttpServerOptions {
  logger: FastifyBaseLogger
  /** Mounted in order at the root; each owns its prefix. */
  plugins?: HttpPlugin[]
  /** Called on the bare server before any route, so hooks it adds see every request. */
  observe?: (app: FastifyInstance) => void
  /** Routes answered on node:http before Fastify (the WOPI host), each owning a prefix. */
  rawRoutes?: RawRoute[]
  /** Told of every request a raw route answered (access log, metrics). */
  observeRaw?: RawRequestObserver
  /** No request is answered before it opens (raw routes wait in the dispatcher, Fastify's in a hook). */
  gate?: RequestGate
  /**
   * Adapters built on the first request under their prefix, each in a Fastify instance of
   * its own with the same settings and hooks (lazy-mount.ts); `load` returns the plugin,
   * mounted at the root of that instance.
   */
  lazyPlugins?: Array<{ prefix: string; load: () => Promise<HttpPlugin> }>
}

/**
 * Assembles the HTTP server: shared settings, observers, and the protocol plugins.
 */
export async function buildHttpServer(ctx: AdapterContext, options: HttpServerOptions): Promise<FastifyInstance> {
  let closing = false
  const lazy = (options.lazyPlugins ?? []).map(({ prefix, load }) =>
    lazyMount(
      prefix,
      async () => {
        // Fastify wants a server; this one never listens; node:http hands it requests.
        let handler: ReadyHandler | undefined
        const instance = createFastify(ctx, options, (ready) => {
          handler = ready
          return createServer()
        })
        await instance.register(await load())
        await instance.ready()
        if (handler === undefined) throw new Error('Fastify made no request listener')
        return { handler, close: () => instance.close() }
      },
      (error) => options.logger.error({ err: error, prefix }, 'could not build the routes under this prefix'),
    ),
  )
  const rawRoutes = [...(options.rawRoutes ?? []), ...lazy]
  // The node:http server is made here so that raw routes see requests before Fastify.
  // Fastify applies its timeouts only to a server it makes itself; they are set here.
  const app = createFastify(
    ctx,
    options,
    rawRoutes.length > 0
      ? (fastifyHandler) => {
          const server = createServer(
            rawDispatcher(
              {
                routes: rawRoutes,
                closing: () => closing,
                ...(options.observeRaw ? { observe: options.observeRaw } : {}),
                ...(options.gate ? { gate: options.gate } : {}),
              },
              fastifyHandler,
            ),
          )
          server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
          server.requestTimeout = 0
          server.setTimeout(0)
          return server
        }
      : undefined,
  )
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  app.addHook('onClose', async () => {
    for (const mount of lazy) await mount.close()
  })
  for (const plugin of options.plugins ?? []) await app.register(plugin)
  return app
}

/**
 * A Fastify instance with Folio's settings and the hooks every request passes (body
 * timeouts, the observers, the request gate, the not-found answer): the main one, and
 * each lazily built one, so that a request is treated alike whichever instance answers.
 */
function createFastify(
  ctx: AdapterContext,
  options: HttpServerOptions,
  serverFactory: ((handler: ReadyHandler) => Server) | undefined,
): FastifyInstance {
  const app = Fastify({
    ...(serverFactory ? { serverFactory } : {}),
    loggerInstance: options.logger,
    // Per-request log lines cost time on every WOPI call; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: ctx.config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Editors keep connections open; make idle ones close in good time.
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // No total request deadline (a large upload may take long); guardBodyTimes bounds
    // small bodies by a deadline and every body by an idle timeout instead.
    requestTimeout: 0,
    return503OnClosing: true,
  })
  guardBodyTimes(app, {
    bodyTimeoutMs: ctx.config.bodyTimeoutMs,
    uploadIdleTimeoutMs: ctx.config.uploadIdleTimeoutMs,
  })
  options.observe?.(app)
  const gate = options.gate
  if (gate) {
    // Once open, the gate is one flag test (no promise per request).
    app.addHook('onRequest', (_request, _reply, done) => {
      if (gate.isOpen()) done()
      else void gate.opened.then(() => done())
    })
  }
  // A browser that opens an unknown address gets a page with a way back; programs get
  // Fastify's usual JSON. Adapters with their own wire format (the portal API) set their own.
  app.setNotFoundHandler((request, reply) => {
    if (wantsPage(request.method, request.headers.accept)) return sendProblemPage(reply, 'UNKNOWN_PATH')
    return reply.code(404).send({
      message: `Route ${request.method}:${request.url.split('?')[0] ?? ''} not found`,
      error: 'Not Found',
      statusCode: 404,
    })
  })
  return app
}
