import cluster from 'node:cluster'
import { AggregatorRegistry } from 'prom-client'
import type { FolioMetrics } from './metrics.js'

/**
 * Metrics with FOLIO_WORKERS above 1. A scrape reaches one worker (connections are handed
 * out in turn), yet must report the whole port: that worker asks the primary, the primary
 * collects every worker's registry through prom-client's cluster aggregation (counters and
 * histograms summed, per-metric aggregators otherwise) and sends the text back.
 */

const SCRAPE_REQUEST = 'folio:metrics-scrape'
const SCRAPE_REPLY = 'folio:metrics-text'
/** prom-client gives up on a worker after 5 s; the asking worker waits a little longer. */
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

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === type
}

/**
 * In a worker: offers this worker's registry to the primary's aggregation, and returns the
 * metrics with a scrape that answers for every worker.
 */
export function scrapeAcrossWorkers(metrics: FolioMetrics): FolioMetrics {
  // Constructing an AggregatorRegistry in a worker installs prom-client's answer to the
  // primary's requests; setRegistries names the registry it answers with.
  AggregatorRegistry.setRegistries([metrics.registry])
  new AggregatorRegistry()
  let nextId = 0
  const waiting = new Map<number, { resolve(text: string): void; reject(error: Error): void }>()
  process.on('message', (message: unknown) => {
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

/** In the primary: answers the workers' scrapes with every worker's metrics, aggregated. */
export function answerWorkerScrapes(): void {
  const aggregator = new AggregatorRegistry()
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage<ScrapeRequest>(message, SCRAPE_REQUEST)) return
    const send = (reply: ScrapeReply) => {
      if (worker.isConnected()) worker.send(reply)
    }
    aggregator.clusterMetrics().then(
      (text) => send({ type: SCRAPE_REPLY, id: message.id, text }),
      (error: unknown) =>
        send({ type: SCRAPE_REPLY, id: message.id, error: error instanceof Error ? error.message : String(error) }),
    )
  })
}

