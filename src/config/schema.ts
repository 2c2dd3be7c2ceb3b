import * as z from 'zod/mini'
import { parseByteSize, parseDuration, parseHostPort } from './units.js'

// zod/mini rather than the classic `zod` entry: a start loads only the parts used here
// (the classic entry is about 600 KB of bundle, some 5 MiB resident). Messages need no
// locale: every problem is reported in the words of advice.ts.

/**
 * Every setting Folio reads, with its default. docs/configuration.md lists the same keys
 * with the same defaults (a test in config.test.ts checks that the two agree). Values come from the
 * environment, or from the JSON file named by FOLIO_CONFIG (environment wins).
 */

const byteSize = z.pipe(
  z.union([z.number().check(z.int(), z.positive()), z.string()]),
  z.transform((value, ctx) => {
    const bytes = typeof value === 'number' ? value : parseByteSize(value)
    if (bytes === undefined || bytes <= 0) {
      ctx.issues.push({ code: 'custom', message: `not a size (try 100MiB or 1GiB): ${value}`, input: value })
      return z.NEVER
    }
    return bytes
  }),
)

/** As byteSize, and 0 (or '0') allowed: a setting that 0 turns off. */
const byteSizeOrZero = z.pipe(
  z.union([z.number().check(z.int(), z.gte(0)), z.string()]),
  z.transform((value, ctx) => {
    const bytes = typeof value === 'number' ? value : parseByteSize(value)
    if (bytes === undefined) {
      ctx.issues.push({ code: 'custom', message: `not a size (try 256MiB or 0): ${value}`, input: value })
      return z.NEVER
    }
    return bytes
  }),
)

const duration = z.pipe(
  z.union([z.number().check(z.int(), z.positive()), z.string()]),
  z.transform((value, ctx) => {
    const ms = typeof value === 'number' ? value * 1000 : parseDuration(value)
    if (ms === undefined || ms <= 0) {
      ctx.issues.push({ code: 'custom', message: `not a duration (try 30m, 10h, 7d): ${value}`, input: value })
      return z.NEVER
    }
    return ms
  }),
)

/** A duration where 0 (or '0', '0s'...) means off. */
const durationOrOff = z.pipe(
  z.union([z.number().check(z.int(), z.gte(0)), z.string()]),
  z.transform((value, ctx) => {
    const ms = typeof value === 'number' ? value * 1000 : parseDuration(value)
    if (ms === undefined || ms < 0) {
      ctx.issues.push({ code: 'custom', message: `not a duration (try 5m, or 0 for off): ${value}`, input: value })
      return z.NEVER
    }
    return ms
  }),
)

/** A whole number of at least 1, or 'unlimited' (also '' or 0) for no limit (undefined). */
const limitOrUnlimited = z.pipe(
  z.union([z.number(), z.string()]),
  z.transform((value, ctx) => {
    const text = String(value).trim().toLowerCase()
    if (text === '' || text === '0' || text === 'unlimited') return undefined
    const n = Number(text)
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) {
      ctx.issues.push({ code: 'custom', message: `not a whole number or 'unlimited': ${value}`, input: value })
      return z.NEVER
    }
    return n
  }),
)

/** A whole number of processes from 1 to 64, or 'auto' for one per core. */
const workerCount = z.pipe(
  z.union([z.number(), z.string()]),
  z.transform((value, ctx): number | 'auto' => {
    const text = String(value).trim().toLowerCase()
    if (text === 'auto') return 'auto'
    const n = Number(text)
    if (!/^\d+$/.test(text) || n < 1 || n > 64) {
      ctx.issues.push({
        code: 'custom',
        message: `not a number of processes from 1 to 64, or 'auto': ${value}`,
        input: value,
      })
      return z.NEVER
    }
    return n
  }),
)

const httpUrl = z.pipe(
  z.string().check(
    z.url(),
    z.refine((value) => /^https?:\/\//i.test(value), 'must be an http:// or https:// address'),
  ),
  z.transform((value) => value.replace(/\/+$/, '')),
)

const flag = z.pipe(
  z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])]),
  z.transform((value) => value === true || value === 'true' || value === '1' || value === 'yes'),
)

const optionalText = z.pipe(
  z.optional(z.string()),
  z.transform((value) => (value === undefined || value === '' ? undefined : value)),
)

// The message never repeats the value: a database URL may carry a password.
const postgresUrl = optionalText.check(
  z.refine(
    (value) => value === undefined || /^postgres(ql)?:\/\/[^/\s]*\/[^/\s?]+/i.test(value),
    'must be a postgres://user:password@host:port/database address',
  ),
)

export const settingsSchema = z.object({
  /** TCP port to listen on. */
  FOLIO_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), 8080),
  /** Interface to bind. */
  FOLIO_HOST: z._default(z.string().check(z.minLength(1)), '0.0.0.0'),
  /**
   * Processes serving the port together over the same storage; 'auto' is one per core.
   * 1 by default: see docs/storage-and-scale-out.md (Several processes) for why.
   */
  FOLIO_WORKERS: z._default(workerCount, 1),
  /** Folder for the SQLite database and file contents. */
  FOLIO_DATA_DIR: z._default(z.string().check(z.minLength(1)), './data'),
  /** Address clients use to reach Folio; every URL Folio hands out starts with it. */
  FOLIO_PUBLIC_URL: z.optional(httpUrl),
  /**
   * Address editors' servers use to reach Folio (ONLYOFFICE Docs downloads and callbacks,
   * WOPI clients calling WOPISrc) when it differs from the browsers' one; FOLIO_PUBLIC_URL
   * by default.
   */
  FOLIO_INTERNAL_URL: z.optional(httpUrl),
  /** Name of the admin account created on first start. */
  FOLIO_ADMIN_USER: z._default(z.string().check(z.minLength(1), z.maxLength(64)), 'admin'),
  /** Its password; when unset a random one is generated and logged once. */
  FOLIO_ADMIN_PASSWORD: optionalText,
  /** pino level: fatal, error, warn, info, debug, trace, silent. */
  FOLIO_LOG_LEVEL: z._default(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
  /** json: one JSON object per line (for log collectors); pretty: coloured lines for a terminal. */
  FOLIO_LOG_FORMAT: z._default(z.enum(['json', 'pretty']), 'json'),
  /** Largest file accepted by upload, PutFile and editor saves. */
  FOLIO_MAX_FILE_SIZE: z._default(byteSize, 1024 ** 3),
  /**
   * Free space kept on the disk of the data folder: a write of file contents (upload,
   * WOPI PutFile and PutRelativeFile, an editor save) that would leave less is refused
   * with 507, so that sign-ins, renames, locks and deletes, which write only small
   * metadata, always find room, and deleting can free space. A fixed size rather than a
   * share of the disk: what these writes need (SQLite's write-ahead log between two
   * checkpoints, some 4 MiB, a few log lines) does not grow with the disk, and a
   * percentage would hold back tens of GiB on a large one. 256 MiB covers that many times
   * over and is little on any disk meant for documents. 0 turns the reserve off; with S3
   * for file contents it does not apply (the bucket has no free-space figure).
   */
  FOLIO_MIN_FREE_SPACE: z._default(byteSizeOrZero, 256 * 1024 ** 2),
  /** Lifetime of a portal token from authentication.json. */
  FOLIO_SESSION_TTL: z._default(duration, 24 * 3_600_000),
  /** Lifetime of a WOPI access token (long: exit saves use the last author's token). */
  FOLIO_WOPI_TOKEN_TTL: z._default(duration, 10 * 3_600_000),
  /** Failed sign-ins per user name or client address before 429. */
  FOLIO_LOGIN_MAX_FAILURES: z._default(z.coerce.number().check(z.int(), z.gte(1)), 5),
  /** Window over which failed sign-ins are counted, and the lock-out length. */
  FOLIO_LOGIN_WINDOW: z._default(duration, 15 * 60_000),
  /** How long trashed files and folders are kept before the housekeeping deletes them for good. */
  FOLIO_TRASH_RETENTION: z._default(duration, 30 * 24 * 3_600_000),
  /** Time a small JSON, form or text request body has to arrive whole (408 after it). */
  FOLIO_BODY_TIMEOUT: z._default(duration, 10_000),
  /** Longest pause between two bytes of an upload or other large body (408 after it). */
  FOLIO_UPLOAD_IDLE_TIMEOUT: z._default(duration, 30_000),
  /** How long a file operation's call (move, copy, delete, restore, empty trash, archive) waits for its end before answering it running (0: not at all). */
  FOLIO_OPERATION_WAIT: z._default(durationOrOff, 2_000),
  /** Saves of one user within this time of their previous one replace it (0: off). */
  FOLIO_VERSION_SQUASH_WINDOW: z._default(durationOrOff, 5 * 60_000),
  /** Most versions kept per file; older ones go, their bytes freed ('unlimited' by default). */
  FOLIO_VERSIONS_KEEP: z.optional(limitOrUnlimited),
  /** Most characters of text the search index keeps per document (the rest is not searchable). */
  FOLIO_SEARCH_MAX_TEXT: z._default(byteSize, 1024 ** 2),
  /** Longest the text of one document may take to read for the search index. */
  FOLIO_SEARCH_TIMEOUT: z._default(duration, 30_000),
  /** Run background jobs (search indexing) in this instance; every instance sharing the store may. */
  FOLIO_JOBS: z._default(flag, true),
  /** Trust X-Forwarded-For from a reverse proxy for the client address. */
  FOLIO_TRUST_PROXY: z._default(flag, false),
  /** ONLYOFFICE Docs address as browsers reach it (enables the native editor). */
  FOLIO_DOCS_URL: z.optional(httpUrl),
  /** ONLYOFFICE Docs address as Folio reaches it (defaults to FOLIO_DOCS_URL). */
  FOLIO_DOCS_INTERNAL_URL: z.optional(httpUrl),
  /** JWT secret shared with ONLYOFFICE Docs; JWT is on whenever it is set. */
  FOLIO_DOCS_JWT_SECRET: optionalText,
  /** Header ONLYOFFICE Docs carries its JWT in. */
  FOLIO_DOCS_JWT_HEADER: z._default(z.string().check(z.minLength(1)), 'Authorization'),
  /** WOPI client discovery address (enables WOPI action URLs and proof keys). */
  FOLIO_WOPI_DISCOVERY_URL: z.optional(httpUrl),
  /** Refuse WOPI requests that carry no proof headers (needs discovery with proof keys). */
  FOLIO_WOPI_PROOF_REQUIRED: z._default(flag, false),
  /** S3 bucket for file contents; when set contents go there instead of FOLIO_DATA_DIR. */
  FOLIO_S3_BUCKET: optionalText.check(
    z.refine(
      (value) => value === undefined || /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(value),
      'must be an S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens',
    ),
  ),
  /** S3 server address; unset means AWS's endpoint for FOLIO_S3_REGION. */
  FOLIO_S3_ENDPOINT: z.optional(httpUrl),
  /** S3 region (signs every request; most other servers accept us-east-1). */
  FOLIO_S3_REGION: z._default(z.string().check(z.minLength(1)), 'us-east-1'),
  /** S3 access key; with the secret, or both unset for the AWS SDK's own credential chain. */
  FOLIO_S3_ACCESS_KEY_ID: optionalText,
  /** S3 secret key (never logged). */
  FOLIO_S3_SECRET_ACCESS_KEY: optionalText,
  /** Bucket in the URL path rather than the host name (most self-hosted S3 servers). */
  FOLIO_S3_FORCE_PATH_STYLE: z._default(flag, false),
  /** Prepended to every object key, so several stores can share a bucket ('/' added). */
  FOLIO_S3_PREFIX: optionalText.check(
    z.refine(
      (value) => value === undefined || /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/?$/.test(value),
      'letters, digits, . _ - and / between them',
    ),
  ),
  /** PostgreSQL holding the metadata; unset keeps it in SQLite in FOLIO_DATA_DIR. */
  FOLIO_DATABASE_URL: postgresUrl,
  /** Schema of Folio's tables in that database, created when missing. */
  FOLIO_DATABASE_SCHEMA: z._default(
    z.string().check(z.regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case identifier (letters, digits, _)')),
    'public',
  ),
  /** Most connections one instance keeps open to PostgreSQL. */
  FOLIO_DATABASE_POOL_SIZE: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(1000)), 10),
  /** Longest a PostgreSQL statement may run before it is cancelled. */
  FOLIO_DATABASE_STATEMENT_TIMEOUT: z._default(duration, 30_000),
  /**
   * Document converter: 'auto' is ONLYOFFICE Docs when FOLIO_DOCS_URL is set, else LibreOffice
   * when soffice is on the PATH, else off; 'off' answers every conversion 501.
   */
  FOLIO_CONVERTER: z._default(z.enum(['auto', 'libreoffice', 'docs', 'off']), 'auto'),
  /** Conversions at once (LibreOffice: office processes); 'auto' is one per core. */
  FOLIO_CONVERTER_WORKERS: z._default(workerCount, 'auto'),
  /** Longest one conversion may take; a LibreOffice process running longer is replaced. */
  FOLIO_CONVERTER_TIMEOUT: z._default(duration, 120_000),
  /** Conversions that may wait for a worker; beyond them 503 with Retry-After. */
  FOLIO_CONVERTER_QUEUE: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 100),
  /** Address-space limit of each LibreOffice process (a decompression bomb fails, not the machine). */
  FOLIO_CONVERTER_MEMORY: z._default(byteSize, 2 * 1024 ** 3),
  /** Bearer token that /metrics requires; metrics are off unless this or FOLIO_METRICS_ADDRESS is set. */
  FOLIO_METRICS_TOKEN: optionalText.check(z.refine((value) => value === undefined || value.length >= 16)),
  /** host:port of a separate listener that serves only /metrics (for example 127.0.0.1:9464). */
  FOLIO_METRICS_ADDRESS: optionalText.check(
    z.refine((value) => value === undefined || parseHostPort(value) !== undefined),
  ),
})

export type Settings = z.output<typeof settingsSchema>
export const SETTING_NAMES = Object.keys(settingsSchema.shape)
