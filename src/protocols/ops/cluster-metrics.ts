import cluster, { type Worker } from 'node:cluster'
import { AggregatorRegistry, type Registry } from 'prom-client'
import type { FolioMetrics } from './metrics.js'

/**
 * Metrics with FOLIO_WORKERS above 1. A scrape reaches one worker (connections are handed
 * out in turn), yet must report the whole port: that worker asks the primary, the primary
 * collects the registry of every worker that is serving and aggregates them with
 * prom-client's rules (counters and histograms summed, per-metric aggregators otherwise),
 * and sends the text back.
 *
 * The primary asks only workers that are listening, and gives each a short time: a worker
 * still starting (one replacing a killed worker) has no figures yet and cannot answer, and
 * one that dies mid-scrape never will. Either is left out of that scrape rather than
 * failing it. prom-client's own cluster aggregation asks every forked worker and fails the
 * whole scrape after 5 s when one is silent, so only its aggregation rules are used here.
 */

const SCRAPE_REQUEST = 'folio:metrics-scrape'
const SCRAPE_REPLY = 'folio:metrics-text'
const COLLECT_REQUEST = 'folio:metrics-collect'
const COLLECT_REPLY = 'folio:metrics-json'
/** How long the primary waits for one worker's registry before leaving it out. */
const COLLECT_TIMEOUT_MS = 2_000
/** How long the asking worker waits for the primary's text (longer than one collection). */
const SCRAPE_TIMEOUT_MS = 8_000

interface ScrapeRequest {
  type: typeof SCRAPE_REQUEST
  id: number
}

interface ScrapeReply {
  type: typeof SCRAPE_REPLY
  id: number
  text?: string
  error?: string
}

interface CollectRequest {
  type: typeof COLLECT_REQUEST
  id: number
}

interface CollectReply {
  type: typeof COLLECT_REPLY
  id: number
  metrics?: RegistryJson
}

/** One worker's registry as JSON, the form prom-client aggregates. */
type RegistryJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === type
}

/**
 * In a worker: hands this worker's registry to the primary when it collects, and returns
 * the metrics with a scrape that answers for every serving worker.
 */
export function scrapeAcrossWorkers(metrics: FolioMetrics): FolioMetrics {
  let nextId = 0
  const waiting = new Map<number, { resolve(text: string): void; reject(error: Error): void }>()
  process.on('message', (message: unknown) => {
    if (isMessage<CollectRequest>(message, COLLECT_REQUEST)) {
      metrics.registry.getMetricsAsJSON().then(
        (json) => process.send?.({ type: COLLECT_REPLY, id: message.id, metrics: json } satisfies CollectReply),
        () => process.send?.({ type: COLLECT_REPLY, id: message.id } satisfies CollectReply),
      )
      return
    }
    if (!isMessage<ScrapeReply>(message, SCRAPE_REPLY)) return
    const pending = waiting.get(message.id)
    if (!pending) return
    waiting.delete(message.id)
    if (typeof message.text === 'string') pending.resolve(message.text)
    else pending.reject(new Error(message.error ?? 'the primary could not collect the metrics'))
  })
  const scrape = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const id = nextId++
      const timer = setTimeout(() => {
        waiting.delete(id)
        reject(new Error('the primary did not answer the metrics scrape in time'))
      }, SCRAPE_TIMEOUT_MS)
      waiting.set(id, {
        resolve: (text) => {
          clearTimeout(timer)
          resolve(text)
        },
        reject: (error) => {
          clearTimeout(timer)
          reject(error)
        },
      })
      const request: ScrapeRequest = { type: SCRAPE_REQUEST, id }
      process.send?.(request)
    })
  return { ...metrics, scrape }
}

/** In the primary: answers the workers' scrapes with every serving worker's metrics, aggregated. */
export function answerWorkerScrapes(): void {
  const serving = new Set<Worker>()
  cluster.on('listening', (worker) => serving.add(worker))
  cluster.on('exit', (worker) => serving.delete(worker))

  let nextId = 0
  /** Collections under way, by id: each settles with the registry or undefined (left out). */
  const collecting = new Map<number, (metrics: RegistryJson | undefined) => void>()
  cluster.on('message', (_worker, message: unknown) => {
    if (isMessage<CollectReply>(message, COLLECT_REPLY)) collecting.get(message.id)?.(message.metrics)
  })

  const collectFrom = (worker: Worker): Promise<RegistryJson | undefined> =>
    new Promise((resolve) => {
      const id = nextId++
      const settle = (metrics: RegistryJson | undefined) => {
        collecting.delete(id)
        clearTimeout(timer)
        worker.off('exit', gone)
        resolve(metrics)
      }
      const gone = () => settle(undefined)
      const timer = setTimeout(gone, COLLECT_TIMEOUT_MS)
      collecting.set(id, settle)
      worker.once('exit', gone)
      if (!worker.isConnected()) return gone()
      worker.send({ type: COLLECT_REQUEST, id } satisfies CollectRequest)
    })

  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage<ScrapeRequest>(message, SCRAPE_REQUEST)) return
    const send = (reply: ScrapeReply) => {
      if (worker.isConnected()) worker.send(reply)
    }
    Promise.all([...serving].map(collectFrom))
      .then((collected) => AggregatorRegistry.aggregate(collected.filter((m) => m !== undefined)).metrics())
      .then(
        (text) => send({ type: SCRAPE_REPLY, id: message.id, text }),
        (error: unknown) =>
          send({ type: SCRAPE_REPLY, id: message.id, error: error instanceof Error ? error.message : String(error) }),
      )
  })
}
