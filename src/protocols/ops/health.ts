import type { FastifyInstance } from 'fastify'

/** The outcome of one readiness check, per dependency. */
export interface ReadinessReport {
  ready: boolean
  /**
   * 'ok' or 'failed' per dependency (database, blobs), or 'full' for blobs with no room
   * (still ready); the reasons go to the log only.
   */
  checks: Record<string, 'ok' | 'failed' | 'full'>
  /** Free space of the data folder's disk and the reserve, in bytes (a local disk only). */
  space?: { freeBytes: number; totalBytes: number; reserveBytes: number; low: boolean }
  /** Which document converter runs (libreoffice, docs or off) and a short description. */
  converter?: { kind: string; detail: string }
}

/** Asks the storage whether it can serve; provided by the composition root. */
export type ReadinessCheck = () => Promise<ReadinessReport>

/**
 * GET /healthz: 200 {"status":"ok"} while the process answers (no I/O); with several
 * processes (FOLIO_WORKERS) also `worker`, the number of the one that answered.
 * GET /readyz: 200 {"status":"ready", checks} when the checks pass, else 503
 * {"status":"unavailable", checks}; both with `space` (free, total and reserved bytes of the
 * data folder's disk, `low` below the reserve) when the blobs are on a local disk.
 * Both say which converter runs. Concurrent /readyz calls share one run of the checks.
 */
export function healthRoutes(check: ReadinessCheck, worker?: number) {
  let running: Promise<ReadinessReport> | undefined
  const once = (): Promise<ReadinessReport> => {
    running ??= check().finally(() => {
      running = undefined
    })
    return running
  }
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/healthz', async (_request, reply) => {
      reply.header('cache-control', 'no-store')
      return worker === undefined ? { status: 'ok' } : { status: 'ok', worker }
    })
    app.get('/readyz', async (_request, reply) => {
      const report = await once()
      reply.header('cache-control', 'no-store')
      reply.code(report.ready ? 200 : 503)
      return {
        status: report.ready ? 'ready' : 'unavailable',
        checks: report.checks,
        ...(report.space ? { space: report.space } : {}),
        ...(report.converter ? { converter: report.converter } : {}),
      }
    })
  }
}
