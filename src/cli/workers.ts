import cluster from 'node:cluster'
import { collectStartUpGarbage } from '../process/collector.js'
import { startHousekeeping } from '../app/maintenance/garbage-collection.js'
import { createApp } from '../app/create-app.js'
import type { Config } from '../config/load.js'
import { errorMessage } from '../core/ids.js'
import { createContext, createLogger, ensureAdminAccount, openStorage, startFolio, type RunningFolio } from '../main.js'

/** How long a stopping primary waits for its workers to finish their requests. */
const STOP_GRACE_MS = 30_000

/**
 * `folio serve` with FOLIO_WORKERS above 1: one primary process and that many workers
 * (node:cluster) serving one port over the same storage.
 *
 * Nothing one process holds is needed by another: sessions, locks, the sign-in throttle
 * and the signing secret live in the store (SQLite in WAL mode, or PostgreSQL), each
 * process keeps only caches of what cannot change under it (verified token signatures,
 * the WOPI discovery). What must happen once happens in the primary before any worker
 * starts: migrations, the signing secret and the admin account; the primary also runs
 * the housekeeping, so it runs once whatever the number of workers.
 */
export async function serveWithWorkers(config: Config): Promise<void> {
  if (cluster.isWorker) {
    await runWorker(config)
    return
  }
  await runPrimary(config)
}

async function runWorker(config: Config): Promise<void> {
  let folio: RunningFolio
  try {
    folio = await startFolio(config, { worker: cluster.worker?.id ?? 0 })
  } catch (error) {
    // The channel to the primary would keep this process alive: exit, so the primary
    // sees a worker that never served and stops rather than wait.
    process.stderr.write(`folio: worker ${cluster.worker?.id ?? 0}: ${errorMessage(error)}\n`)
    process.exit(1)
  }
  collectStartUpGarbage()
  let stopping = false
  const stop = async (reason: string) => {
    if (stopping) return
    stopping = true
    folio.ctx.logger.info({ reason, worker: cluster.worker?.id }, 'worker shutting down')
    await folio.close()
    process.exit(0)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
  // The primary is gone (killed): finish what is under way rather than linger.
  process.once('disconnect', () => void stop('primary gone'))
}

async function runPrimary(config: Config): Promise<void> {
  const logger = createLogger(config)
  // Done once, before any worker opens the store: migrations, signing secret, admin.
  const storage = await openStorage(config, logger)
  const ctx = await createContext(config, storage, { logger })
  await ensureAdminAccount(createApp(ctx), config, logger)
  const housekeeping = startHousekeeping(ctx)
  // prom-client is loaded only when metrics are on, here as in the workers.
  if (config.metrics.enabled) (await import('../protocols/ops/cluster-metrics.js')).answerWorkerScrapes()

  let stopping = false
  const serving = new Set<number>()
  const stop = async (code: number, reason: string) => {
    if (stopping) return
    stopping = true
    logger.info({ reason }, 'shutting down')
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined)
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve()
            const timer = setTimeout(() => worker.process.kill('SIGKILL'), STOP_GRACE_MS)
            worker.once('exit', () => {
              clearTimeout(timer)
              resolve()
            })
            worker.process.kill('SIGTERM')
          }),
      ),
    )
    await housekeeping.stop()
    await storage.store.close()
    await storage.blobs.close?.()
    process.exit(code)
  }
  process.once('SIGINT', () => void stop(0, 'SIGINT'))
  process.once('SIGTERM', () => void stop(0, 'SIGTERM'))

  const allListening = new Promise<void>((resolve, reject) => {
    cluster.on('listening', (worker) => {
      serving.add(worker.id)
      if (serving.size === config.workers) resolve()
    })
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return
      if (!serving.delete(worker.id)) {
        // It never served: a start that fails (port taken, storage refused) fails the same
        // way in every worker, so starting another would only loop.
        reject(new Error(`worker ${worker.id} stopped before it served (exit code ${code ?? signal})`))
        return
      }
      logger.error({ worker: worker.id, code, signal }, 'a worker stopped; starting another')
      cluster.fork()
    })
  })
  for (let i = 0; i < config.workers; i++) cluster.fork()
  try {
    await allListening
  } catch (error) {
    logger.error({ err: error }, 'Folio could not start its workers')
    await stop(1, 'a worker failed to start')
    return
  }
  logger.info({ workers: config.workers, pid: process.pid }, 'all workers are serving')
}
