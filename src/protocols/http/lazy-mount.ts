import type { IncomingMessage, ServerResponse } from 'node:http'
import { answerInternalError, type RawRoute } from './raw-routes.js'

/** A request listener of a Fastify instance made ready (its routes all registered). */
export type ReadyHandler = (req: IncomingMessage, res: ServerResponse) => void

/** An adapter served on node:http under `prefix`, built on its first request. */
export interface LazyMount extends RawRoute {
  /** Closes what was built (nothing when no request ever came). */
  close(): Promise<void>
}

/**
 * Serves `prefix` with an adapter that is only built when its first request arrives, so
 * that an idle Folio does not hold its routes (the portal API's hundred routes and their
 * schemas are about 2 MiB resident; BENCHMARKS.md, scenario 7). Fastify takes no route
 * once it serves, so `build` makes a Fastify instance of the adapter's own and returns its
 * request listener; it runs once: concurrent first requests wait for the same build, and
 * every later request goes straight to the listener. A build that fails answers 500 and
 * is tried again by the next request.
 */
export function lazyMount(
  prefix: string,
  build: () => Promise<{ handler: ReadyHandler; close(): Promise<void> }>,
  onBuildError: (error: unknown) => void,
): LazyMount {
  let handler: ReadyHandler | undefined
  let building: Promise<{ handler: ReadyHandler; close(): Promise<void> }> | undefined
  const pattern = `${prefix}/*`
  return {
    prefix,
    // The adapter's own Fastify instance writes the access log line and the metrics.
    observed: false,
    handle(req, res) {
      if (handler) {
        handler(req, res)
        return pattern
      }
      building ??= build()
      building.then(
        (built) => {
          handler = built.handler
          built.handler(req, res)
        },
        (error: unknown) => {
          building = undefined
          onBuildError(error)
          answerInternalError(res)
        },
      )
      return pattern
    },
    async close() {
      const pending = building
      if (pending === undefined) return
      await (await pending.catch(() => undefined))?.close()
    },
  }
}
