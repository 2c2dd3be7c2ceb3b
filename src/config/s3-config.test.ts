import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildConfig, ConfigError } from './load.js'

function problemsOf(raw: Record<string, unknown>): string {
  try {
    buildConfig(raw)
  } catch (error) {
    assert.ok(error instanceof ConfigError)
    return error.message
  }
  assert.fail('should have thrown')
}

describe('S3 settings', () => {
  test('no bucket: contents stay on the local disk', () => {
    assert.equal(buildConfig({}).s3, undefined)
  })

  test('a bucket: S3 with its defaults, the prefix ending in one slash', () => {
    const config = buildConfig({
      FOLIO_S3_BUCKET: 'folio-files',
      FOLIO_S3_ENDPOINT: 'http://127.0.0.1:9000/',
      FOLIO_S3_ACCESS_KEY_ID: 'id',
      FOLIO_S3_SECRET_ACCESS_KEY: 'secret',
      FOLIO_S3_FORCE_PATH_STYLE: 'true',
      FOLIO_S3_PREFIX: 'tenants/a',
    })
    assert.deepEqual(config.s3, {
      bucket: 'folio-files',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      forcePathStyle: true,
      prefix: 'tenants/a/',
    })
    assert.ok(Object.isFrozen(config.s3))
    assert.equal(buildConfig({ FOLIO_S3_BUCKET: 'b12', FOLIO_S3_PREFIX: 'x/' }).s3?.prefix, 'x/')
    assert.equal(buildConfig({ FOLIO_S3_BUCKET: 'b12' }).s3?.prefix, '')
  })

  test('bad bucket names, prefixes and half-given keys are refused by name', () => {
    assert.match(problemsOf({ FOLIO_S3_BUCKET: 'Bad_Bucket' }), /FOLIO_S3_BUCKET/)
    assert.match(problemsOf({ FOLIO_S3_BUCKET: 'ok-bucket', FOLIO_S3_PREFIX: '/abs' }), /FOLIO_S3_PREFIX/)
    assert.match(problemsOf({ FOLIO_S3_BUCKET: 'ok-bucket', FOLIO_S3_PREFIX: 'a//b' }), /FOLIO_S3_PREFIX/)
    const half = problemsOf({ FOLIO_S3_BUCKET: 'ok-bucket', FOLIO_S3_ACCESS_KEY_ID: 'id' })
    assert.match(half, /set both or neither/)
  })

  test('S3 settings without a bucket are refused rather than ignored', () => {
    const text = problemsOf({ FOLIO_S3_ENDPOINT: 'http://127.0.0.1:9000', FOLIO_S3_PREFIX: 'p' })
    assert.match(text, /FOLIO_S3_ENDPOINT: needs FOLIO_S3_BUCKET/)
    assert.match(text, /FOLIO_S3_PREFIX: needs FOLIO_S3_BUCKET/)
  })

  test('the secret never appears in a configuration error', () => {
    const text = problemsOf({
      FOLIO_S3_BUCKET: 'NOT valid',
      FOLIO_S3_ACCESS_KEY_ID: 'id',
      FOLIO_S3_SECRET_ACCESS_KEY: 'super-secret-value',
    })
    assert.ok(!text.includes('super-secret-value'), text)
  })
})
