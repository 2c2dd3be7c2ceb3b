import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.js'
import { portalApi } from '../portal/index.js'

/** Protocol adapters a composition root may add beside the portal (WOPI, callback, web UI). */
export type HttpPlugin = (app: FastifyInstance) => Promise<void>

export interface HttpServerOptions {
  logger: FastifyBaseLogger
  /** Mounted at the root after the portal; each owns its prefix. */
  plugins?: HttpPlugin[]
}

/**
 * Assembles the HTTP server: shared settings, health check, the portal API
 * under /api/2.0 and any further protocol plugins.
 */
export async function buildHttpServer(
  ctx: AppContext,
  options: HttpServerOptions,
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger,
    // Per-request log lines cost time on every WOPI call; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: ctx.config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Editors keep connections open; make idle ones close in good time.
    keepAliveTimeout: 65_000,
    requestTimeout: 0,
    return503OnClosing: true,
  })
  app.get('/healthz', async () => ({ status: 'ok' }))
  await app.register(portalApi(ctx), { prefix: '/api/2.0' })
  for (const plugin of options.plugins ?? []) await app.register(plugin)
  return app
}
