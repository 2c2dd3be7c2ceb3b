import type { FastifyInstance } from 'fastify'
import type { Logger } from '../../app/index.js'
import type { RawRequestObserver } from '../http/raw-routes.js'
import { healthRoutes, type ReadinessCheck } from './health.js'
import type { FolioMetrics } from './metrics.js'
import { metricsRoute } from './metrics-endpoint.js'
import { rawRequestFacts, requestFacts, type RequestFacts } from './request-facts.js'

export { healthRoutes, type ReadinessCheck, type ReadinessReport } from './health.js'
export type { FolioMetrics } from './metrics.js'
export { startMetricsListener, type MetricsListener } from './metrics-endpoint.js'

/** What the operations adapter needs from the composition root. */
export interface OpsOptions {
  /** The readiness check behind /readyz (database query, blob probe). */
  ready: ReadinessCheck
  /** Metrics to count into; undefined when metrics are off. */
  metrics?: FolioMetrics
  /** Serve /metrics on the main server (false when a separate listener serves it). */
  metricsOnMainServer: boolean
  /** Bearer token /metrics requires, if any. */
  metricsToken?: string
  /** This process's number when several serve the port (FOLIO_WORKERS), shown by /healthz. */
  worker?: number
}

/**
 * Hooks on the bare server, added before any route so they see every request: one
 * access log line per request at info (method, route pattern, status, duration in ms,
 * user id when known, bytes; never the URL, whose query may hold a token) and, when
 * metrics are on, the request counted.
 */
export function observeRequests(app: FastifyInstance, metrics: FolioMetrics | undefined): void {
  app.addHook('onResponse', async (request, reply) => {
    const facts = requestFacts(request, reply)
    logRequest(request.log, facts)
    metrics?.observe(request, facts)
  })
}

/** The access log line of one request. */
function logRequest(log: Pick<Logger, 'info'>, facts: RequestFacts): void {
  log.info(
    {
      method: facts.method,
      route: facts.route,
      status: facts.status,
      durationMs: facts.durationMs,
      userId: facts.userId,
      bytes: facts.bytes,
    },
    'request',
  )
}

/**
 * observeRequests for the routes answered on node:http before Fastify (the WOPI host):
 * the same access log line and counts. Undefined when neither is wanted (metrics off, the
 * log above info), so those routes then pay nothing per request for it.
 */
export function observeRawRequests(
  logger: Logger & { isLevelEnabled?: (level: string) => boolean },
  metrics: FolioMetrics | undefined,
): RawRequestObserver | undefined {
  const logs = logger.isLevelEnabled?.('info') ?? true
  if (!logs && metrics === undefined) return undefined
  return (req, res, { route, startedAt }) => {
    const facts = rawRequestFacts(req, res, route, startedAt)
    if (logs) logRequest(logger, facts)
    metrics?.observe(req, facts)
  }
}

/** Routes of the operations adapter: /healthz, /readyz and (when so configured) /metrics. */
export function opsRoutes(options: OpsOptions) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(healthRoutes(options.ready, options.worker))
    if (options.metrics && options.metricsOnMainServer) {
      await app.register(metricsRoute(options.metrics, options.metricsToken))
    }
  }
}
