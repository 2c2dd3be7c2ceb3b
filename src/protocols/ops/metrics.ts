import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Telemetry } from '../../app/index.js'
import { callbackStatusLabel } from './callback-status.js'
import {
  isEditorCallback,
  isSignIn,
  signInOutcome,
  wopiOperation,
  type ObservedRequest,
  type RequestFacts,
} from './request-facts.js'

/** Latency buckets in seconds: WOPI calls take milliseconds, saves of large files seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** Folio's Prometheus metrics, on a registry of their own. */
export interface FolioMetrics {
  registry: Registry
  /** The text of a scrape: this process's registry, or with FOLIO_WORKERS every worker's. */
  scrape(): Promise<string>
  /** Counts one finished request (an onResponse hook, or a raw route's finish). */
  observe(request: ObservedRequest, facts: RequestFacts): void
  /** What the application reports: ONLYOFFICE saves, storage failures. */
  telemetry: Telemetry
}

/** Where the metrics read values computed at scrape time. */
export interface MetricsSources {
  /** Files holding an unexpired WOPI lock now (one indexed count per scrape). */
  lockCount?: () => Promise<number>
  /** The data folder's free space and reserve (undefined with blobs on S3), read at scrape time. */
  space?: () => Promise<{ freeBytes: number; totalBytes: number; reserveBytes: number } | undefined>
  /** Background jobs waiting, running or failed, by kind and state (the indexing backlog). */
  jobCounts?: () => Promise<ReadonlyArray<{ kind: string; state: string; count: number }>>
}

/** The states a job gauge reports, each set every scrape (0 when none). */
const JOB_STATES = ['pending', 'running', 'failed'] as const

/** Sizes of saved files in bytes, 1 KiB to 1 GiB. */
const SIZE_BUCKETS = [
  1024,
  16 * 1024,
  256 * 1024,
  1024 ** 2,
  4 * 1024 ** 2,
  16 * 1024 ** 2,
  64 * 1024 ** 2,
  256 * 1024 ** 2,
  1024 ** 3,
]

/**
 * Creates the metrics: HTTP requests by method, route pattern and status with a latency
 * histogram; WOPI operations by operation and status; ONLYOFFICE callbacks by callback
 * status and HTTP status; sign-ins by route and outcome; and the process and event-loop
 * metrics of prom-client's collectDefaultMetrics. Labels take a bounded set of values.
 */
export function createFolioMetrics(sources: MetricsSources = {}): FolioMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const { lockCount, jobCounts } = sources
  new Gauge({
    name: 'folio_jobs',
    help: 'Background jobs (search indexing) by kind and state, counted in the store at scrape time',
    labelNames: ['kind', 'state'],
    registers: [registry],
    // Every worker counts the same stored jobs.
    aggregator: 'max',
    ...(jobCounts
      ? {
          async collect(this: Gauge<'kind' | 'state'>) {
            this.reset()
            for (const state of JOB_STATES) this.set({ kind: 'index-version', state }, 0)
            for (const row of await jobCounts()) this.set({ kind: row.kind, state: row.state }, row.count)
          },
        }
      : {}),
  })
  new Gauge({
    name: 'folio_wopi_locks',
    help: 'Files holding a WOPI lock that has not expired, counted at scrape time',
    registers: [registry],
    // Every worker counts the same stored locks: several workers report one figure.
    aggregator: 'max',
    ...(lockCount
      ? {
          async collect(this: Gauge) {
            this.set(await lockCount())
          },
        }
      : {}),
  })
  const { space } = sources
  // One statfs per scrape serves the three gauges.
  let spaceReading: Promise<{ freeBytes: number; totalBytes: number; reserveBytes: number } | undefined> | undefined
  const readSpace = () => {
    spaceReading ??= (space?.() ?? Promise.resolve(undefined)).finally(() => {
      setImmediate(() => {
        spaceReading = undefined
      })
    })
    return spaceReading
  }
  const spaceGauge = (
    name: string,
    help: string,
    pick: (figures: { freeBytes: number; totalBytes: number; reserveBytes: number }) => number,
  ) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      // Every worker reads the same disk.
      aggregator: 'max',
      ...(space
        ? {
            async collect(this: Gauge) {
              const figures = await readSpace().catch(() => undefined)
              if (figures) this.set(pick(figures))
            },
          }
        : {}),
    })
  spaceGauge(
    'folio_data_free_bytes',
    "Free bytes of the data folder's disk (absent with file contents on S3)",
    (f) => f.freeBytes,
  )
  spaceGauge('folio_data_size_bytes', "Size in bytes of the data folder's disk", (f) => f.totalBytes)
  spaceGauge(
    'folio_data_reserve_bytes',
    'Free space kept for metadata and deletes (FOLIO_MIN_FREE_SPACE); writes of file contents are refused below it',
    (f) => f.reserveBytes,
  )
  const saves = new Counter({
    name: 'folio_onlyoffice_saves_total',
    help: 'ONLYOFFICE Docs saves stored, by kind (exit: status 2, force: status 6)',
    labelNames: ['kind'],
    registers: [registry],
  })
  const saveBytes = new Histogram({
    name: 'folio_onlyoffice_save_bytes',
    help: 'Size of each stored ONLYOFFICE Docs save in bytes, by kind',
    labelNames: ['kind'],
    buckets: SIZE_BUCKETS,
    registers: [registry],
  })
  const saveDuration = new Histogram({
    name: 'folio_onlyoffice_save_duration_seconds',
    help: 'Time to fetch and store an ONLYOFFICE Docs save, by kind',
    labelNames: ['kind'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  const storageErrors = new Counter({
    name: 'folio_storage_errors_total',
    help: 'Failures of the metadata database or the blob store seen by the application, by store',
    labelNames: ['store'],
    registers: [registry],
  })
  // Both stores start at zero, so an alert on a rate sees the series before the first failure.
  storageErrors.inc({ store: 'database' }, 0)
  storageErrors.inc({ store: 'blob' }, 0)
  const requests = new Counter({
    name: 'folio_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  })
  const latency = new Histogram({
    name: 'folio_http_request_duration_seconds',
    help: 'Time from request to the end of the response, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  const wopi = new Counter({
    name: 'folio_wopi_operations_total',
    help: 'WOPI operations, by operation (X-WOPI-Override, CheckFileInfo, GetFile) and status',
    labelNames: ['operation', 'status'],
    registers: [registry],
  })
  const wopiLatency = new Histogram({
    name: 'folio_wopi_operation_duration_seconds',
    help: 'Time to answer a WOPI operation, by operation',
    labelNames: ['operation'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  const callbacks = new Counter({
    name: 'folio_onlyoffice_callbacks_total',
    help: 'ONLYOFFICE Docs editing callbacks, by callback status (1 editing, 2 save, 6 force save, ...) and HTTP status',
    labelNames: ['callback_status', 'status'],
    registers: [registry],
  })
  const callbackLatency = new Histogram({
    name: 'folio_onlyoffice_callback_duration_seconds',
    help: 'Time to answer an editing callback (a save includes fetching and storing the file), by callback status',
    labelNames: ['callback_status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  const signIns = new Counter({
    name: 'folio_sign_ins_total',
    help: 'Sign-in attempts, by route, HTTP status and outcome (success, failure, throttled)',
    labelNames: ['route', 'status', 'outcome'],
    registers: [registry],
  })

  return {
    registry,
    scrape: () => registry.metrics(),
    telemetry: {
      editorSave(kind, bytes, seconds) {
        saves.inc({ kind })
        saveBytes.observe({ kind }, bytes)
        saveDuration.observe({ kind }, seconds)
      },
      storageError(store) {
        storageErrors.inc({ store })
      },
    },
    observe(request, facts) {
      const status = String(facts.status)
      const seconds = facts.durationMs / 1000
      requests.inc({ method: facts.method, route: facts.route, status })
      latency.observe({ method: facts.method, route: facts.route, status }, seconds)
      const operation = wopiOperation(request, facts.route)
      if (operation !== undefined) {
        wopi.inc({ operation, status })
        wopiLatency.observe({ operation }, seconds)
        return
      }
      if (isEditorCallback(facts.route)) {
        const callbackStatus = callbackStatusLabel(request.body)
        callbacks.inc({ callback_status: callbackStatus, status })
        callbackLatency.observe({ callback_status: callbackStatus }, seconds)
        return
      }
      if (isSignIn(request, facts.route)) {
        signIns.inc({ route: facts.route, status, outcome: signInOutcome(facts.status) })
      }
    },
  }
}
