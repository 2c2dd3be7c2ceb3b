import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { settingsSchema, SETTING_NAMES, type Settings } from './schema.js'

/** The validated, frozen configuration every part of Folio receives. */
export interface Config {
  port: number
  host: string
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
  maxFileSize: number
  sessionTtlMs: number
  wopiTokenTtlMs: number
  loginMaxFailures: number
  loginWindowMs: number
  trustProxy: boolean
  docs:
    | { url: string; internalUrl: string; jwtSecret: string | undefined; jwtHeader: string }
    | undefined
  wopi: { discoveryUrl: string | undefined; proofRequired: boolean }
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
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${issue.path.join('.') || '(root)'}: ${issue.message}`)
    }
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems)
  const s = parsed.data
  const publicUrl = s.FOLIO_PUBLIC_URL ?? `http://localhost:${s.FOLIO_PORT}`
  const docsUrl = s.FOLIO_DOCS_URL
  return Object.freeze({
    port: s.FOLIO_PORT,
    host: s.FOLIO_HOST,
    dataDir: resolve(s.FOLIO_DATA_DIR),
    publicUrl,
    internalUrl: s.FOLIO_INTERNAL_URL ?? publicUrl,
    adminUser: s.FOLIO_ADMIN_USER,
    adminPassword: s.FOLIO_ADMIN_PASSWORD,
    logLevel: s.FOLIO_LOG_LEVEL,
    maxFileSize: s.FOLIO_MAX_FILE_SIZE,
    sessionTtlMs: s.FOLIO_SESSION_TTL,
    wopiTokenTtlMs: s.FOLIO_WOPI_TOKEN_TTL,
    loginMaxFailures: s.FOLIO_LOGIN_MAX_FAILURES,
    loginWindowMs: s.FOLIO_LOGIN_WINDOW,
    trustProxy: s.FOLIO_TRUST_PROXY,
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
