import assert from 'node:assert/strict'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { runFolio, serveFolio } from '../support/folio-command.js'
import { freePort, startTestServer } from '../support/folio-server.js'
import { call } from '../support/portal-client.js'
import { testMetadata } from '../support/postgres.js'
import { lockHeaders, startWopiHarness } from './wopi-support.js'

/** Runs the real `folio` command (the compiled bin) with its own data folder. */
const folio = (args: string[], env: Record<string, string>, stdin?: string) => runFolio(args, env, { stdin })

describe('folio command line', () => {
  let dataDir: string
  let env: Record<string, string>

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'folio-cli-'))
    env = { FOLIO_DATA_DIR: dataDir }
    // Only a server start makes an install; the commands below administer that one.
    const made = await startTestServer({}, { dataDir, metadata: { settings: {}, dispose: async () => undefined } })
    await made.stop()
  })
  after(() => rm(dataDir, { recursive: true, force: true }))

  test('--help on every command', async () => {
    for (const args of [
      [],
      ['serve'],
      ['user'],
      ['user', 'add'],
      ['user', 'list'],
      ['user', 'passwd'],
      ['user', 'disable'],
      ['user', 'enable'],
      ['user', 'remove'],
      ['user', 'quota'],
      ['audit'],
    ]) {
      const run = await folio([...args, '--help'], env)
      assert.equal(run.code, 0, args.join(' '))
      assert.match(run.stdout, /Usage: folio/)
    }
  })

  test('user add with --password-stdin, list, passwd, remove', async () => {
    const added = await folio(['user', 'add', 'carol', '--password-stdin'], env, 'carol-secret-1\n')
    assert.equal(added.code, 0, added.stderr)
    assert.doesNotMatch(added.stdout, /carol-secret-1/)
    const generated = await folio(['user', 'add', 'dave', '--admin'], env)
    assert.equal(generated.code, 0, generated.stderr)
    assert.match(generated.stdout, /password: \S{12,}/)
    const list = await folio(['user', 'list', '--json'], env)
    const users = JSON.parse(list.stdout) as Array<{ userName: string; isAdmin: boolean }>
    assert.deepEqual(
      users
        .filter((u) => u.userName !== 'admin')
        .map((u) => [u.userName, u.isAdmin])
        .sort(),
      [
        ['carol', false],
        ['dave', true],
      ],
    )
    const passwd = await folio(['user', 'passwd', 'carol', '--password-stdin'], env, 'carol-secret-2\n')
    assert.equal(passwd.code, 0, passwd.stderr)
    const removed = await folio(['user', 'remove', 'dave'], env)
    assert.equal(removed.code, 0)
    const after = JSON.parse((await folio(['user', 'list', '--json'], env)).stdout) as Array<{ userName: string }>
    assert.deepEqual(after.map((u) => u.userName).sort(), ['admin', 'carol'])
  })

  test('audit lists what the console did, newest first, with --limit, --since and --json', async () => {
    await folio(['user', 'add', 'frank', '--password-stdin'], env, 'frank-secret-1\n')
    await folio(['user', 'admin', 'frank'], env)
    await folio(['user', 'unlock', 'frank'], env)
    const json = await folio(['audit', '--json', '--since', '1h'], env)
    assert.equal(json.code, 0, json.stderr)
    const events = JSON.parse(json.stdout) as Array<{
      action: string
      actorName: string
      address: string
      targetName: string
    }>
    assert.deepEqual(
      events.slice(0, 3).map((e) => [e.action, e.actorName, e.address, e.targetName]),
      [
        ['user-unlocked', 'cli', 'local', 'frank'],
        ['admin-granted', 'cli', 'local', 'frank'],
        ['user-created', 'cli', 'local', 'frank'],
      ],
    )
    const text = await folio(['audit', '--limit', '1'], env)
    assert.equal(text.code, 0, text.stderr)
    const [line, more] = text.stdout.trim().split('\n')
    assert.match(line ?? '', /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}the console unlocked frank's sign-in$/)
    assert.match(more ?? '', /\(1 of \d+ events; use --limit or --since for more\)/)
    const future = await folio(['audit', '--since', '2999-01-01'], env)
    assert.equal(future.stdout, '')
    for (const bad of [
      ['--limit', '0'],
      ['--limit', 'many'],
      ['--since', 'last week'],
    ]) {
      const run = await folio(['audit', ...bad], env)
      assert.notEqual(run.code, 0, bad.join(' '))
      assert.match(run.stderr, bad[0] === '--limit' ? /whole number from 1 to 1000/ : /duration like 24h/)
    }
  })

  test('failures exit non-zero with a clear message', async () => {
    const dup = await folio(['user', 'add', 'carol', '--password-stdin'], env, 'another-pass\n')
    assert.notEqual(dup.code, 0)
    assert.match(dup.stderr, /carol is taken/)
    const missing = await folio(['user', 'remove', 'nobody'], env)
    assert.notEqual(missing.code, 0)
    assert.match(missing.stderr, /no user named nobody/)
    const weak = await folio(['user', 'add', 'erin', '--password-stdin'], env, 'short\n')
    assert.notEqual(weak.code, 0)
    assert.match(weak.stderr, /at least 8/)
    const unknown = await folio(['frobnicate'], env)
    assert.notEqual(unknown.code, 0)
    const badConfig = await folio(['user', 'list'], { ...env, FOLIO_PORT: 'eighty' })
    assert.notEqual(badConfig.code, 0)
    assert.match(badConfig.stderr, /FOLIO_PORT/)
  })

  test('a command other than serve on a folder with no install refuses, naming it, and creates nothing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'folio-none-'))
    try {
      for (const args of [['user', 'list'], ['user', 'add', 'zoe', '--password-stdin'], ['gc'], ['audit']]) {
        const run = await folio(args, { FOLIO_DATA_DIR: empty }, 'zoe-secret-1\n')
        assert.equal(run.code, 1, args.join(' '))
        assert.match(run.stderr, /no Folio install in/)
        assert.ok(run.stderr.includes(empty), run.stderr)
      }
      assert.deepEqual(await readdir(empty), [])
    } finally {
      await rm(empty, { recursive: true, force: true })
    }
  })

  test('serve starts with defaults, creates the admin with a generated password logged once', async () => {
    const serveDir = await mkdtemp(join(tmpdir(), 'folio-serve-'))
    const port = await freePort()
    const served = serveFolio({ FOLIO_DATA_DIR: serveDir, FOLIO_PORT: String(port), FOLIO_HOST: '127.0.0.1' })
    try {
      await served.waitForLog(/Folio is listening/, 'the server listening', 20_000)
      const generated = /"generatedPassword":"([^"]+)"/.exec(served.log())
      assert.ok(generated?.[1], `no password in the log: ${served.log()}`)
      const password = generated[1]
      const reply = await call(`http://127.0.0.1:${port}`, 'POST', '/api/2.0/authentication.json', {
        body: { userName: 'admin', password },
      })
      assert.equal(reply.status, 201)
    } finally {
      await served.stop()
      await rm(serveDir, { recursive: true, force: true })
    }
  })
})

describe('folio lock', () => {
  test('show and release a WOPI lock left behind, on the data folder of a running server', async () => {
    // SQLite in the data folder, or a PostgreSQL schema (npm run test:postgres): the server
    // and the CLI use the same store.
    const metadata = testMetadata()
    const h = await startWopiHarness({}, { metadata })
    try {
      const id = await h.createFile('left-open.docx', 'x')
      assert.equal((await h.wopi(id, { override: 'LOCK', headers: lockHeaders('closed-tab') })).status, 200)
      const env = { FOLIO_DATA_DIR: h.server.dataDir, ...metadata.settings }
      const shown = await folio(['lock', 'show', id], env)
      assert.equal(shown.code, 0, shown.stderr)
      assert.match(shown.stdout, /^locked held by user \S+ since \d{4}-/)
      const released = await folio(['lock', 'release', id], env)
      assert.equal(released.code, 0, released.stderr)
      assert.match(released.stdout, /^released the lock held by user/)
      assert.equal((await h.wopi(id, { override: 'GET_LOCK' })).headers.get('x-wopi-lock'), '')
      const again = await folio(['lock', 'release', id], env)
      assert.match(again.stdout, /not locked/)
      const missing = await folio(['lock', 'release', 'no-such-file-id-000000'], env)
      assert.equal(missing.code, 1)
      assert.match(missing.stderr, /not found/)
      // An id that starts with '-' (as older ids may) reaches the store after --.
      const dashed = await folio(['lock', 'release', '--', '-no-such-file-id-00000'], env)
      assert.equal(dashed.code, 1)
      assert.match(dashed.stderr, /not found/)
      assert.match((await folio(['lock', 'show', '--', id], env)).stdout, /not locked/)
      assert.match((await folio(['lock', '--help'], env)).stdout, /starts with '-' goes after --/)
    } finally {
      await h.server.dispose()
    }
  })
})

describe('folio user disable / enable', () => {
  test('on the data folder of a running server: the session ends, sign-in is refused, enable lets in again', async () => {
    const metadata = testMetadata()
    const h = await startWopiHarness({}, { metadata })
    try {
      const { createUser } = await import('../../src/app/accounts/accounts.js')
      await createUser(h.server.ctx, { userName: 'gina', password: 'gina-password-1' })
      const signInGina = () =>
        call(h.server.url, 'POST', '/api/2.0/authentication.json', {
          body: { userName: 'gina', password: 'gina-password-1' },
        })
      const session = (await signInGina()).json.response.token
      const env = { FOLIO_DATA_DIR: h.server.dataDir, ...metadata.settings }

      const disabled = await folio(['user', 'disable', 'gina'], env)
      assert.equal(disabled.code, 0, disabled.stderr)
      assert.match(disabled.stdout, /disabled user gina/)
      assert.equal((await call(h.server.url, 'GET', '/api/2.0/people/@self', { token: session })).status, 401)
      const refused = await signInGina()
      assert.equal(refused.status, 403)
      assert.equal(refused.json.error.type, 'USER_DISABLED')
      const listed = JSON.parse((await folio(['user', 'list', '--json'], env)).stdout) as Array<{
        userName: string
        disabled: boolean
      }>
      assert.equal(listed.find((u) => u.userName === 'gina')?.disabled, true)

      // The last enabled admin stays: the console may not disable them either.
      const lastAdmin = await folio(['user', 'disable', 'admin'], env)
      assert.notEqual(lastAdmin.code, 0)
      assert.match(lastAdmin.stderr, /last enabled admin/)
      assert.equal((await call(h.server.url, 'GET', '/api/2.0/people/@self', { token: h.portalToken })).status, 200)

      const enabled = await folio(['user', 'enable', 'gina'], env)
      assert.equal(enabled.code, 0, enabled.stderr)
      assert.equal((await signInGina()).status, 201)
      const audit = JSON.parse((await folio(['audit', '--json', '--limit', '20'], env)).stdout) as Array<{
        action: string
        targetName: string
      }>
      assert.deepEqual(
        audit
          .filter((e) => e.targetName === 'gina' && e.action.startsWith('user-'))
          .map((e) => e.action)
          .slice(0, 2),
        ['user-enabled', 'user-disabled'],
      )
      const missing = await folio(['user', 'disable', 'nobody'], env)
      assert.notEqual(missing.code, 0)
      assert.match(missing.stderr, /no user named nobody/)
    } finally {
      await h.server.dispose()
    }
  })
})

describe('folio user quota', () => {
  test('sets, reads back and removes a quota on the data folder of a running server; bad sizes change nothing', async () => {
    const metadata = testMetadata()
    const h = await startWopiHarness({ FOLIO_CONVERTER: 'off' }, { metadata })
    try {
      const { createUser } = await import('../../src/app/accounts/accounts.js')
      await createUser(h.server.ctx, { userName: 'hana', password: 'hana-password-1' })
      const hana = await call(h.server.url, 'POST', '/api/2.0/authentication.json', {
        body: { userName: 'hana', password: 'hana-password-1' },
      })
      const session: string = hana.json.response.token
      const self = async () =>
        (await call(h.server.url, 'GET', '/api/2.0/people/@self', { token: session })).json.response
      const upload = (title: string, content: string) =>
        call(h.server.url, 'POST', `/api/2.0/files/@my/upload?title=${title}`, {
          token: session,
          raw: content,
          headers: { 'Content-Type': 'application/octet-stream' },
        })
      assert.equal((await upload('a.bin', '12345678')).status, 201)
      const env = { FOLIO_DATA_DIR: h.server.dataDir, ...metadata.settings }

      const set = await folio(['user', 'quota', 'hana', '10B'], env)
      assert.equal(set.code, 0, set.stderr)
      assert.match(set.stdout, /hana may store 10 B \(8 B used\)/)
      assert.deepEqual([(await self()).quotaLimit, (await self()).usedSpace], [10, 8])
      const listed = JSON.parse((await folio(['user', 'list', '--json'], env)).stdout) as Array<{
        userName: string
        usedSpace: number
        quotaLimit: number
      }>
      const row = listed.find((u) => u.userName === 'hana')
      assert.deepEqual([row?.usedSpace, row?.quotaLimit], [8, 10])
      assert.match((await folio(['user', 'list'], env)).stdout, /^hana\tuser\t8 B of 10 B\t/m)
      const refused = await upload('b.bin', '123')
      assert.equal(refused.status, 413, refused.text)
      assert.equal(refused.json.error.type, 'QUOTA_EXCEEDED')

      assert.equal((await folio(['user', 'quota', 'hana', '1.5MiB'], env)).code, 0)
      assert.equal((await self()).quotaLimit, 1.5 * 1024 * 1024)
      assert.equal((await folio(['user', 'quota', 'hana', '2GB'], env)).code, 0)
      assert.equal((await self()).quotaLimit, 2_000_000_000)

      const bad = await folio(['user', 'quota', 'hana', 'lots'], env)
      assert.notEqual(bad.code, 0)
      assert.match(bad.stderr, /"lots" is not a size/)
      const nobody = await folio(['user', 'quota', 'nobody', '1GB'], env)
      assert.notEqual(nobody.code, 0)
      assert.match(nobody.stderr, /no user named nobody/)
      assert.equal((await self()).quotaLimit, 2_000_000_000, 'unchanged by the refused commands')

      const none = await folio(['user', 'quota', 'hana', 'none'], env)
      assert.equal(none.code, 0, none.stderr)
      assert.match(none.stdout, /hana has no storage quota/)
      assert.equal((await self()).quotaLimit, -1)
      assert.equal((await upload('b.bin', '123')).status, 201)
    } finally {
      await h.server.dispose()
    }
  })
})
