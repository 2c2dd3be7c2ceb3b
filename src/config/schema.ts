import { z } from 'zod'
import { parseByteSize, parseDuration, parseHostPort } from './units.js'

/**
 * Every setting Folio reads, with its default. The README's configuration table
 * lists the same keys (a test checks that the two agree). Values come from the
 * environment, or from the JSON file named by FOLIO_CONFIG (environment wins).
 */

const byteSize = z.union([z.number().int().positive(), z.string()]).transform((value, ctx) => {
  const bytes = typeof value === 'number' ? value : parseByteSize(value)
  if (bytes === undefined || bytes <= 0) {
    ctx.addIssue({ code: 'custom', message: `not a size (try 100MiB or 1GiB): ${value}` })
    return z.NEVER
  }
  return bytes
})

const duration = z.union([z.number().int().positive(), z.string()]).transform((value, ctx) => {
  const ms = typeof value === 'number' ? value * 1000 : parseDuration(value)
  if (ms === undefined || ms <= 0) {
    ctx.addIssue({ code: 'custom', message: `not a duration (try 30m, 10h, 7d): ${value}` })
    return z.NEVER
  }
  return ms
})

/** A duration where 0 (or '0', '0s'...) means off. */
const durationOrOff = z.union([z.number().int().min(0), z.string()]).transform((value, ctx) => {
  const ms = typeof value === 'number' ? value * 1000 : parseDuration(value)
  if (ms === undefined || ms < 0) {
    ctx.addIssue({ code: 'custom', message: `not a duration (try 5m, or 0 for off): ${value}` })
    return z.NEVER
  }
  return ms
})

/** A whole number of at least 1, or 'unlimited' (also '' or 0) for no limit (undefined). */
const limitOrUnlimited = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const text = String(value).trim().toLowerCase()
  if (text === '' || text === '0' || text === 'unlimited') return undefined
  const n = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) {
    ctx.addIssue({ code: 'custom', message: `not a whole number or 'unlimited': ${value}` })
    return z.NEVER
  }
  return n
})

/** A whole number of processes from 1 to 64, or 'auto' for one per core. */
const workerCount = z.union([z.number(), z.string()]).transform((value, ctx): number | 'auto' => {
  const text = String(value).trim().toLowerCase()
  if (text === 'auto') return 'auto'
  const n = Number(text)
  if (!/^\d+$/.test(text) || n < 1 || n > 64) {
    ctx.addIssue({ code: 'custom', message: `not a number of processes from 1 to 64, or 'auto': ${value}` })
    return z.NEVER
  }
  return n
})

const httpUrl = z
  .string()
  .url()
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http:// or https:// address')
  .transform((value) => value.replace(/\/+$/, ''))

const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((value) => value === true || value === 'true' || value === '1' || value === 'yes')

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value))

// The message never repeats the value: a database URL may carry a password.
const postgresUrl = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value))
  .refine(
    (value) => value === undefined || /^postgres(ql)?:\/\/[^/\s]*\/[^/\s?]+/i.test(value),
    'must be a postgres://user:password@host:port/database address',
  )

export const settingsSchema = z.object({
  /** TCP port to listen on. */
  FOLIO_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Interface to bind. */
  FOLIO_HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * Processes serving the port together over the same storage; 'auto' is one per core.
   * 1 by default: see the README (Several processes) for why.
   */
  FOLIO_WORKERS: workerCount.default(1),
  /** Folder for the SQLite database and file contents. */
  FOLIO_DATA_DIR: z.string().min(1).default('./data'),
  /** Address clients use to reach Folio; every URL Folio hands out starts with it. */
  FOLIO_PUBLIC_URL: httpUrl.optional(),
  /**
   * Address editors' servers use to reach Folio (ONLYOFFICE Docs downloads and callbacks,
   * WOPI clients calling WOPISrc) when it differs from the browsers' one; FOLIO_PUBLIC_URL
   * by default.
   */
  FOLIO_INTERNAL_URL: httpUrl.optional(),
  /** Name of the admin account created on first start. */
  FOLIO_ADMIN_USER: z.string().min(1).max(64).default('admin'),
  /** Its password; when unset a random one is generated and logged once. */
  FOLIO_ADMIN_PASSWORD: optionalText,
  /** pino level: fatal, error, warn, info, debug, trace, silent. */
  FOLIO_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** json: one JSON object per line (for log collectors); pretty: coloured lines for a terminal. */
  FOLIO_LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  /** Largest file accepted by upload, PutFile and editor saves. */
  FOLIO_MAX_FILE_SIZE: byteSize.default(1024 ** 3),
  /** Lifetime of a portal token from authentication.json. */
  FOLIO_SESSION_TTL: duration.default(24 * 3_600_000),
  /** Lifetime of a WOPI access token (long: exit saves use the last author's token). */
  FOLIO_WOPI_TOKEN_TTL: duration.default(10 * 3_600_000),
  /** Failed sign-ins per user name or client address before 429. */
  FOLIO_LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).default(5),
  /** Window over which failed sign-ins are counted, and the lock-out length. */
  FOLIO_LOGIN_WINDOW: duration.default(15 * 60_000),
  /** How long trashed files and folders are kept before the housekeeping deletes them for good. */
  FOLIO_TRASH_RETENTION: duration.default(30 * 24 * 3_600_000),
  /** Time a small JSON, form or text request body has to arrive whole (408 after it). */
  FOLIO_BODY_TIMEOUT: duration.default(10_000),
  /** Longest pause between two bytes of an upload or other large body (408 after it). */
  FOLIO_UPLOAD_IDLE_TIMEOUT: duration.default(30_000),
  /** Saves of one user within this time of their previous one replace it (0: off). */
  FOLIO_VERSION_SQUASH_WINDOW: durationOrOff.default(5 * 60_000),
  /** Most versions kept per file; older ones go, their bytes freed ('unlimited' by default). */
  FOLIO_VERSIONS_KEEP: limitOrUnlimited.optional(),
  /** Trust X-Forwarded-For from a reverse proxy for the client address. */
  FOLIO_TRUST_PROXY: flag.default(false),
  /** ONLYOFFICE Docs address as browsers reach it (enables the native editor). */
  FOLIO_DOCS_URL: httpUrl.optional(),
  /** ONLYOFFICE Docs address as Folio reaches it (defaults to FOLIO_DOCS_URL). */
  FOLIO_DOCS_INTERNAL_URL: httpUrl.optional(),
  /** JWT secret shared with ONLYOFFICE Docs; JWT is on whenever it is set. */
  FOLIO_DOCS_JWT_SECRET: optionalText,
  /** Header ONLYOFFICE Docs carries its JWT in. */
  FOLIO_DOCS_JWT_HEADER: z.string().min(1).default('Authorization'),
  /** WOPI client discovery address (enables WOPI action URLs and proof keys). */
  FOLIO_WOPI_DISCOVERY_URL: httpUrl.optional(),
  /** Refuse WOPI requests that carry no proof headers (needs discovery with proof keys). */
  FOLIO_WOPI_PROOF_REQUIRED: flag.default(false),
  /** S3 bucket for file contents; when set contents go there instead of FOLIO_DATA_DIR. */
  FOLIO_S3_BUCKET: optionalText.refine(
    (value) => value === undefined || /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(value),
    'must be an S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens',
  ),
  /** S3 server address; unset means AWS's endpoint for FOLIO_S3_REGION. */
  FOLIO_S3_ENDPOINT: httpUrl.optional(),
  /** S3 region (signs every request; most other servers accept us-east-1). */
  FOLIO_S3_REGION: z.string().min(1).default('us-east-1'),
  /** S3 access key; with the secret, or both unset for the AWS SDK's own credential chain. */
  FOLIO_S3_ACCESS_KEY_ID: optionalText,
  /** S3 secret key (never logged). */
  FOLIO_S3_SECRET_ACCESS_KEY: optionalText,
  /** Bucket in the URL path rather than the host name (most self-hosted S3 servers). */
  FOLIO_S3_FORCE_PATH_STYLE: flag.default(false),
  /** Prepended to every object key, so several stores can share a bucket ('/' added). */
  FOLIO_S3_PREFIX: optionalText.refine(
    (value) => value === undefined || /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/?$/.test(value),
    'letters, digits, . _ - and / between them',
  ),
  /** PostgreSQL holding the metadata; unset keeps it in SQLite in FOLIO_DATA_DIR. */
  FOLIO_DATABASE_URL: postgresUrl,
  /** Schema of Folio's tables in that database, created when missing. */
  FOLIO_DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case identifier (letters, digits, _)')
    .default('public'),
  /** Most connections one instance keeps open to PostgreSQL. */
  FOLIO_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  /** Longest a PostgreSQL statement may run before it is cancelled. */
  FOLIO_DATABASE_STATEMENT_TIMEOUT: duration.default(30_000),
  /** Bearer token that /metrics requires; metrics are off unless this or FOLIO_METRICS_ADDRESS is set. */
  FOLIO_METRICS_TOKEN: optionalText.refine((value) => value === undefined || value.length >= 16),
  /** host:port of a separate listener that serves only /metrics (for example 127.0.0.1:9464). */
  FOLIO_METRICS_ADDRESS: optionalText.refine(
    (value) => value === undefined || parseHostPort(value) !== undefined,
  ),
})

export type Settings = z.output<typeof settingsSchema>
export const SETTING_NAMES = Object.keys(settingsSchema.shape)
