import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { describeBadValue } from './advice.js'
import { settingsSchema, SETTING_NAMES, type Settings } from './schema.js'
import { parseHostPort } from './units.js'

/** The validated, frozen configuration every part of Folio receives. */
export interface Config {
  port: number
  host: string
  /** Processes serving `port` together (FOLIO_WORKERS; 'auto' resolved to the core count). */
  workers: number
  dataDir: string
  /** Where browsers reach Folio: every link a browser follows starts with it. */
  publicUrl: string
  /**
   * Where editors' servers reach Folio (Docs' document.url, callbackUrl and history links;
   * WOPISrc, PutRelativeFile's Url, the URL WOPI proofs are signed over). FOLIO_INTERNAL_URL,
   * else publicUrl.
   */
  internalUrl: string
  adminUser: string
  adminPassword: string | undefined
  logLevel: Settings['FOLIO_LOG_LEVEL']
  /** json for collectors, pretty for a terminal. */
  logFormat: Settings['FOLIO_LOG_FORMAT']
  maxFileSize: number
  /** Bytes of the data folder's disk that writes of file contents leave free (0: none kept). */
  minFreeSpace: number
  sessionTtlMs: number
  wopiTokenTtlMs: number
  loginMaxFailures: number
  loginWindowMs: number
  /** Trashed items older than this are deleted for good by the housekeeping. */
  trashRetentionMs: number
  /** Deadline for a small parsed request body to arrive whole. */
  bodyTimeoutMs: number
  /** Longest pause between two bytes of any other request body. */
  uploadIdleTimeoutMs: number
  trustProxy: boolean
  /** How long a file operation's call waits for its end before answering it still running. */
  operationWaitMs: number
  /** A save within this long of the same user's previous save replaces it; 0 turns it off. */
  versionSquashWindowMs: number
  /** Most versions kept per file; undefined keeps every one. */
  versionsKeep: number | undefined
  /** Search indexing: characters kept per document, time allowed per document. */
  search: { maxTextChars: number; timeoutMs: number }
  /** This instance runs background jobs (FOLIO_JOBS). */
  runJobs: boolean
  docs: { url: string; internalUrl: string; jwtSecret: string | undefined; jwtHeader: string } | undefined
  wopi: { discoveryUrl: string | undefined; proofRequired: boolean }
  /** Where file contents go when not in dataDir: set when FOLIO_S3_BUCKET is. */
  s3: S3Config | undefined
  /**
   * Where metadata lives: SQLite in dataDir when `url` is undefined, else the PostgreSQL
   * database at `url` (which may hold a password: never log it).
   */
  database: { url: string | undefined; schema: string; poolSize: number; statementTimeoutMs: number }
  /**
   * The document converter asked for (FOLIO_CONVERTER; 'auto' is resolved by the composition
   * root, which can see the PATH), conversions at once, each one's time limit, how many may
   * wait, and each office process's memory limit.
   */
  converter: {
    kind: 'auto' | 'libreoffice' | 'docs' | 'off'
    workers: number
    timeoutMs: number
    queueSize: number
    memoryBytes: number
  }
  /**
   * Prometheus metrics: off when both are unset. `token`: /metrics requires it as a bearer
   * token. `address`: /metrics is served on this separate listener instead of the main one.
   */
  metrics: {
    enabled: boolean
    token: string | undefined
    address: { host: string; port: number } | undefined
  }
}

export interface S3Config {
  bucket: string
  endpoint: string | undefined
  region: string
  accessKeyId: string | undefined
  secretAccessKey: string | undefined
  forcePathStyle: boolean
  /** '' or ending in '/'. */
  prefix: string
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`)
    this.name = 'ConfigError'
  }
}

/**
 * Reads settings from the JSON file named by FOLIO_CONFIG (if any) and then the
 * environment, validates all of them and reports every bad one at once.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {}
  const configPath = env.FOLIO_CONFIG
  if (configPath) Object.assign(raw, readConfigFile(configPath))
  for (const name of SETTING_NAMES) {
    const value = env[name]
    if (value !== undefined) raw[name] = value
  }
  return buildConfig(raw)
}

/** Validates raw settings (names as in the environment) into a Config. */
export function buildConfig(raw: Record<string, unknown>): Config {
  const unknown = Object.keys(raw).filter((name) => !SETTING_NAMES.includes(name))
  const parsed = settingsSchema.safeParse(raw)
  const problems = unknown.map((name) => `${name}: unknown setting`)
  if (
    parsed.success &&
    (parsed.data.FOLIO_S3_ACCESS_KEY_ID === undefined) !== (parsed.data.FOLIO_S3_SECRET_ACCESS_KEY === undefined)
  ) {
    problems.push('FOLIO_S3_ACCESS_KEY_ID and FOLIO_S3_SECRET_ACCESS_KEY: set both or neither')
  }
  // S3 settings without a bucket would silently leave contents on the local disk.
  const s3Only = ['FOLIO_S3_ENDPOINT', 'FOLIO_S3_ACCESS_KEY_ID', 'FOLIO_S3_PREFIX']
  if (parsed.success && parsed.data.FOLIO_S3_BUCKET === undefined) {
    for (const name of s3Only.filter((key) => raw[key] !== undefined && raw[key] !== '')) {
      problems.push(`${name}: needs FOLIO_S3_BUCKET (contents stay on the local disk without it)`)
    }
  }
  // Proofs are checked against the WOPI client's discovery keys: requiring them without
  // a discovery address would leave every request unchecked while claiming otherwise.
  if (parsed.success && parsed.data.FOLIO_WOPI_PROOF_REQUIRED && parsed.data.FOLIO_WOPI_DISCOVERY_URL === undefined) {
    problems.push(
      "FOLIO_WOPI_PROOF_REQUIRED: proofs are checked against the WOPI client's keys, which come " +
        'from FOLIO_WOPI_DISCOVERY_URL: set FOLIO_WOPI_DISCOVERY_URL too, or leave FOLIO_WOPI_PROOF_REQUIRED off',
    )
  }
  if (!parsed.success) {
    const reported = new Set<string>()
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? '(root)')
      if (reported.has(name)) continue
      reported.add(name)
      problems.push(describeBadValue(name, raw[name], issue.message))
    }
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems)
  const s = parsed.data
  const publicUrl = s.FOLIO_PUBLIC_URL ?? `http://localhost:${s.FOLIO_PORT}`
  const docsUrl = s.FOLIO_DOCS_URL
  return Object.freeze({
    port: s.FOLIO_PORT,
    host: s.FOLIO_HOST,
    workers: s.FOLIO_WORKERS === 'auto' ? availableParallelism() : s.FOLIO_WORKERS,
    dataDir: resolve(s.FOLIO_DATA_DIR),
    publicUrl,
    internalUrl: s.FOLIO_INTERNAL_URL ?? publicUrl,
    adminUser: s.FOLIO_ADMIN_USER,
    adminPassword: s.FOLIO_ADMIN_PASSWORD,
    logLevel: s.FOLIO_LOG_LEVEL,
    logFormat: s.FOLIO_LOG_FORMAT,
    maxFileSize: s.FOLIO_MAX_FILE_SIZE,
    minFreeSpace: s.FOLIO_MIN_FREE_SPACE,
    sessionTtlMs: s.FOLIO_SESSION_TTL,
    wopiTokenTtlMs: s.FOLIO_WOPI_TOKEN_TTL,
    loginMaxFailures: s.FOLIO_LOGIN_MAX_FAILURES,
    loginWindowMs: s.FOLIO_LOGIN_WINDOW,
    trashRetentionMs: s.FOLIO_TRASH_RETENTION,
    bodyTimeoutMs: s.FOLIO_BODY_TIMEOUT,
    uploadIdleTimeoutMs: s.FOLIO_UPLOAD_IDLE_TIMEOUT,
    trustProxy: s.FOLIO_TRUST_PROXY,
    operationWaitMs: s.FOLIO_OPERATION_WAIT,
    versionSquashWindowMs: s.FOLIO_VERSION_SQUASH_WINDOW,
    versionsKeep: s.FOLIO_VERSIONS_KEEP,
    search: Object.freeze({ maxTextChars: s.FOLIO_SEARCH_MAX_TEXT, timeoutMs: s.FOLIO_SEARCH_TIMEOUT }),
    runJobs: s.FOLIO_JOBS,
    docs: docsUrl
      ? Object.freeze({
          url: docsUrl,
          internalUrl: s.FOLIO_DOCS_INTERNAL_URL ?? docsUrl,
          jwtSecret: s.FOLIO_DOCS_JWT_SECRET,
          jwtHeader: s.FOLIO_DOCS_JWT_HEADER,
        })
      : undefined,
    wopi: Object.freeze({
      discoveryUrl: s.FOLIO_WOPI_DISCOVERY_URL,
      proofRequired: s.FOLIO_WOPI_PROOF_REQUIRED,
    }),
    s3: s.FOLIO_S3_BUCKET
      ? Object.freeze({
          bucket: s.FOLIO_S3_BUCKET,
          endpoint: s.FOLIO_S3_ENDPOINT,
          region: s.FOLIO_S3_REGION,
          accessKeyId: s.FOLIO_S3_ACCESS_KEY_ID,
          secretAccessKey: s.FOLIO_S3_SECRET_ACCESS_KEY,
          forcePathStyle: s.FOLIO_S3_FORCE_PATH_STYLE,
          prefix: s.FOLIO_S3_PREFIX === undefined ? '' : s.FOLIO_S3_PREFIX.replace(/\/?$/, '/'),
        })
      : undefined,
    database: Object.freeze({
      url: s.FOLIO_DATABASE_URL,
      schema: s.FOLIO_DATABASE_SCHEMA,
      poolSize: s.FOLIO_DATABASE_POOL_SIZE,
      statementTimeoutMs: s.FOLIO_DATABASE_STATEMENT_TIMEOUT,
    }),
    converter: Object.freeze({
      kind: s.FOLIO_CONVERTER,
      workers: s.FOLIO_CONVERTER_WORKERS === 'auto' ? availableParallelism() : s.FOLIO_CONVERTER_WORKERS,
      timeoutMs: s.FOLIO_CONVERTER_TIMEOUT,
      queueSize: s.FOLIO_CONVERTER_QUEUE,
      memoryBytes: s.FOLIO_CONVERTER_MEMORY,
    }),
    metrics: Object.freeze({
      enabled: s.FOLIO_METRICS_TOKEN !== undefined || s.FOLIO_METRICS_ADDRESS !== undefined,
      token: s.FOLIO_METRICS_TOKEN,
      address: s.FOLIO_METRICS_ADDRESS === undefined ? undefined : parseHostPort(s.FOLIO_METRICS_ADDRESS),
    }),
  })
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new ConfigError([`FOLIO_CONFIG: cannot read ${path}: ${(error as Error).message}`])
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new ConfigError([`FOLIO_CONFIG: ${path} is not valid JSON: ${(error as Error).message}`])
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError([`FOLIO_CONFIG: ${path} must hold a JSON object of settings`])
  }
  return Object.fromEntries(Object.entries(parsed))
}
