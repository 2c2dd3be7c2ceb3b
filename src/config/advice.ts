/**
 * What each setting expects, in words an admin can act on. A bad value is reported as
 * "<NAME> must be <what it expects>, got <what it got>" (see describeBadValue).
 */
export const EXPECTATIONS: Record<string, string> = {
  FOLIO_PORT: 'a port number (1-65535, or 0 for any free port)',
  FOLIO_HOST: 'an interface address or host name to bind (for example 0.0.0.0 or 127.0.0.1)',
  FOLIO_DATA_DIR: 'a folder path',
  FOLIO_PUBLIC_URL: 'an http:// or https:// address (for example https://files.example.com)',
  FOLIO_INTERNAL_URL: 'an http:// or https:// address (for example http://folio:8080)',
  FOLIO_ADMIN_USER: 'a user name of 1 to 64 characters',
  FOLIO_ADMIN_PASSWORD: 'a text value',
  FOLIO_LOG_LEVEL: 'one of fatal, error, warn, info, debug, trace, silent',
  FOLIO_LOG_FORMAT: 'json or pretty',
  FOLIO_MAX_FILE_SIZE: 'a size above zero (for example 100MiB or 1GiB)',
  FOLIO_MIN_FREE_SPACE: 'a size (for example 256MiB or 2GiB), or 0 to keep no reserve',
  FOLIO_SESSION_TTL: 'a duration above zero (for example 30m, 10h, 7d)',
  FOLIO_WOPI_TOKEN_TTL: 'a duration above zero (for example 30m, 10h, 7d)',
  FOLIO_LOGIN_MAX_FAILURES: 'a whole number of at least 1',
  FOLIO_LOGIN_WINDOW: 'a duration above zero (for example 30m, 10h, 7d)',
  FOLIO_TRASH_RETENTION: 'a duration above zero (for example 30d)',
  FOLIO_TRUST_PROXY: 'true or false',
  FOLIO_SEARCH_MAX_TEXT: 'a number of characters above zero (for example 1MiB or 200000)',
  FOLIO_SEARCH_TIMEOUT: 'a duration above zero (for example 30s)',
  FOLIO_JOBS: 'true or false',
  FOLIO_VERSION_SQUASH_WINDOW: 'a duration (for example 5m), or 0 to keep every save as its own version',
  FOLIO_VERSIONS_KEEP: 'a whole number of at least 1, or unlimited',
  FOLIO_DOCS_URL: 'an http:// or https:// address (for example https://docs.example.com)',
  FOLIO_DOCS_INTERNAL_URL: 'an http:// or https:// address (for example http://onlyoffice)',
  FOLIO_DOCS_JWT_SECRET: 'a text value',
  FOLIO_DOCS_JWT_HEADER: 'a header name (for example Authorization or AuthorizationJwt)',
  FOLIO_WOPI_DISCOVERY_URL: 'an http:// or https:// address',
  FOLIO_WOPI_PROOF_REQUIRED: 'true or false',
  FOLIO_METRICS_TOKEN: 'a bearer token of at least 16 characters',
  FOLIO_METRICS_ADDRESS: 'host:port to serve /metrics on (for example 127.0.0.1:9464)',
  FOLIO_BODY_TIMEOUT: 'a duration above zero (for example 10s)',
  FOLIO_UPLOAD_IDLE_TIMEOUT: 'a duration above zero (for example 30s)',
  FOLIO_OPERATION_WAIT: 'a duration (for example 2s), or 0 to answer at once',
  FOLIO_S3_BUCKET: 'an S3 bucket name (3-63 lowercase letters, digits, dots and hyphens)',
  FOLIO_S3_ENDPOINT: 'an http:// or https:// address (for example http://minio:9000)',
  FOLIO_S3_REGION: 'a region name (for example us-east-1)',
  FOLIO_S3_ACCESS_KEY_ID: 'an access key id',
  FOLIO_S3_SECRET_ACCESS_KEY: 'a secret access key',
  FOLIO_S3_FORCE_PATH_STYLE: 'true or false',
  FOLIO_S3_PREFIX: 'a key prefix of letters, digits, . _ - with / between parts (for example folio/)',
  FOLIO_DATABASE_URL: 'a postgres:// or postgresql:// address (for example postgres://folio@db:5432/folio)',
  FOLIO_DATABASE_SCHEMA: 'a lower-case identifier (letters, digits, _)',
  FOLIO_DATABASE_POOL_SIZE: 'a whole number from 1 to 1000',
  FOLIO_WORKERS: "a whole number from 1 to 64, or 'auto' for one process per core",
  FOLIO_CONVERTER: 'auto, libreoffice, docs or off',
  FOLIO_CONVERTER_WORKERS: "a whole number from 1 to 64, or 'auto' for one per core",
  FOLIO_CONVERTER_TIMEOUT: 'a duration above zero (for example 2m)',
  FOLIO_CONVERTER_QUEUE: 'a whole number from 0 to 100000',
  FOLIO_CONVERTER_MEMORY: 'a size above zero (for example 2GiB)',
  FOLIO_DATABASE_STATEMENT_TIMEOUT: 'a duration above zero (for example 30s, 2m)',
}

/** Settings whose values are never repeated in a message (they are credentials). */
const SECRET_SETTINGS = new Set([
  'FOLIO_ADMIN_PASSWORD',
  'FOLIO_DOCS_JWT_SECRET',
  'FOLIO_METRICS_TOKEN',
  'FOLIO_S3_SECRET_ACCESS_KEY',
  // A PostgreSQL address may carry a password.
  'FOLIO_DATABASE_URL',
])

/**
 * The message for a bad value of `name`: what it must be and what it got (a secret's
 * value is described, never shown). Falls back to the validator's own words for a
 * setting without an entry in EXPECTATIONS.
 */
export function describeBadValue(name: string, value: unknown, fallback: string): string {
  const expected = EXPECTATIONS[name]
  if (expected === undefined) return `${name}: ${fallback}`
  return `${name} must be ${expected}, got ${showValue(value, SECRET_SETTINGS.has(name))}`
}

function showValue(value: unknown, secret: boolean): string {
  if (typeof value === 'string') {
    if (secret) return `a value of ${value.length} characters`
    if (value === '') return 'an empty value'
    const shown = value.length > 80 ? `${value.slice(0, 77)}...` : value
    return `'${shown}'`
  }
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'an object'
  if (secret) return `a ${typeof value}`
  return `${String(value)} (a ${typeof value})`
}
