import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ADMIN_PASSWORD, FakeClock, startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'

describe('portal authentication (portal API token)', () => {
  let server: TestServer
  const clock = new FakeClock()

  before(async () => {
    server = await startTestServer({ FOLIO_LOGIN_MAX_FAILURES: '3', FOLIO_SESSION_TTL: '1h' }, { clock })
  })
  after(() => server.dispose())

  test('valid credentials answer 201 with token and expires (ISO 8601 with offset) in the envelope', async () => {
    const reply = await call(server.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'admin', password: ADMIN_PASSWORD },
    })
    assert.equal(reply.status, 201)
    assert.equal(reply.json.status, 0)
    assert.equal(reply.json.statusCode, 201)
    assert.equal(reply.json.count, 1)
    assert.equal(typeof reply.json.response.token, 'string')
    assert.ok(reply.json.response.token.length >= 22, 'at least 128 bits of token')
    assert.match(reply.json.response.expires, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d$/)
    const expires = Date.parse(reply.json.response.expires)
    assert.ok(Math.abs(expires - (clock.now() + 3_600_000)) < 5000, 'lifetime follows FOLIO_SESSION_TTL')
  })

  test('lower-case "username" is accepted, as in ONLYOFFICE\'s sample', async () => {
    const reply = await call(server.url, 'POST', '/api/2.0/authentication.json', {
      body: { username: 'admin', password: ADMIN_PASSWORD },
    })
    assert.equal(reply.status, 201)
  })

  test('application/x-www-form-urlencoded bodies are accepted', async () => {
    const reply = await call(server.url, 'POST', '/api/2.0/authentication.json', {
      raw: new URLSearchParams({ userName: 'admin', password: ADMIN_PASSWORD }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    assert.equal(reply.status, 201)
  })

  test('wrong password and unknown user get the same 401 message', async () => {
    const wrong = await call(server.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'admin', password: 'not-the-password' },
    })
    const unknown = await call(server.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'nobody-here', password: 'whatever-pass' },
    })
    assert.equal(wrong.status, 401)
    assert.equal(unknown.status, 401)
    assert.equal(wrong.json.status, 1)
    assert.equal(wrong.json.statusCode, 401)
    assert.equal(wrong.json.error.message, unknown.json.error.message)
  })

  test('missing fields, wrong types and malformed JSON are 400 with a message', async () => {
    const cases: Array<{ body?: unknown; raw?: string }> = [
      { body: {} },
      { body: { userName: 'admin' } },
      { body: { password: 'x' } },
      { body: { userName: 42, password: 'x' } },
      { body: { userName: 'admin', password: ['x'] } },
      { raw: '{"userName": "admin", ' },
      { raw: '' },
    ]
    for (const c of cases) {
      const reply = await call(server.url, 'POST', '/api/2.0/authentication.json', {
        body: c.body,
        raw: c.raw,
        headers: c.raw !== undefined ? { 'Content-Type': 'application/json' } : {},
      })
      assert.equal(reply.status, 400, `body ${JSON.stringify(c)}`)
      assert.equal(reply.json.status, 1)
      assert.equal(typeof reply.json.error.message, 'string')
      assert.ok(reply.json.error.message.length > 0)
    }
  })

  test('repeated failures for one user are throttled with 429 and Retry-After, surviving a restart', async () => {
    await call(server.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'throttled', password: 'wrong-1' },
    })
    for (let i = 0; i < 3; i++) {
      await call(server.url, 'POST', '/api/2.0/authentication.json', {
        body: { userName: 'victim', password: `wrong-${i}` },
        headers: { 'X-Forwarded-For': `10.0.0.${i}` },
      })
    }
    const throttled = await call(server.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'victim', password: 'wrong-again' },
    })
    assert.equal(throttled.status, 429)
    assert.ok(Number(throttled.headers.get('retry-after')) > 0)
    assert.match(throttled.json.error.message, /too many/i)

    server = await server.restart()
    const afterRestart = await call(server.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'victim', password: 'wrong-again' },
    })
    assert.equal(afterRestart.status, 429, 'the throttle is stored, not kept in memory')
  })

  test('the throttle ends when its window has passed', async () => {
    clock.advance(16 * 60_000)
    const reply = await call(server.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'victim', password: 'wrong-again' },
    })
    assert.equal(reply.status, 401)
  })
})

describe('portal tokens on later calls', () => {
  let server: TestServer
  const clock = new FakeClock()

  before(async () => {
    server = await startTestServer({ FOLIO_SESSION_TTL: '1h' }, { clock })
  })
  after(() => server.dispose())

  test('the token alone in Authorization works, as ONLYOFFICE clients send it', async () => {
    const token = await signIn(server.url)
    const reply = await call(server.url, 'GET', '/api/2.0/people/@self.json', { token })
    assert.equal(reply.status, 200)
    assert.equal(reply.json.status, 0)
    assert.equal(reply.json.response.userName, 'admin')
    assert.equal(reply.json.response.isAdmin, true)
    for (const field of ['id', 'displayName', 'email']) assert.ok(field in reply.json.response, field)
  })

  test('"Bearer <token>" works too', async () => {
    const token = await signIn(server.url)
    const reply = await call(server.url, 'GET', '/api/2.0/people/@self.json', {
      token: `Bearer ${token}`,
    })
    assert.equal(reply.status, 200)
  })

  test('no token, a forged token and a garbage header are 401 in the envelope', async () => {
    for (const token of [undefined, 'forged-token-aaaaaaaaaaaaaaaaaaaaaaaaa', 'Bearer', 'a b c']) {
      const reply = await call(server.url, 'GET', '/api/2.0/people/@self.json', { token })
      assert.equal(reply.status, 401, String(token))
      assert.equal(reply.json.status, 1)
      assert.equal(reply.json.statusCode, 401)
    }
  })

  test('an expired token is 401', async () => {
    const token = await signIn(server.url)
    clock.advance(60 * 60_000 + 1000)
    const reply = await call(server.url, 'GET', '/api/2.0/people/@self.json', { token })
    assert.equal(reply.status, 401)
  })

  test('logout revokes the token; other tokens keep working', async () => {
    const first = await signIn(server.url)
    const second = await signIn(server.url)
    const out = await call(server.url, 'POST', '/api/2.0/authentication/logout', { token: first })
    assert.equal(out.status, 200)
    const revoked = await call(server.url, 'GET', '/api/2.0/people/@self.json', { token: first })
    assert.equal(revoked.status, 401)
    const other = await call(server.url, 'GET', '/api/2.0/people/@self.json', { token: second })
    assert.equal(other.status, 200)
  })

  test('tokens are stored only as hashes', async () => {
    const token = await signIn(server.url)
    const { schema } = server.ctx.config.database
    if (server.ctx.config.database.url !== undefined) {
      // Metadata in PostgreSQL (npm run test:postgres): look through every stored session.
      const { queryTestDatabase } = await import('../support/postgres.js')
      const rows = await queryTestDatabase(`SELECT * FROM "${schema}".sessions`)
      assert.ok(rows.length > 0)
      assert.equal(JSON.stringify(rows).includes(token), false)
      return
    }
    const { readFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const bytes = readFileSync(join(server.dataDir, 'folio.db'))
    const wal = (() => {
      try {
        return readFileSync(join(server.dataDir, 'folio.db-wal'))
      } catch {
        return Buffer.alloc(0)
      }
    })()
    assert.equal(bytes.includes(token), false)
    assert.equal(wal.includes(token), false)
  })

  test('unknown API paths answer 404 in the envelope', async () => {
    const token = await signIn(server.url)
    const reply = await call(server.url, 'GET', '/api/2.0/no/such/thing', { token })
    assert.equal(reply.status, 404)
    assert.equal(reply.json.status, 1)
  })
})
