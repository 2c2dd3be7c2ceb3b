import assert from 'node:assert/strict'
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { buildConfig, ConfigError, loadConfig } from './load.js'
import { SETTING_NAMES, settingsSchema } from './schema.js'
import { parseByteSize, parseDuration } from './units.js'

const ROOT = join(import.meta.dirname, '..', '..')

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
    const config = buildConfig({
      FOLIO_WOPI_PROOF_REQUIRED: 'true',
      FOLIO_WOPI_DISCOVERY_URL: 'http://wopi.test/hosting/discovery',
    })
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
      for (const name of [
        'FOLIO_DATABASE_URL',
        'FOLIO_DATABASE_SCHEMA',
        'FOLIO_DATABASE_POOL_SIZE',
        'FOLIO_DATABASE_STATEMENT_TIMEOUT',
      ]) {
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

  test('docs/configuration.md lists exactly the settings Folio reads, each with its default', () => {
    const page = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8')
    const rows = settingRows(page)
    assert.deepEqual(
      rows
        .map((row) => row.name)
        .filter((name) => name !== 'FOLIO_CONFIG')
        .sort(),
      [...SETTING_NAMES].sort(),
    )
    assert.deepEqual(rows.flatMap(defaultProblem), [])
  })

  test("the README's main settings are settings Folio reads, with their defaults", () => {
    const rows = settingRows(readFileSync(join(ROOT, 'README.md'), 'utf8'))
    assert.ok(rows.length >= 8, 'the README lists the main settings')
    assert.deepEqual(
      rows.map((row) => row.name).filter((name) => name !== 'FOLIO_CONFIG' && !SETTING_NAMES.includes(name)),
      [],
    )
    assert.deepEqual(rows.flatMap(defaultProblem), [])
  })

  test('the default check refuses a default that drifted, a size or duration spelt another way, and a missing one', () => {
    const page = [
      '| `FOLIO_MAX_FILE_SIZE` | `2GiB` | x |',
      '| `FOLIO_SESSION_TTL` | `24h` | x |',
      '| `FOLIO_MIN_FREE_SPACE` | `268435456` | x |',
      '| `FOLIO_PORT` | unset | x |',
      '| `FOLIO_DOCS_URL` | `http://docs` | x |',
      '| `FOLIO_HOST` | `0.0.0.0` | x |',
      '| `FOLIO_VERSIONS_KEEP` | `unlimited` | x |',
    ].join('\n')
    assert.deepEqual(
      settingRows(page)
        .flatMap(defaultProblem)
        .map((problem) => problem.split(':')[0]),
      ['FOLIO_MAX_FILE_SIZE', 'FOLIO_SESSION_TTL', 'FOLIO_MIN_FREE_SPACE', 'FOLIO_PORT', 'FOLIO_DOCS_URL'],
    )
  })
})

/** Rows of a markdown table of settings: `| \`FOLIO_X\` | default | meaning |`. */
function settingRows(markdown: string): Array<{ name: string; cell: string }> {
  return [...markdown.matchAll(/^\| `(FOLIO_[A-Z0-9_]+)` \| ([^|]*) \|/gm)].map((m) => ({
    name: m[1] ?? '',
    cell: (m[2] ?? '').trim(),
  }))
}

/** The value the setting `name` takes from `raw`, through its own parser; 'invalid' when refused. */
function parsedSetting(name: string, raw: unknown): unknown {
  const parsed = settingsSchema.safeParse(raw === undefined ? {} : { [name]: raw })
  return parsed.success ? Reflect.get(parsed.data, name) : 'invalid'
}

const SIZE_UNITS: Array<[string, number]> = [
  ['GiB', 1024 ** 3],
  ['MiB', 1024 ** 2],
  ['KiB', 1024],
  ['B', 1],
]
const DURATION_UNITS: Array<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
]

/** `amount` in the largest unit it is a whole number of ('0' for zero): the one spelling the docs use. */
function spelt(amount: number, units: Array<[string, number]>): string {
  if (amount === 0) return '0'
  const [unit, size] = units.find(([, size]) => amount % size === 0) ?? ['', 1]
  return `${amount / size}${unit}`
}

/**
 * Why the default column of a settings row is wrong, or nothing. A setting with a default
 * shows it as one code span that its own parser reads back as that default; a size or a
 * duration (told apart by what its parser makes of '1KiB' and '1m') is spelt in the
 * largest whole unit (`256MiB`, `30d`). A setting without one says `unset`, and may add
 * what it falls back to.
 */
function defaultProblem(row: { name: string; cell: string }): string[] {
  if (row.name === 'FOLIO_CONFIG') return row.cell === 'unset' ? [] : [`${row.name}: the default is unset`]
  const actual = parsedSetting(row.name, undefined)
  const literal = /^`([^`]+)`$/.exec(row.cell)?.[1]
  if (literal === undefined) {
    if (actual === undefined && row.cell.startsWith('unset')) return []
    return [`${row.name}: the default is ${JSON.stringify(actual)}, documented as ${row.cell}`]
  }
  if (typeof actual === 'number' && parsedSetting(row.name, '1KiB') === 1024) {
    const expected = spelt(actual, SIZE_UNITS)
    return literal === expected ? [] : [`${row.name}: the default is \`${expected}\`, documented as ${row.cell}`]
  }
  if (typeof actual === 'number' && parsedSetting(row.name, '1m') === 60_000) {
    const expected = spelt(actual, DURATION_UNITS)
    return literal === expected ? [] : [`${row.name}: the default is \`${expected}\`, documented as ${row.cell}`]
  }
  const documented = parsedSetting(row.name, literal)
  return documented === actual
    ? []
    : [`${row.name}: the default is ${JSON.stringify(actual)}, documented as ${row.cell}`]
}
