import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { redactDatabaseUrl } from '../../src/drivers/metadata-postgres/connection.js'
import { folioS3Env, removeBucket, s3TestClient, s3TestSettings, uniqueBucketName } from './s3-test-server.js'

/** The database tests use: FOLIO_TEST_DATABASE_URL, else `test` on the local server. */
export const TEST_DATABASE_URL = process.env.FOLIO_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/**
 * Whether PostgreSQL tests can run: undefined when the test database answers, else the
 * reason they are skipped. Under CI=true an unreachable database is an error instead
 * (CI must never pass by skipping them).
 */
export async function postgresSkipReason(): Promise<string | undefined> {
  // A loaded machine can take seconds to accept a connection: only a database that
  // stays silent through several generous attempts counts as unreachable.
  let failure: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 20_000 })
    try {
      await client.connect()
      await client.query('SELECT 1')
      return undefined
    } catch (error) {
      failure = error
    } finally {
      await client.end().catch(() => undefined)
    }
  }
  const reason =
    `PostgreSQL is not reachable at ${redactDatabaseUrl(TEST_DATABASE_URL)} ` +
    `(${failure instanceof Error ? failure.message : String(failure)}); ` +
    'start it or set FOLIO_TEST_DATABASE_URL'
  if (process.env.CI === 'true') throw new Error(`${reason} (required under CI=true)`)
  return reason
}

/** A schema name no other test run uses (the driver creates it on open). */
export function uniqueSchemaName(prefix = 'folio_test'): string {
  return `${prefix}_${process.pid}_${randomBytes(6).toString('hex')}`
}

/** Drops `schema` and everything in it (the name comes from uniqueSchemaName). */
export async function dropSchema(schema: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(schema)) throw new Error(`refusing to drop schema ${schema}`)
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  } finally {
    await client.end()
  }
}

/** Runs one query on the test database with its own connection (for assertions). */
export async function queryTestDatabase<R extends pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    return (await client.query<R>(sql, params)).rows
  } finally {
    await client.end()
  }
}

/** Settings that place a test server's metadata and contents, and how to remove them afterwards. */
export interface TestMetadata {
  settings: Record<string, string>
  dispose(): Promise<void>
}

/**
 * Where test servers keep their metadata and contents: SQLite and the blob folder in the
 * data folder (no settings); with FOLIO_TEST_METADATA=postgres (`npm run test:postgres`,
 * `npm run test:scale`) the metadata goes to a schema of its own on the test database;
 * with FOLIO_TEST_BLOBS=s3 (`npm run test:scale`) the contents go to a bucket of its own
 * on the S3 test server. dispose() drops the schema and empties and deletes the bucket.
 */
export function testMetadata(): TestMetadata {
  const settings: Record<string, string> = {}
  const cleanups: Array<() => Promise<void>> = []
  if (process.env.FOLIO_TEST_METADATA === 'postgres') {
    const schema = uniqueSchemaName('folio_e2e')
    settings.FOLIO_DATABASE_URL = TEST_DATABASE_URL
    settings.FOLIO_DATABASE_SCHEMA = schema
    cleanups.push(() => dropSchema(schema))
  }
  if (testBlobsInS3()) {
    const s3 = s3TestSettings()
    const bucket = uniqueBucketName()
    Object.assign(settings, folioS3Env(s3, bucket))
    cleanups.push(async () => {
      const client = s3TestClient(s3)
      try {
        await removeBucket(client, bucket)
      } catch (error) {
        // A server that failed to start never created its bucket.
        if (!(error instanceof Error && /NoSuchBucket|NotFound/.test(error.name))) throw error
      } finally {
        client.destroy()
      }
    })
  }
  return {
    settings,
    dispose: async () => {
      for (const cleanup of cleanups) await cleanup()
    },
  }
}

/** True under FOLIO_TEST_BLOBS=s3: test servers keep contents on the S3 test server. */
export function testBlobsInS3(): boolean {
  return process.env.FOLIO_TEST_BLOBS === 's3'
}
