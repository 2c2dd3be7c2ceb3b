import pg from 'pg'

/** How long opening a connection may take before the attempt fails. */
export const CONNECT_TIMEOUT_MS = 10_000

/** A schema name Folio accepts: a plain lower-case SQL identifier, so it never needs escaping. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** Connection settings shared by the pool and the migrating connection. */
export interface ConnectionOptions {
  /** postgres://user:password@host:port/database */
  url: string
  /** Schema holding Folio's tables (the connection's search_path); created when missing. */
  schema: string
}

/**
 * Throws unless `schema` is a plain identifier (lower-case letters, digits, `_`, at most
 * 63 characters, not starting with a digit); such a name is safe inside double quotes.
 */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`schema name ${JSON.stringify(schema)} is not a plain lower-case identifier`)
  }
  return schema
}

/** The schema as a quoted SQL identifier (after checkSchemaName). */
export function quotedSchema(schema: string): string {
  return `"${checkSchemaName(schema)}"`
}

/**
 * `url` with any password replaced by `***`, for log lines and error messages.
 * Text that does not parse as a URL is replaced whole.
 */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(unparsable database URL)'
  }
}

function parseBigint(text: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value)) {
    throw new Error(`PostgreSQL returned ${text}, which is outside JavaScript's safe integers`)
  }
  return value
}

const INT8_OID = 20

/**
 * Type parsers of Folio's connections: bigint (int8, also the type of count(*)) comes
 * back as a JavaScript number, refusing values beyond 2^53 instead of rounding them;
 * every other type keeps pg's own parser. Scoped to Folio's pool, not set globally.
 */
export const folioTypes: pg.CustomTypesConfig = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID && format !== 'binary') return parseBigint
    return pg.types.getTypeParser(oid, format)
  },
}

/** The pg client settings of one connection to `options.url` using `options.schema`. */
export function clientConfig(options: ConnectionOptions): pg.ClientConfig {
  return {
    connectionString: options.url,
    // A startup parameter, so every connection of the pool uses the schema from its start.
    options: `-c search_path=${checkSchemaName(options.schema)}`,
    types: folioTypes,
    application_name: 'folio',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  }
}
