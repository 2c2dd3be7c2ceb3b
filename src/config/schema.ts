import { z } from 'zod'
import { parseByteSize, parseDuration } from './units.js'

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

export const settingsSchema = z.object({
  /** TCP port to listen on. */
  FOLIO_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Interface to bind. */
  FOLIO_HOST: z.string().min(1).default('0.0.0.0'),
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
})

export type Settings = z.output<typeof settingsSchema>
export const SETTING_NAMES = Object.keys(settingsSchema.shape)
