import { randomBytes } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { pino, type Logger as PinoLogger } from 'pino'
import { ensureAdmin } from './app/accounts.js'
import type { AppContext } from './app/context.js'
import type { Config } from './config/load.js'
import type { BlobStore } from './ports/blob-store.js'
import { systemClock, type Clock } from './ports/clock.js'
import type { MetadataStore } from './ports/metadata-store.js'
import { buildHttpServer, type HttpPlugin } from './protocols/http/server.js'
import { onlyofficeIntegration } from './protocols/onlyoffice/index.js'
import { wopiHost } from './protocols/wopi/index.js'
import { webUi } from './protocols/web/index.js'

/**
 * The composition root: config -> drivers -> app context -> protocol adapters.
 * The only module (with cli/) that knows which drivers exist.
 */

export interface FolioOptions {
  clock?: Clock
  logger?: PinoLogger
}

export interface RunningFolio {
  /** Base URL the server listens on (http://host:port). */
  url: string
  ctx: AppContext
  app: FastifyInstance
  close(): Promise<void>
}

/** A pino logger that never writes secrets (tokens, passwords) into the log. */
export function createLogger(config: Config): PinoLogger {
  return pino({
    level: config.logLevel,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.password',
        '*.token',
        '*.access_token',
      ],
      censor: '[redacted]',
    },
  })
}

/** Opens the metadata and blob drivers; drivers are imported lazily so unused SDKs never load. */
export async function openStorage(
  config: Config,
): Promise<{ store: MetadataStore; blobs: BlobStore }> {
  await mkdir(config.dataDir, { recursive: true })
  const { openSqliteStore } = await import('./drivers/metadata-sqlite/index.js')
  const { openFsBlobStore } = await import('./drivers/blob-fs/index.js')
  const store = await openSqliteStore({ path: join(config.dataDir, 'folio.db') })
  const blobs = await openFsBlobStore({ root: join(config.dataDir, 'files') })
  return { store, blobs }
}

/** Builds the application context over open storage (also used by the CLI). */
export async function createContext(
  config: Config,
  storage: { store: MetadataStore; blobs: BlobStore },
  options: { clock?: Clock; logger: PinoLogger },
): Promise<AppContext> {
  // One secret for every instance sharing this store, made on first start.
  const secret = await storage.store.settings.setIfAbsent(
    'signing-secret',
    randomBytes(32).toString('base64'),
  )
  return {
    config,
    store: storage.store,
    blobs: storage.blobs,
    clock: options.clock ?? systemClock,
    logger: options.logger,
    signingSecret: Buffer.from(secret, 'base64'),
  }
}

/** Protocol adapters mounted beside the portal, one line each (each owns its URL prefix). */
async function protocolPlugins(ctx: AppContext): Promise<HttpPlugin[]> {
  const plugins: HttpPlugin[] = []
  if (ctx.config.docs) plugins.push(onlyofficeIntegration(ctx))
  plugins.push(wopiHost(ctx))
  plugins.push(webUi(ctx))
  return plugins
}

/** Starts Folio: storage, admin account, HTTP server. */
export async function startFolio(config: Config, options: FolioOptions = {}): Promise<RunningFolio> {
  const logger = options.logger ?? createLogger(config)
  const storage = await openStorage(config)
  const ctx = await createContext(config, storage, { clock: options.clock, logger })
  const generated = await ensureAdmin(ctx)
  if (generated) {
    logger.warn(
      { user: config.adminUser, generatedPassword: generated },
      'created the admin account with a generated password; it is shown only this once',
    )
  }
  const app = await buildHttpServer(ctx, { logger, plugins: await protocolPlugins(ctx) })
  await app.listen({ port: config.port, host: config.host })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  logger.info({ url: `http://${host}:${port}`, publicUrl: config.publicUrl }, 'Folio is listening')
  return {
    url: `http://${host}:${port}`,
    ctx,
    app,
    close: async () => {
      await app.close()
      await storage.store.close()
    },
  }
}
