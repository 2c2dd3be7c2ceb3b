import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { availableParallelism } from 'node:os'
import { EXPECTATIONS } from './advice.js'
import { buildConfig, ConfigError } from './load.js'
import { SETTING_NAMES } from './schema.js'

/** One bad value per setting, as an admin might type it (or put it in FOLIO_CONFIG). */
const BAD_VALUES: Record<string, unknown> = {
  FOLIO_PORT: 'abc',
  FOLIO_HOST: '',
  FOLIO_DATA_DIR: '',
  FOLIO_PUBLIC_URL: 'ftp://files.example.com',
  FOLIO_INTERNAL_URL: 'folio:8080',
  FOLIO_ADMIN_USER: 'x'.repeat(65),
  FOLIO_ADMIN_PASSWORD: 12345,
  FOLIO_LOG_LEVEL: 'loud',
  FOLIO_LOG_FORMAT: 'fancy',
  FOLIO_MAX_FILE_SIZE: 'huge',
  FOLIO_MIN_FREE_SPACE: 'plenty',
  FOLIO_SESSION_TTL: 'soon',
  FOLIO_WOPI_TOKEN_TTL: '-5m',
  FOLIO_LOGIN_MAX_FAILURES: '0',
  FOLIO_LOGIN_WINDOW: 'forever',
  FOLIO_TRASH_RETENTION: 'a month',
  FOLIO_TRUST_PROXY: 'maybe',
  FOLIO_SEARCH_MAX_TEXT: 'lots',
  FOLIO_SEARCH_TIMEOUT: 'a while',
  FOLIO_JOBS: 'sometimes',
  FOLIO_VERSION_SQUASH_WINDOW: 'a while',
  FOLIO_VERSIONS_KEEP: 'all of them',
  FOLIO_DOCS_URL: 'docs.example.com',
  FOLIO_DOCS_INTERNAL_URL: 'onlyoffice',
  FOLIO_DOCS_JWT_SECRET: 42,
  FOLIO_DOCS_JWT_HEADER: '',
  FOLIO_WOPI_DISCOVERY_URL: 'not a url',
  FOLIO_WOPI_PROOF_REQUIRED: 'sure',
  FOLIO_METRICS_TOKEN: 'short',
  FOLIO_METRICS_ADDRESS: 'nowhere',
  FOLIO_BODY_TIMEOUT: '0s',
  FOLIO_UPLOAD_IDLE_TIMEOUT: 'a while',
  FOLIO_OPERATION_WAIT: 'until done',
  FOLIO_S3_BUCKET: 'My_Bucket',
  FOLIO_S3_ENDPOINT: 'minio:9000',
  FOLIO_S3_REGION: '',
  FOLIO_S3_ACCESS_KEY_ID: 17,
  FOLIO_S3_SECRET_ACCESS_KEY: 17,
  FOLIO_S3_FORCE_PATH_STYLE: 'perhaps',
  FOLIO_S3_PREFIX: 'bad prefix',
  FOLIO_DATABASE_URL: 'mysql://secret@db/folio',
  FOLIO_DATABASE_SCHEMA: 'Bad-Schema',
  FOLIO_DATABASE_POOL_SIZE: '0',
  FOLIO_WORKERS: 'many',
  FOLIO_CONVERTER: 'unoconv',
  FOLIO_CONVERTER_WORKERS: '0',
  FOLIO_CONVERTER_TIMEOUT: 'forever',
  FOLIO_CONVERTER_QUEUE: '-1',
  FOLIO_CONVERTER_MEMORY: 'lots',
  FOLIO_DATABASE_STATEMENT_TIMEOUT: 'never',
}

function problemsFor(raw: Record<string, unknown>): string {
  try {
    buildConfig(raw)
  } catch (error) {
    assert.ok(error instanceof ConfigError)
    return error.message
  }
  assert.fail(`accepted ${JSON.stringify(raw)}`)
}

describe('configuration errors read as advice', () => {
  test('every setting has words for what it expects, and a bad value to test with', () => {
    assert.deepEqual(Object.keys(EXPECTATIONS).sort(), [...SETTING_NAMES].sort())
    assert.deepEqual(Object.keys(BAD_VALUES).sort(), [...SETTING_NAMES].sort())
  })

  for (const [name, value] of Object.entries(BAD_VALUES)) {
    test(`${name}: names the setting, what it expects and what it got`, () => {
      const message = problemsFor({ [name]: value })
      const expected = EXPECTATIONS[name] ?? ''
      assert.ok(message.includes(`${name} must be ${expected}, got `), message)
      const secret = [
        'FOLIO_ADMIN_PASSWORD',
        'FOLIO_DOCS_JWT_SECRET',
        'FOLIO_METRICS_TOKEN',
        'FOLIO_S3_SECRET_ACCESS_KEY',
        'FOLIO_DATABASE_URL',
      ].includes(name)
      if (typeof value === 'string' && value !== '' && !secret) {
        assert.ok(message.includes(`got '${value.slice(0, 77)}`), message)
      }
      if (typeof value === 'string' && secret) {
        assert.ok(!message.includes(value), `the value of ${name} is repeated: ${message}`)
        assert.match(message, /got a value of \d+ characters/)
      }
      // One line per bad setting, however many rules the value broke.
      assert.equal(message.split('\n').filter((line) => line.includes(name)).length, 1, message)
    })
  }

  test('the example from the issue', () => {
    assert.match(
      problemsFor({ FOLIO_PORT: 'abc' }),
      /FOLIO_PORT must be a port number \(1-65535, or 0 for any free port\), got 'abc'/,
    )
    assert.match(problemsFor({ FOLIO_PORT: 70000 }), /got 70000 \(a number\)/)
  })

  test('metrics settings: off by default, address parsed', () => {
    assert.deepEqual(buildConfig({}).metrics, { enabled: false, token: undefined, address: undefined })
    const config = buildConfig({ FOLIO_METRICS_ADDRESS: '127.0.0.1:9464', FOLIO_METRICS_TOKEN: 'a'.repeat(16) })
    assert.deepEqual(config.metrics, {
      enabled: true,
      token: 'a'.repeat(16),
      address: { host: '127.0.0.1', port: 9464 },
    })
    assert.deepEqual(buildConfig({ FOLIO_METRICS_ADDRESS: '[::1]:9464' }).metrics.address, { host: '::1', port: 9464 })
  })
})

describe('FOLIO_WORKERS', () => {
  test('one process by default, a count as given, auto for one per core', () => {
    assert.equal(buildConfig({}).workers, 1)
    assert.equal(buildConfig({ FOLIO_WORKERS: '3' }).workers, 3)
    assert.equal(buildConfig({ FOLIO_WORKERS: 'auto' }).workers, availableParallelism())
  })

  test('refuses 0 and counts over 64', () => {
    assert.match(problemsFor({ FOLIO_WORKERS: '0' }), /FOLIO_WORKERS must be/)
    assert.match(problemsFor({ FOLIO_WORKERS: 65 }), /FOLIO_WORKERS must be/)
  })
})
