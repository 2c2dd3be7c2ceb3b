import { createHash, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import type { FolioMetrics } from './metrics.js'

/** What a /metrics answer needs: the text of a scrape and its content type. */
type Scrapeable = Pick<FolioMetrics, 'registry' | 'scrape'>

/** True when the Authorization header is `Bearer <token>` (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  if (!match?.[1]) return false
  const digest = (text: string) => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(match[1]), digest(token))
}

/**
 * GET /metrics on the main server: the registry in the Prometheus text format, 401 with
 * `WWW-Authenticate: Bearer` unless the request carries `Authorization: Bearer <token>`.
 */
export function metricsRoute(metrics: Scrapeable, token: string | undefined) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/metrics', async (request, reply) => {
      reply.header('cache-control', 'no-store')
      if (!bearerMatches(request.headers.authorization, token)) {
        reply.code(401).header('www-authenticate', 'Bearer realm="metrics"')
        return { status: 'unauthorized' }
      }
      reply.type(metrics.registry.contentType)
      return metrics.scrape()
    })
  }
}

/** A running listener of its own that serves only /metrics. */
export interface MetricsListener {
  /** http://host:port of the listener. */
  url: string
  close(): Promise<void>
}

/**
 * Listens on host:port and answers GET /metrics (with the bearer token when one is set;
 * else 401); every other path is 404. Rejects when the address cannot be bound.
 */
export function startMetricsListener(
  metrics: Scrapeable,
  address: { host: string; port: number },
  token: string | undefined,
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    void answer(metrics, token, request, response)
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(address.port, address.host, () => {
      server.off('error', reject)
      const bound = server.address()
      const port = typeof bound === 'object' && bound ? bound.port : address.port
      const host = address.host.includes(':') ? `[${address.host}]` : address.host
      resolve({
        url: `http://${host}:${port}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done())
            server.closeAllConnections()
          }),
      })
    })
  })
}

async function answer(
  metrics: Scrapeable,
  token: string | undefined,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = (request.url ?? '').split('?')[0]
  if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n')
    return
  }
  if (!bearerMatches(request.headers.authorization, token)) {
    response
      .writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="metrics"' })
      .end('unauthorized\n')
    return
  }
  try {
    const text = await metrics.scrape()
    response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(text)
  } catch {
    response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed\n')
  }
}
