import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'

/** The interface's language kept with the account: ONLYOFFICE's PUT people/{userid}/culture. */
describe('a user keeps their language with the account', () => {
  let server: TestServer
  let admin: string
  let bob: string
  let bobId: string

  before(async () => {
    server = await startTestServer()
    admin = await signIn(server.url)
    const made = await call(server.url, 'POST', '/api/2.0/people', {
      token: admin,
      body: { userName: 'bob', password: 'bob-password' },
    })
    assert.equal(made.status, 201, made.text)
    bobId = made.json.response.id
    bob = await signIn(server.url, 'bob', 'bob-password')
  })
  after(() => server.dispose())

  const self = async (token: string) =>
    (await call(server.url, 'GET', '/api/2.0/people/@self', { token })).json.response

  test("a profile's cultureName is '' until chosen", async () => {
    assert.equal((await self(bob)).cultureName, '')
  })

  test('PUT people/@self/culture keeps it; GET people/@self and the next sign-in read it back', async () => {
    const set = await call(server.url, 'PUT', '/api/2.0/people/@self/culture', {
      token: bob,
      body: { cultureName: 'fr-FR' },
    })
    assert.equal(set.status, 200, set.text)
    assert.equal(set.json.response.cultureName, 'fr-FR')
    assert.equal((await self(bob)).cultureName, 'fr-FR')
    // Another session of the same account (another browser) reads the same choice.
    assert.equal((await self(await signIn(server.url, 'bob', 'bob-password'))).cultureName, 'fr-FR')
    // Each account its own.
    assert.equal((await self(admin)).cultureName, '')
    // The files settings kept theirs.
    const settings = await call(server.url, 'GET', '/api/2.0/files/settings', { token: bob })
    assert.equal(settings.json.response.updateIfExist, false)
  })

  test("one's own id works as @self; '' goes back to the browser's language", async () => {
    const set = await call(server.url, 'PUT', `/api/2.0/people/${bobId}/culture`, {
      token: bob,
      body: { cultureName: '' },
    })
    assert.equal(set.status, 200, set.text)
    assert.equal((await self(bob)).cultureName, '')
  })

  test('a name that is no language tag is refused (400) and changes nothing', async () => {
    await call(server.url, 'PUT', '/api/2.0/people/@self/culture', { token: bob, body: { cultureName: 'de' } })
    for (const cultureName of ['German', '<script>', 'de_DE', 'x'.repeat(40)]) {
      const refused = await call(server.url, 'PUT', '/api/2.0/people/@self/culture', {
        token: bob,
        body: { cultureName },
      })
      assert.equal(refused.status, 400, `${cultureName}: ${refused.text}`)
      assert.equal(refused.json.error.type, 'INVALID_INPUT')
    }
    const missing = await call(server.url, 'PUT', '/api/2.0/people/@self/culture', { token: bob, body: {} })
    assert.equal(missing.status, 400, missing.text)
    assert.equal((await self(bob)).cultureName, 'de')
  })

  test("another person's language is not yours to set, even for an admin (403)", async () => {
    const refused = await call(server.url, 'PUT', `/api/2.0/people/${bobId}/culture`, {
      token: admin,
      body: { cultureName: 'es' },
    })
    assert.equal(refused.status, 403, refused.text)
    assert.equal((await self(bob)).cultureName, 'de')
  })

  test('others never see it: the people list leaves it out', async () => {
    const people = await call(server.url, 'GET', '/api/2.0/people', { token: admin })
    for (const person of people.json.response) assert.equal('cultureName' in person, false)
  })
})
