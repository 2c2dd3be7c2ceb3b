import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'

describe('people API for admins (ONLYOFFICE paths under /api/2.0/people)', () => {
  let server: TestServer
  let admin: string
  let adminId: string
  let member: string
  let memberId: string

  const addPerson = (body: Record<string, unknown>, token = admin) =>
    call(server.url, 'POST', '/api/2.0/people', { token, body })

  before(async () => {
    server = await startTestServer()
    admin = await signIn(server.url)
    adminId = (await call(server.url, 'GET', '/api/2.0/people/@self', { token: admin })).json.response.id
    const created = await addPerson({ userName: 'member', password: 'member-password' })
    memberId = created.json.response.id
    member = await signIn(server.url, 'member', 'member-password')
  })
  after(() => server.dispose())

  test('GET /people lists every account to an admin, without password hashes', async () => {
    const reply = await call(server.url, 'GET', '/api/2.0/people', { token: admin })
    assert.equal(reply.status, 200)
    assert.equal(reply.json.status, 0)
    const names = reply.json.response.map((p: { userName: string }) => p.userName)
    assert.ok(names.includes('admin') && names.includes('member'))
    assert.equal(reply.json.count, reply.json.response.length)
    assert.doesNotMatch(reply.text, /scrypt|passwordHash/)
  })

  test('every account-managing route answers 403 to a non-admin and 401 without a token', async () => {
    const attempts: Array<[string, string, unknown?]> = [
      ['POST', '/api/2.0/people', { userName: 'sneaky', password: 'sneaky-password', isAdmin: true }],
      ['GET', `/api/2.0/people/${adminId}`],
      ['PUT', `/api/2.0/people/${memberId}`, { isAdmin: true }],
      ['PUT', `/api/2.0/people/${adminId}/password`, { password: 'taken-over-1' }],
      ['DELETE', `/api/2.0/people/${adminId}`],
    ]
    for (const [method, path, body] of attempts) {
      const forbidden = await call(server.url, method, path, { token: member, body })
      assert.equal(forbidden.status, 403, `${method} ${path}`)
      assert.equal(forbidden.json.error.type, 'FORBIDDEN')
      const anonymous = await call(server.url, method, path, { body })
      assert.equal(anonymous.status, 401, `${method} ${path} without a token`)
    }
    // Nothing happened: the member is still no admin, the admin password still works.
    const self = await call(server.url, 'GET', '/api/2.0/people/@self', { token: member })
    assert.equal(self.json.response.isAdmin, false)
    await signIn(server.url)
    const sneaky = await call(server.url, 'GET', '/api/2.0/people', { token: admin })
    assert.ok(!sneaky.json.response.some((p: { userName: string }) => p.userName === 'sneaky'))
  })

  test('POST /people creates an account that can sign in (201), with optional profile fields', async () => {
    const reply = await addPerson({
      userName: 'carol',
      password: 'carol-password',
      isAdmin: false,
      displayName: 'Carol Jones',
      email: 'carol@example.org',
    })
    assert.equal(reply.status, 201)
    assert.equal(reply.json.statusCode, 201)
    assert.equal(reply.json.response.userName, 'carol')
    assert.equal(reply.json.response.displayName, 'Carol Jones')
    assert.equal(reply.json.response.email, 'carol@example.org')
    assert.equal(reply.json.response.isAdmin, false)
    const token = await signIn(server.url, 'carol', 'carol-password')
    const self = await call(server.url, 'GET', '/api/2.0/people/@self', { token })
    assert.equal(self.json.response.displayName, 'Carol Jones')
  })

  test('POST /people refuses a taken name (409), a short password, a bad name or email (400)', async () => {
    const taken = await addPerson({ userName: 'MEMBER', password: 'another-password' })
    assert.equal(taken.status, 409)
    assert.equal(taken.json.error.type, 'USER_EXISTS')
    const cases = [
      { userName: 'dave', password: 'short' },
      { userName: 'has space', password: 'long-enough-pass' },
      { userName: 'erin', password: 'long-enough-pass', email: 'not-an-email' },
      { userName: 'frank', password: 'long-enough-pass', isAdmin: 'yes' },
      { password: 'long-enough-pass' },
    ]
    for (const body of cases) {
      const reply = await addPerson(body)
      assert.equal(reply.status, 400, JSON.stringify(body))
      assert.equal(reply.json.error.type, 'INVALID_INPUT')
    }
  })

  test('PUT /people/:id changes name, email and admin rights, effective at once', async () => {
    const created = await addPerson({ userName: 'grace', password: 'grace-password' })
    const id = created.json.response.id
    const grace = await signIn(server.url, 'grace', 'grace-password')
    const hasEmails = async () => {
      const list = await call(server.url, 'GET', '/api/2.0/people', { token: grace })
      assert.equal(list.status, 200, list.text)
      // Her own entry always shows her address; the question is everyone else's.
      return list.json.response.some((p: { id: string; email?: string }) => p.id !== id && p.email !== undefined)
    }
    assert.equal(await hasEmails(), false)

    const reply = await call(server.url, 'PUT', `/api/2.0/people/${id}`, {
      token: admin,
      body: { isAdmin: true, displayName: 'Grace H.', email: 'grace@example.org' },
    })
    assert.equal(reply.status, 200)
    assert.equal(reply.json.response.isAdmin, true)
    assert.equal(reply.json.response.displayName, 'Grace H.')
    assert.equal(reply.json.response.email, 'grace@example.org')
    // Her existing session now has admin rights: the full list, e-mail addresses too.
    assert.equal(await hasEmails(), true)

    const revoked = await call(server.url, 'PUT', `/api/2.0/people/${id}`, { token: admin, body: { isAdmin: false } })
    assert.equal(revoked.json.response.isAdmin, false)
    assert.equal(revoked.json.response.displayName, 'Grace H.', 'fields not sent stay as they were')
    assert.equal(await hasEmails(), false)
  })

  test("GET /people for a non-admin: every account's id and display name, no one else's e-mail or user name", async () => {
    const reply = await call(server.url, 'GET', '/api/2.0/people.json', { token: member })
    assert.equal(reply.status, 200, reply.text)
    const people: Array<Record<string, unknown>> = reply.json.response
    const admin = people.find((p) => p.id === adminId)
    assert.deepEqual(admin, { id: adminId, displayName: admin?.displayName })
    assert.equal(typeof admin?.displayName, 'string')
    for (const person of people) {
      if (person.id === memberId) continue
      assert.deepEqual(Object.keys(person).sort(), ['displayName', 'id'])
    }
    assert.doesNotMatch(reply.text, /@example\.org|scrypt/)
    const filtered = await call(server.url, 'GET', '/api/2.0/people?filterValue=ADMIN', { token: member })
    assert.ok(filtered.json.response.some((p: { id: string }) => p.id === adminId))
    assert.ok(!filtered.json.response.some((p: { id: string }) => p.id === memberId))
    const searched = await call(server.url, 'GET', '/api/2.0/people/search?query=admin', { token: member })
    assert.deepEqual(searched.json.response, filtered.json.response)
    const byPath = await call(server.url, 'GET', '/api/2.0/people/search/admin', { token: member })
    assert.deepEqual(byPath.json.response, filtered.json.response)
    assert.equal((await call(server.url, 'GET', '/api/2.0/people')).status, 401)
  })

  test('PUT /people/:id: nothing to change is 400, an unknown id 404, demoting yourself 403', async () => {
    const empty = await call(server.url, 'PUT', `/api/2.0/people/${memberId}`, { token: admin, body: {} })
    assert.equal(empty.status, 400)
    const unknown = await call(server.url, 'PUT', '/api/2.0/people/no-such-id', {
      token: admin,
      body: { isAdmin: true },
    })
    assert.equal(unknown.status, 404)
    const self = await call(server.url, 'PUT', `/api/2.0/people/${adminId}`, { token: admin, body: { isAdmin: false } })
    assert.equal(self.status, 403)
    const me = await call(server.url, 'GET', '/api/2.0/people/@self', { token: admin })
    assert.equal(me.json.response.isAdmin, true)
  })

  test('PUT /people/:id/password sets a new password and ends every session of that user', async () => {
    const created = await addPerson({ userName: 'heidi', password: 'heidi-password' })
    const id = created.json.response.id
    const first = await signIn(server.url, 'heidi', 'heidi-password')
    const second = await signIn(server.url, 'heidi', 'heidi-password')

    const short = await call(server.url, 'PUT', `/api/2.0/people/${id}/password`, {
      token: admin,
      body: { password: 'short' },
    })
    assert.equal(short.status, 400)
    assert.equal((await call(server.url, 'GET', '/api/2.0/people/@self', { token: first })).status, 200)

    const reply = await call(server.url, 'PUT', `/api/2.0/people/${id}/password`, {
      token: admin,
      body: { password: 'heidi-new-password' },
    })
    assert.equal(reply.status, 200)
    for (const token of [first, second]) {
      assert.equal((await call(server.url, 'GET', '/api/2.0/people/@self', { token })).status, 401)
    }
    const old = await call(server.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'heidi', password: 'heidi-password' },
    })
    assert.equal(old.status, 401)
    await signIn(server.url, 'heidi', 'heidi-new-password')
    const unknown = await call(server.url, 'PUT', '/api/2.0/people/nobody/password', {
      token: admin,
      body: { password: 'long-enough-pass' },
    })
    assert.equal(unknown.status, 404)
  })

  test('DELETE /people/:id removes the account and its sessions; never yourself', async () => {
    const created = await addPerson({ userName: 'ivan', password: 'ivan-password' })
    const id = created.json.response.id
    const ivan = await signIn(server.url, 'ivan', 'ivan-password')

    const self = await call(server.url, 'DELETE', `/api/2.0/people/${adminId}`, { token: admin })
    assert.equal(self.status, 403)
    assert.equal((await call(server.url, 'GET', '/api/2.0/people/@self', { token: admin })).status, 200)

    const reply = await call(server.url, 'DELETE', `/api/2.0/people/${id}`, { token: admin })
    assert.equal(reply.status, 200)
    assert.equal(reply.json.response.deleted, true)
    assert.equal((await call(server.url, 'GET', '/api/2.0/people/@self', { token: ivan })).status, 401)
    const again = await call(server.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'ivan', password: 'ivan-password' },
    })
    assert.equal(again.status, 401)
    assert.equal((await call(server.url, 'DELETE', `/api/2.0/people/${id}`, { token: admin })).status, 404)
    const list = await call(server.url, 'GET', '/api/2.0/people', { token: admin })
    assert.ok(!list.json.response.some((p: { id: string }) => p.id === id))
  })
})
