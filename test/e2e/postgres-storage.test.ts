import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Writable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import { after, before, describe, test } from 'node:test'
import { pino } from 'pino'
import { buildConfig } from '../../src/config/load.js'
import { startFolio } from '../../src/main.js'
import { freePort, startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import {
  dropSchema,
  postgresSkipReason,
  queryTestDatabase,
  TEST_DATABASE_URL,
  uniqueSchemaName,
} from '../support/postgres.js'
import { lockHeaders, startWopiHarness, type WopiHarness } from './wopi-support.js'

const ROOT = resolve(import.meta.dirname, '..', '..')

describe('driver selection', () => {
  test('a default start (no FOLIO_DATABASE_URL) never loads pg', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'folio-default-'))
    try {
      // A fresh process, so nothing this test file imported counts: start Folio on the
      // defaults, then list the CommonJS packages Node loaded (pg is CommonJS).
      const script = `
        import { createRequire } from 'node:module'
        const { buildConfig } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/config/load.ts')).href)})
        const { startFolio } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/main.ts')).href)})
        const config = buildConfig({ FOLIO_PORT: '0', FOLIO_HOST: '127.0.0.1',
          FOLIO_DATA_DIR: ${JSON.stringify(dataDir)}, FOLIO_LOG_LEVEL: 'silent',
          FOLIO_ADMIN_PASSWORD: 'admin-password-1' })
        const folio = await startFolio(config)
        const reply = await fetch(folio.url + '/api/2.0/authentication.json', { method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ userName: 'admin', password: 'admin-password-1' }) })
        await folio.close()
        const loaded = Object.keys(createRequire(import.meta.url).cache)
        console.log(JSON.stringify({
          signIn: reply.status,
          pg: loaded.filter((path) => /[\\\\/]node_modules[\\\\/]pg[^\\\\/]*[\\\\/]/.test(path)),
          sqlite: loaded.some((path) => path.includes('better-sqlite3')),
        }))
      `
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, FOLIO_DATABASE_URL: '' },
      })
      assert.equal(child.status, 0, child.stderr)
      const lastLine = child.stdout.trim().split('\n').at(-1) ?? ''
      const report: { signIn: number; pg: string[]; sqlite: boolean } = JSON.parse(lastLine)
      assert.equal(report.signIn, 201, 'Folio served a sign-in')
      assert.equal(report.sqlite, true, 'the check sees CommonJS packages (better-sqlite3 is one)')
      assert.deepEqual(report.pg, [], 'no module of pg (or pg-*) was loaded')
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})

const skip = await postgresSkipReason()

describe('Folio on PostgreSQL', { skip }, () => {
  const schema = uniqueSchemaName('folio_e2e')
  const settings = { FOLIO_DATABASE_URL: TEST_DATABASE_URL, FOLIO_DATABASE_SCHEMA: schema }
  let h: WopiHarness
  let second: TestServer | undefined

  before(async () => {
    h = await startWopiHarness(settings)
  })
  after(async () => {
    await second?.stop().catch(() => undefined)
    await h?.server.dispose()
    await dropSchema(schema)
  })

  test('its metadata is in the schema, not in a SQLite file', async () => {
    const rows = await queryTestDatabase<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}".users WHERE user_name_key = 'admin'`,
    )
    assert.equal(rows[0]?.n, 1)
    const { readdir } = await import('node:fs/promises')
    assert.ok(!(await readdir(h.server.dataDir)).includes('folio.db'))
  })

  test('portal upload, listing and download', async () => {
    const bytes = 'hello from PostgreSQL'
    const id = await h.createFile('pg-notes.txt', bytes)
    const download = await call(h.server.url, 'GET', `/api/2.0/files/file/${id}/download`, {
      token: h.portalToken,
    })
    assert.equal(download.status, 200)
    assert.equal(download.text, bytes)
    const list = await call(h.server.url, 'GET', '/api/2.0/files/@my?count=100', {
      token: h.portalToken,
    })
    assert.equal(list.status, 200)
    assert.ok(list.json.response.files.some((f: { id: string }) => f.id === id))
    const again = await call(h.server.url, 'POST', '/api/2.0/files/@my/upload?title=PG-NOTES.TXT', {
      token: h.portalToken,
      raw: 'x',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    // Titles are unique per owner without regard to case: the upload gets a free name.
    assert.equal(again.status, 201)
    assert.equal(again.json.response.title, 'PG-NOTES (2).TXT')
  })

  test('the WOPI lock cycle: Lock, conflict, PutFile, RefreshLock, Unlock', async () => {
    const id = await h.createFile('pg-locks.docx', 'v1')
    const op = (override: string, lockId: string) => h.wopi(id, { override, headers: lockHeaders(lockId) })
    assert.equal((await op('LOCK', 'L1')).status, 200)
    const conflict = await op('LOCK', 'L2')
    assert.equal(conflict.status, 409)
    assert.equal(conflict.headers.get('x-wopi-lock'), 'L1')
    const put = await h.wopi(id, {
      contents: true,
      override: 'PUT',
      headers: { 'X-WOPI-Lock': 'L1' },
      body: 'v2 through WOPI',
    })
    assert.equal(put.status, 200)
    assert.equal(put.headers.get('x-wopi-itemversion'), 'v2')
    const got = await h.wopi(id, { method: 'GET', contents: true })
    assert.equal(got.text, 'v2 through WOPI')
    assert.equal((await op('REFRESH_LOCK', 'L1')).status, 200)
    assert.equal((await op('UNLOCK', 'L1')).status, 200)
    const lock = await h.wopi(id, { override: 'GET_LOCK' })
    assert.equal(lock.headers.get('x-wopi-lock'), '')
  })

  test('a second instance on the same database shares locks, tokens and sessions', async () => {
    second = await startTestServer(settings, { dataDir: h.server.dataDir })
    const id = await h.createFile('pg-shared.docx', 'shared')
    const token = await h.tokenFor(id)
    assert.equal((await h.wopi(id, { override: 'LOCK', headers: lockHeaders('on-A') })).status, 200)
    // The WOPI token minted by the first instance, used on the second.
    const onB = await call(second.url, 'POST', `/wopi/files/${id}?access_token=${token}`, {
      headers: { 'X-WOPI-Override': 'LOCK', ...lockHeaders('on-B') },
    })
    assert.equal(onB.status, 409)
    assert.equal(onB.headers.get('x-wopi-lock'), 'on-A')
    // A portal session revoked through the first instance is refused by the second.
    const session = await signIn(h.server.url)
    const self = () => call(second?.url ?? '', 'GET', '/api/2.0/people/@self.json', { token: session })
    assert.equal((await self()).status, 200)
    const out = await call(h.server.url, 'POST', '/api/2.0/authentication/logout', { token: session })
    assert.equal(out.status, 200)
    assert.equal((await self()).status, 401)
  })
})

describe('PostgreSQL start-up log', { skip }, () => {
  test('names the database with its password left out', async () => {
    const schema = uniqueSchemaName('folio_log')
    const dataDir = await mkdtemp(join(tmpdir(), 'folio-pg-log-'))
    // Trust authentication ignores the password, so this URL connects like the plain one.
    const url = new URL(TEST_DATABASE_URL)
    url.password = 'never-log-this-pw'
    let output = ''
    const sink = new Writable({
      write(chunk, _encoding, done) {
        output += String(chunk)
        done()
      },
    })
    try {
      const config = buildConfig({
        FOLIO_PORT: String(await freePort()),
        FOLIO_HOST: '127.0.0.1',
        FOLIO_DATA_DIR: dataDir,
        FOLIO_ADMIN_PASSWORD: 'admin-password-1',
        FOLIO_DATABASE_URL: url.toString(),
        FOLIO_DATABASE_SCHEMA: schema,
      })
      const folio = await startFolio(config, { logger: pino({ level: 'info' }, sink) })
      await folio.close()
      assert.match(output, /metadata is in PostgreSQL/)
      assert.match(output, /:\*\*\*@/)
      assert.ok(!output.includes('never-log-this-pw'))
    } finally {
      await rm(dataDir, { recursive: true, force: true })
      await dropSchema(schema)
    }
  })
})
