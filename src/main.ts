import { randomBytes } from 'node:crypto'
import { access, constants, mkdir, realpath, stat } from 'node:fs/promises'
import { delimiter, dirname, join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { DestinationStream, Logger as PinoLogger } from 'pino'
import type { BackupDrivers } from './app/maintenance/backup.js'
import type { MigrationEnds } from './app/maintenance/migrate-storage.js'
import { startHousekeeping } from './app/maintenance/garbage-collection.js'
import { startBackgroundJobs } from './app/search/index.js'
import { SIGNING_SECRET_SETTING, type AppContext } from './app/context.js'
import { createApp, type AdapterContext, type App } from './app/create-app.js'
import type { Config } from './config/load.js'
import { DomainError } from './core/errors.js'
import { buildLogger } from './logging/create-logger.js'
import type { BlobStore } from './ports/blob-store.js'
import type { ConversionSource, Converter } from './ports/converter.js'
import { systemClock, type Clock } from './ports/clock.js'
import type { DocsCommands } from './ports/docs-commands.js'
import type { MetadataStore } from './ports/metadata-store.js'
import type { Telemetry } from './ports/telemetry.js'
import type { TextExtractor } from './ports/text-extractor.js'
import type { WopiActions } from './ports/wopi-actions.js'
import { createOutboundClient, type OutboundClient } from './protocols/http/outbound.js'
import { convertSourceLink, docsConverterTransport } from './protocols/onlyoffice/converter-transport.js'
import { buildHttpServer, type HttpPlugin } from './protocols/http/server.js'
import {
  observeRawRequests,
  observeRequests,
  opsRoutes,
  startMetricsListener,
  type MetricsListener,
} from './protocols/ops/index.js'
import { checkStorageReadiness } from './app/maintenance/readiness.js'
import { withStorageErrorReports } from './app/maintenance/storage-errors.js'
import { withSpaceReserve } from './app/maintenance/disk-space.js'
import { onlyofficeEditorTools } from './protocols/onlyoffice/editor-tools.js'
import { onlyofficeIntegration } from './protocols/onlyoffice/index.js'
import { commandClientFor, createDocsFetcher } from './protocols/onlyoffice/services.js'
import { createWopiDiscovery } from './protocols/wopi/discovery.js'
import { wopiRoutes } from './protocols/wopi/index.js'
import { webUi, webUiApi } from './protocols/portal/web/index.js'

/**
 * The composition root: config -> drivers and outbound clients -> application (createApp)
 * -> protocol adapters, which receive the application's services and never the storage.
 * The only module (with cli/) that knows which drivers exist.
 */

export interface FolioOptions {
  clock?: Clock
  logger?: PinoLogger
  /**
   * Set when this process is one of several serving the port (FOLIO_WORKERS, see
   * cli/workers.ts): its number. The primary process has then already created the admin
   * account and runs the housekeeping, so this one does neither.
   */
  worker?: number
}

export interface RunningFolio {
  /** Base URL the server listens on (http://host:port). */
  url: string
  /** The application's dependencies (storage included), for tests and tools. */
  ctx: AppContext
  /** What the protocol adapters were given: the application's services, no storage. */
  adapters: AdapterContext
  app: FastifyInstance
  /** Base URL of the separate metrics listener (FOLIO_METRICS_ADDRESS), when there is one. */
  metricsUrl?: string
  /** The document converter FOLIO_CONVERTER picked. */
  converter: Converter
  close(): Promise<void>
}

/**
 * A pino logger that never writes secrets (tokens, passwords) into the log, in
 * FOLIO_LOG_FORMAT; `destination` replaces standard output (tests capture the log).
 */
export function createLogger(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  destination?: DestinationStream,
): PinoLogger {
  return buildLogger({ level: config.logLevel, format: config.logFormat, destination })
}

/** Where a data folder (FOLIO_DATA_DIR) keeps the SQLite database and the blob store. */
export function dataFolderPaths(dataDir: string): { database: string; blobRoot: string } {
  return { database: join(dataDir, 'folio.db'), blobRoot: join(dataDir, 'files') }
}

/**
 * Opens the metadata store FOLIO_DATABASE_URL names: PostgreSQL when set, else SQLite in
 * the data folder. Each driver is imported only when chosen, so a default install never
 * loads `pg`.
 */
async function openMetadataStore(config: Config, logger?: PinoLogger): Promise<MetadataStore> {
  const { url, schema, poolSize, statementTimeoutMs } = config.database
  if (url === undefined) {
    const { openSqliteStore } = await import('./drivers/metadata-sqlite/index.js')
    return openSqliteStore({ path: join(config.dataDir, 'folio.db') })
  }
  const { openPostgresStore, redactDatabaseUrl } = await import('./drivers/metadata-postgres/index.js')
  logger?.info({ database: redactDatabaseUrl(url), schema }, 'metadata is in PostgreSQL')
  return openPostgresStore({
    url,
    schema,
    poolSize,
    statementTimeoutMs,
    onIdleError: (error) => logger?.warn({ err: error }, 'a pooled PostgreSQL connection failed'),
  })
}

/**
 * Refuses to work on an install that does not exist: only `folio serve` and `folio restore`
 * make one, so an administrative command run in the wrong folder (or without
 * FOLIO_DATA_DIR) says where it looked instead of creating an empty database there.
 * With PostgreSQL the database is the install and is checked when it is opened.
 */
export async function assertInstallExists(config: Config): Promise<void> {
  if (config.database.url !== undefined) return
  const { database } = dataFolderPaths(config.dataDir)
  const found = await stat(database).then(
    (info) => info.isFile(),
    () => false,
  )
  if (!found) {
    throw new Error(
      `no Folio install in ${config.dataDir} (no folio.db there): set FOLIO_DATA_DIR to the data ` +
        'folder of your install, or run `folio serve` once to make one',
    )
  }
}

/** Opens the metadata and blob drivers; drivers are imported lazily so unused SDKs never load. */
export async function openStorage(
  config: Config,
  logger?: PinoLogger,
): Promise<{ store: MetadataStore; blobs: BlobStore }> {
  // Private to Folio's account whatever the umask: the database holds the signing secret.
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 })
  const store = await openMetadataStore(config, logger)
  const blobs = await openBlobStore(config).catch(async (error: unknown) => {
    await store.close()
    throw error
  })
  return { store, blobs }
}

/** File contents: the S3 bucket when FOLIO_S3_BUCKET is set, else `files/` in the data folder. */
async function openBlobStore(config: Config): Promise<BlobStore> {
  if (config.s3) {
    const { openS3BlobStore } = await import('./drivers/blob-s3/index.js')
    return openS3BlobStore({ ...config.s3, maxObjectBytes: config.maxFileSize })
  }
  const { openFsBlobStore } = await import('./drivers/blob-fs/index.js')
  return openFsBlobStore({ root: dataFolderPaths(config.dataDir).blobRoot })
}

/** The backup operations for the default drivers (SQLite database, filesystem blobs). */
export async function backupDrivers(): Promise<BackupDrivers> {
  const { snapshotSqliteDatabase, listReferencedBlobs } = await import('./drivers/metadata-sqlite/backup.js')
  const { copyFsBlob } = await import('./drivers/blob-fs/copy.js')
  const folders = await import('./drivers/backup-folder/index.js')
  return {
    makeEmptyFolder: folders.makeEmptyFolder,
    writeFolderFile: folders.writeFolderFile,
    readFolderFile: folders.readFolderFile,
    snapshotMetadata: (from, to) =>
      snapshotSqliteDatabase(dataFolderPaths(from).database, dataFolderPaths(to).database),
    referencedBlobs: async (dataDir) => listReferencedBlobs(dataFolderPaths(dataDir).database),
    copyBlob: (from, to, key) => copyFsBlob(dataFolderPaths(from).blobRoot, dataFolderPaths(to).blobRoot, key),
  }
}

/** What `folio migrate-storage` moves between, opened, with a line naming each end. */
export interface OpenMigrationEnds {
  ends: MigrationEnds
  from: string
  to: string
  close(): Promise<void>
}

/**
 * Opens the storage `folio migrate-storage` moves: from the data folder (its SQLite
 * database, held exclusively so no Folio can use it meanwhile, and its blob folder) to the
 * PostgreSQL database of FOLIO_DATABASE_URL and the bucket of FOLIO_S3_BUCKET; either may
 * be unset, and then that part stays where it is.
 */
export async function openMigrationEnds(config: Config): Promise<OpenMigrationEnds> {
  const paths = dataFolderPaths(config.dataDir)
  if (config.database.url === undefined && config.s3 === undefined) {
    throw new Error('nothing to move to: set FOLIO_DATABASE_URL (PostgreSQL) and/or FOLIO_S3_BUCKET (S3)')
  }
  if (!(await isFile(paths.database))) {
    throw new Error(`there is no Folio database at ${paths.database}: FOLIO_DATA_DIR must name the data folder to move`)
  }
  const opened: Array<() => Promise<void>> = []
  const close = async (): Promise<void> => {
    for (const closeOne of opened.reverse()) await closeOne().catch(() => undefined)
  }
  try {
    const { openSqliteStore } = await import('./drivers/metadata-sqlite/index.js')
    const store = await openSqliteStore({ path: paths.database, exclusive: true })
    opened.push(() => store.close())
    const { openFsBlobStore } = await import('./drivers/blob-fs/index.js')
    const blobs = await openFsBlobStore({ root: paths.blobRoot })
    const ends: MigrationEnds = { source: { store, blobs } }
    const to: string[] = []
    if (config.database.url !== undefined) {
      const targetStore = await openMetadataStore(config)
      opened.push(() => targetStore.close())
      ends.targetStore = targetStore
      const { redactDatabaseUrl } = await import('./drivers/metadata-postgres/index.js')
      to.push(`PostgreSQL ${redactDatabaseUrl(config.database.url)} (schema ${config.database.schema})`)
    } else {
      to.push(`the same SQLite database`)
    }
    if (config.s3 !== undefined) {
      const targetBlobs = await openBlobStore(config)
      opened.push(async () => targetBlobs.close?.())
      ends.targetBlobs = targetBlobs
      const where = config.s3.endpoint ?? `AWS ${config.s3.region}`
      const prefix = config.s3.prefix === '' ? '' : ` (prefix ${config.s3.prefix})`
      to.push(`S3 bucket ${config.s3.bucket}${prefix} at ${where}`)
    } else {
      to.push(`the same blob folder`)
    }
    return {
      ends,
      from: `SQLite ${paths.database} and the blob folder ${paths.blobRoot}`,
      to: to.join(' and '),
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile()
  } catch {
    return false
  }
}

/** Logs a warning when other accounts may enter the data folder (mode wider than 0700). */
async function warnIfDataDirOpen(dataDir: string, logger: PinoLogger): Promise<void> {
  const mode = (await stat(dataDir)).mode & 0o777
  if ((mode & 0o077) === 0 || process.platform === 'win32') return
  logger.warn(
    { dataDir, mode: mode.toString(8).padStart(4, '0') },
    'the data folder is open to other accounts, who could read documents and the signing secret; chmod 700 it',
  )
}

/** The office binary (soffice.bin) behind the first `soffice` on the PATH, or undefined. */
async function findOffice(path = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const folder of path.split(delimiter).filter(Boolean)) {
    try {
      const launcher = await realpath(join(folder, 'soffice'))
      const binary = join(dirname(launcher), 'soffice.bin')
      await access(binary, constants.X_OK)
      return binary
    } catch {
      // not in this folder
    }
  }
  return undefined
}

/**
 * The converter FOLIO_CONVERTER asks for on this machine: 'auto' is ONLYOFFICE Docs when it
 * is configured, else LibreOffice when `soffice` is on the PATH; otherwise why none runs.
 */
export function pickConverter(
  config: Pick<Config, 'converter' | 'docs'>,
  office: string | undefined,
): { kind: 'docs' } | { kind: 'libreoffice'; office: string } | { kind: 'off'; reason: string } {
  const wanted = config.converter.kind
  if (wanted === 'off') return { kind: 'off', reason: 'FOLIO_CONVERTER is off' }
  if (wanted === 'docs' || (wanted === 'auto' && config.docs)) {
    return config.docs ? { kind: 'docs' } : { kind: 'off', reason: 'FOLIO_CONVERTER=docs needs FOLIO_DOCS_URL' }
  }
  if (office !== undefined) return { kind: 'libreoffice', office }
  return { kind: 'off', reason: 'soffice (LibreOffice) is not on the PATH' }
}

/**
 * Opens the converter pickConverter chose, importing only its driver. A conversion through
 * Docs hands Docs a signed link to its source: a stored blob as it is, a stream stored as a
 * blob for the time of the conversion.
 */
async function openConverter(
  config: Config,
  parts: { blobs: BlobStore; logger: PinoLogger; client: OutboundClient; adapters: () => AdapterContext },
): Promise<Converter> {
  const picked = pickConverter(config, await findOffice())
  const maxOutputBytes = config.maxFileSize
  if (picked.kind === 'libreoffice') {
    const { openLibreOfficeConverter } = await import('./drivers/converter-libreoffice/index.js')
    return openLibreOfficeConverter({
      workers: config.converter.workers,
      timeoutMs: config.converter.timeoutMs,
      queueSize: config.converter.queueSize,
      memoryBytes: config.converter.memoryBytes,
      maxOutputBytes,
      officeBinary: picked.office,
      blobs: parts.blobs,
      logger: parts.logger,
    })
  }
  const docs = config.docs
  if (picked.kind === 'docs' && docs) {
    const { openDocsConverter } = await import('./drivers/converter-docs/index.js')
    const publishSource = async (source: ConversionSource) => {
      if (source.kind === 'blob') {
        if (!(await parts.blobs.exists(source.blobKey)))
          throw new DomainError('NOT_FOUND', 'the document to convert is gone')
        return { url: convertSourceLink(parts.adapters(), source.blobKey), release: async () => undefined }
      }
      const stored = await parts.blobs.put(source.stream, { maxBytes: config.maxFileSize })
      return {
        url: convertSourceLink(parts.adapters(), stored.key),
        release: () => parts.blobs.delete(stored.key),
      }
    }
    return openDocsConverter({
      internalUrl: docs.internalUrl,
      transport: {
        ...docsConverterTransport({ docs, jwtSecret: docs.jwtSecret, now: () => Date.now(), client: parts.client }),
        publishSource,
      },
      timeoutMs: config.converter.timeoutMs,
      concurrency: config.converter.workers,
      queueSize: config.converter.queueSize,
      maxOutputBytes,
    })
  }
  const { offConverter } = await import('./drivers/converter-off/index.js')
  return offConverter(picked.kind === 'off' ? picked.reason : 'ONLYOFFICE Docs is not configured')
}

/** Builds the application context over open storage (also used by the CLI). */
export async function createContext(
  config: Config,
  storage: { store: MetadataStore; blobs: BlobStore },
  options: {
    clock?: Clock
    logger: PinoLogger
    docsCommands?: DocsCommands
    wopiActions?: WopiActions
    telemetry?: Telemetry
    converter?: Converter
  },
): Promise<AppContext> {
  // One secret for every instance sharing this store, made on first start.
  const secret = await storage.store.settings.setIfAbsent(SIGNING_SECRET_SETTING, randomBytes(32).toString('base64'))
  // With metrics on, every storage failure reaching the application is counted.
  const watched = options.telemetry ? withStorageErrorReports(storage, options.telemetry) : storage
  const clock = options.clock ?? systemClock
  // Writes of file contents keep FOLIO_MIN_FREE_SPACE free on the data folder's disk.
  const reserved = withSpaceReserve(watched.blobs, {
    reserveBytes: config.minFreeSpace,
    clock,
    logger: options.logger,
  })
  return {
    config,
    store: watched.store,
    blobs: reserved.blobs,
    space: reserved.space,
    clock,
    logger: options.logger,
    signingSecret: Buffer.from(secret, 'base64'),
    ...(options.docsCommands ? { docsCommands: options.docsCommands } : {}),
    ...(options.wopiActions ? { wopiActions: options.wopiActions } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    loadTextExtractor: textExtractorLoader(options.converter),
    ...(options.converter ? { converter: options.converter } : {}),
  }
}

/**
 * The built-in text extractor, loaded on the first document indexed (pdfjs-dist on the
 * first PDF); with a converter, the formats it cannot read (.doc, .rtf, .xls, .ppt, ...)
 * are read through the converter's output.
 */
function textExtractorLoader(converter: Converter | undefined): () => Promise<TextExtractor> {
  let loading: Promise<TextExtractor> | undefined
  return () => {
    loading ??= Promise.all([
      import('./drivers/text-extract/index.js'),
      import('./drivers/text-extract/converter-fallback.js'),
    ]).then(([driver, fallback]) => {
      const builtIn = driver.createTextExtractor()
      return converter === undefined
        ? builtIn
        : driver.createTextExtractor({ fallback: fallback.converterTextFallback(converter, builtIn) })
    })
    return loading
  }
}

/**
 * Starts this instance's background worker, after asking for every file whose current
 * version has no words indexed (a crash between a commit and its job leaves such files).
 */
async function startJobs(ctx: AppContext, services: App, logger: PinoLogger): Promise<{ stop(): Promise<void> }> {
  const worker = startBackgroundJobs(ctx)
  services.search
    .reindex(false)
    .then((count) => logger[count > 0 ? 'info' : 'debug']({ count }, 'search: files not indexed yet were queued'))
    .catch((error: unknown) => logger.warn({ err: error }, 'search: could not queue the files not indexed yet'))
  return worker
}

/** Creates the admin account on first start; a generated password is logged this once. */
export async function ensureAdminAccount(services: App, config: Config, logger: PinoLogger): Promise<void> {
  const generated = await services.accounts.ensureAdmin()
  if (!generated) return
  logger.warn(
    { user: config.adminUser, generatedPassword: generated },
    'created the admin account with a generated password; it is shown only this once (reset it with: folio user passwd)',
  )
}

/**
 * Starts Folio: storage, HTTP server (and the metrics listener), then the admin account,
 * so a start that fails (a port taken) creates no account whose password nobody saw.
 */
export async function startFolio(config: Config, options: FolioOptions = {}): Promise<RunningFolio> {
  const logger = options.logger ?? createLogger(config)
  const storage = await openStorage(config, logger)
  const clock = options.clock ?? systemClock
  // Outbound clients, one each for the process: Docs' command service and file links, and
  // the WOPI client's discovery (shared by the WOPI host's proofs and the app's launches).
  const client = createOutboundClient()
  const docsCommands = commandClientFor(config, clock, client)
  const docsFetch = createDocsFetcher(client)
  const discovery = createWopiDiscovery({ config, clock, logger, client })
  // The lock count is read at scrape time through the application, made just below.
  let lockCount: (() => Promise<number>) | undefined
  let space: AppContext['space'] | undefined
  let jobCounts: (() => Promise<ReadonlyArray<{ kind: string; state: string; count: number }>>) | undefined
  // prom-client is loaded only when metrics are on.
  const processMetrics = config.metrics.enabled
    ? (await import('./protocols/ops/metrics.js')).createFolioMetrics({
        lockCount: () => lockCount?.() ?? Promise.resolve(0),
        // File contents on S3 have no disk of their own to report.
        ...(config.s3 ? {} : { space: () => space?.() ?? Promise.resolve(undefined) }),
        jobCounts: () => jobCounts?.() ?? Promise.resolve([]),
      })
    : undefined
  // A worker's scrape reports every worker's figures, collected by the primary.
  const metrics =
    processMetrics && options.worker !== undefined
      ? (await import('./protocols/ops/cluster-metrics.js')).scrapeAcrossWorkers(processMetrics)
      : processMetrics
  // Docs fetches a conversion's source through a link the adapters sign, made below.
  let signer: AdapterContext | undefined
  const converter = await openConverter(config, {
    blobs: storage.blobs,
    logger,
    client,
    adapters: () => {
      if (!signer) throw new Error('the adapters are not ready')
      return signer
    },
  })
  const ctx = await createContext(config, storage, {
    clock,
    logger,
    ...(docsCommands ? { docsCommands } : {}),
    wopiActions: discovery,
    ...(metrics ? { telemetry: metrics.telemetry } : {}),
    converter,
  })
  await warnIfDataDirOpen(config.dataDir, logger)
  const services = createApp(ctx)
  const adapters: AdapterContext = { app: services, config, clock, logger }
  signer = adapters
  const converterStatus = converter.status()
  const editorTools = onlyofficeEditorTools(adapters, docsCommands, docsFetch)
  lockCount = () => services.locks.held()
  space = ctx.space
  jobCounts = () => services.search.backlog()
  // Each adapter owns its URL prefix; health and metrics first.
  const plugins: HttpPlugin[] = [
    opsRoutes({
      ready: async () => ({
        ...(await checkStorageReadiness({ ...storage, logger, space: ctx.space })),
        converter: converter.status(),
      }),
      metrics,
      metricsOnMainServer: config.metrics.address === undefined,
      metricsToken: config.metrics.token,
      ...(options.worker === undefined ? {} : { worker: options.worker }),
    }),
  ]
  // Everything under /api/2.0 (the portal API, and the web UI's capabilities) is loaded and
  // its routes built on the first request there (http/lazy-mount.ts): an idle Folio, or one
  // only editors talk to, does not hold them.
  const portal = {
    prefix: '/api/2.0',
    load: async (): Promise<HttpPlugin> => {
      const { portalApi } = await import('./protocols/portal/index.js')
      return async (server) => {
        await server.register(portalApi(adapters, editorTools), { prefix: '/api/2.0' })
        await server.register(webUiApi(adapters))
      }
    },
  }
  if (config.docs) plugins.push(onlyofficeIntegration(adapters, docsFetch))
  plugins.push(webUi(adapters))
  // The admin account is created once the port is ours (a start that fails creates
  // nothing), and no request is answered before it exists: a load balancer sends
  // sign-ins as soon as the port answers.
  let adminDone = false
  let adminSettled: () => void = () => undefined
  const adminReady = new Promise<void>((resolve) => {
    adminSettled = () => {
      adminDone = true
      resolve()
    }
  })
  const gate = { isOpen: () => adminDone, opened: adminReady }
  // The WOPI host is answered on node:http before Fastify (protocols/http/raw-routes.ts).
  const observeRaw = observeRawRequests(logger, metrics)
  const app = await buildHttpServer(adapters, {
    logger,
    observe: (server) => observeRequests(server, metrics),
    plugins,
    rawRoutes: [wopiRoutes(adapters, discovery)],
    lazyPlugins: [portal],
    ...(observeRaw ? { observeRaw } : {}),
    gate,
  })
  let metricsListener: MetricsListener | undefined
  try {
    await app.listen({ port: config.port, host: config.host })
    if (metrics && config.metrics.address) {
      metricsListener = await startMetricsListener(metrics, config.metrics.address, config.metrics.token)
    }
  } catch (error) {
    await app.close()
    await converter.close()
    await client.close()
    await storage.store.close()
    await storage.blobs.close?.()
    throw error
  }
  try {
    if (options.worker === undefined) await ensureAdminAccount(services, config, logger)
  } finally {
    adminSettled()
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  logger.info(
    {
      url: `http://${host}:${port}`,
      publicUrl: config.publicUrl,
      metricsUrl: metricsListener?.url,
      converter: converterStatus.kind,
      converterDetail: converterStatus.detail,
      worker: options.worker,
    },
    'Folio is listening',
  )
  const housekeeping = options.worker === undefined ? startHousekeeping(ctx) : { stop: async () => undefined }
  const jobs = config.runJobs ? await startJobs(ctx, services, logger) : undefined
  return {
    url: `http://${host}:${port}`,
    ctx,
    adapters,
    app,
    metricsUrl: metricsListener?.url,
    converter,
    close: async () => {
      await metricsListener?.close()
      await app.close()
      await housekeeping.stop()
      await jobs?.stop()
      // File operations still running after their call was answered end before the store closes.
      await adapters.app.drain()
      await converter.close()
      await client.close()
      await storage.store.close()
      await storage.blobs.close?.()
    },
  }
}
