import assert from 'node:assert/strict'
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { buildConfig, ConfigError, loadConfig } from './load.js'
import { SETTING_NAMES } from './schema.js'
import { parseByteSize, parseDuration } from './units.js'

describe('configuration', () => {
  test('no settings: the documented defaults', () => {
    const config = buildConfig({})
    assert.equal(config.port, 8080)
    assert.equal(config.host, '0.0.0.0')
    assert.ok(config.dataDir.endsWith('/data'))
    assert.equal(config.publicUrl, 'http://localhost:8080')
    assert.equal(config.adminUser, 'admin')
    assert.equal(config.adminPassword, undefined)
    assert.equal(config.maxFileSize, 1024 ** 3)
    assert.equal(config.wopiTokenTtlMs, 10 * 3_600_000)
    assert.equal(config.docs, undefined)
    assert.ok(Object.isFrozen(config))
  })

  test('every bad setting is reported at once, by name', () => {
    try {
      buildConfig({ FOLIO_PORT: 'eighty', FOLIO_MAX_FILE_SIZE: 'huge', FOLIO_PUBLIC_URL: 'ftp://x', FOLIO_NOPE: '1' })
      assert.fail('should have thrown')
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      const text = error.message
      for (const name of ['FOLIO_PORT', 'FOLIO_MAX_FILE_SIZE', 'FOLIO_PUBLIC_URL', 'FOLIO_NOPE']) {
        assert.match(text, new RegExp(name))
      }
    }
  })

  test('WOPI proofs required without a discovery address: refused, naming both settings', () => {
    assert.throws(
      () => buildConfig({ FOLIO_WOPI_PROOF_REQUIRED: 'true' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /FOLIO_WOPI_PROOF_REQUIRED/.test(error.message) &&
        /FOLIO_WOPI_DISCOVERY_URL/.test(error.message),
    )
    const config = buildConfig({ FOLIO_WOPI_PROOF_REQUIRED: 'true', FOLIO_WOPI_DISCOVERY_URL: 'http://wopi.test/hosting/discovery' })
    assert.equal(config.wopi.proofRequired, true)
  })

  test('Docs settings: internal URL defaults to the public one, trailing slashes dropped', () => {
    const config = buildConfig({ FOLIO_DOCS_URL: 'https://docs.example.com/', FOLIO_DOCS_JWT_SECRET: 's' })
    assert.deepEqual(config.docs, {
      url: 'https://docs.example.com',
      internalUrl: 'https://docs.example.com',
      jwtSecret: 's',
      jwtHeader: 'Authorization',
    })
  })

  test('FOLIO_INTERNAL_URL: the public URL by default, its own value when set', () => {
    const plain = buildConfig({ FOLIO_PUBLIC_URL: 'https://files.example.com/' })
    assert.equal(plain.publicUrl, 'https://files.example.com')
    assert.equal(plain.internalUrl, 'https://files.example.com')
    assert.equal(buildConfig({ FOLIO_PORT: '9000' }).internalUrl, 'http://localhost:9000')
    const split = buildConfig({
      FOLIO_PUBLIC_URL: 'https://files.example.com',
      FOLIO_INTERNAL_URL: 'http://folio:8080/',
    })
    assert.equal(split.publicUrl, 'https://files.example.com')
    assert.equal(split.internalUrl, 'http://folio:8080')
    assert.throws(() => buildConfig({ FOLIO_INTERNAL_URL: 'folio:8080' }), /FOLIO_INTERNAL_URL/)
  })

  test('database: SQLite by default, PostgreSQL with FOLIO_DATABASE_URL', () => {
    assert.deepEqual(buildConfig({}).database, {
      url: undefined,
      schema: 'public',
      poolSize: 10,
      statementTimeoutMs: 30_000,
    })
    assert.equal(buildConfig({ FOLIO_DATABASE_URL: '' }).database.url, undefined)
    const pg = buildConfig({
      FOLIO_DATABASE_URL: 'postgres://folio:pw@db:5432/folio',
      FOLIO_DATABASE_SCHEMA: 'folio_a',
      FOLIO_DATABASE_POOL_SIZE: '25',
      FOLIO_DATABASE_STATEMENT_TIMEOUT: '2m',
    })
    assert.deepEqual(pg.database, {
      url: 'postgres://folio:pw@db:5432/folio',
      schema: 'folio_a',
      poolSize: 25,
      statementTimeoutMs: 120_000,
    })
    assert.ok(Object.isFrozen(pg.database))
    const socket = 'postgresql:///folio?host=/var/run/postgresql'
    assert.equal(buildConfig({ FOLIO_DATABASE_URL: socket }).database.url, socket)
    assert.throws(() => buildConfig({ FOLIO_DATABASE_URL: 'postgres://db' }), /FOLIO_DATABASE_URL/)
  })

  test('bad database settings are refused by name, never echoing the URL', () => {
    try {
      buildConfig({
        FOLIO_DATABASE_URL: 'mysql://root:hunter2-secret@db/folio',
        FOLIO_DATABASE_SCHEMA: 'Folio; DROP',
        FOLIO_DATABASE_POOL_SIZE: '0',
        FOLIO_DATABASE_STATEMENT_TIMEOUT: 'soon',
      })
      assert.fail('should have thrown')
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      for (const name of ['FOLIO_DATABASE_URL', 'FOLIO_DATABASE_SCHEMA',
        'FOLIO_DATABASE_POOL_SIZE', 'FOLIO_DATABASE_STATEMENT_TIMEOUT']) {
        assert.match(error.message, new RegExp(`${name} must be `))
      }
      assert.ok(!error.message.includes('hunter2-secret'))
    }
  })

  test('FOLIO_CONFIG file is read and the environment wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-config-'))
    const file = join(dir, 'folio.json')
    writeFileSync(file, JSON.stringify({ FOLIO_PORT: 9000, FOLIO_LOG_LEVEL: 'debug' }))
    const config = loadConfig({ FOLIO_CONFIG: file, FOLIO_LOG_LEVEL: 'warn' })
    assert.equal(config.port, 9000)
    assert.equal(config.logLevel, 'warn')
    writeFileSync(file, '{not json')
    assert.throws(() => loadConfig({ FOLIO_CONFIG: file }), /FOLIO_CONFIG/)
    assert.throws(() => loadConfig({ FOLIO_CONFIG: join(dir, 'missing.json') }), /cannot read/)
  })

  test('sizes and durations', () => {
    assert.equal(parseByteSize('100MiB'), 100 * 1024 ** 2)
    assert.equal(parseByteSize('1.5 GB'), 1.5e9)
    assert.equal(parseByteSize('4096'), 4096)
    assert.equal(parseByteSize('12 parsecs'), undefined)
    assert.equal(parseDuration('10h'), 36_000_000)
    assert.equal(parseDuration('30m'), 1_800_000)
    assert.equal(parseDuration('45'), 45_000)
    assert.equal(parseDuration('soon'), undefined)
  })

  test('the README configuration table lists exactly the settings Folio reads', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8')
    const section = readme.split('## Configuration')[1]?.split('\n## ')[0] ?? ''
    const documented = new Set([...section.matchAll(/^\| `(FOLIO_[A-Z0-9_]+)` \|/gm)].map((m) => m[1]))
    documented.delete('FOLIO_CONFIG')
    assert.deepEqual([...documented].sort(), [...SETTING_NAMES].sort())
  })
})
