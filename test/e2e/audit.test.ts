import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { call, signIn } from '../support/portal-client.js'
import { lockHeaders, startWopiHarness, type WopiHarness } from './wopi-support.js'

interface EventJson {
  id: string
  date: string
  action: string
  userId: string
  userName: string
  ip: string
  target: { type: string; id: string; title: string } | null
  detail: string
}

describe('audit trail (GET /api/2.0/security/audit/events/filter)', () => {
  let h: WopiHarness
  const trail = async (query = '', token = h.portalToken) =>
    call(h.server.url, 'GET', `/api/2.0/security/audit/events/filter${query}`, { token })
  const events = async (): Promise<EventJson[]> => (await trail('?count=1000')).json.response

  before(async () => {
    h = await startWopiHarness()
  })
  after(() => h.server.dispose())

  test('sign-ins, failures, account changes, lock releases, restores, deletes and sign-outs are listed with who, what, when and where', async () => {
    const started = Date.now()
    const url = h.server.url
    const admin = h.portalToken
    // A failed sign-in names the user name tried and no id.
    const wrong = await call(url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'admin', password: 'not-the-password' },
    })
    assert.equal(wrong.status, 401)
    await call(url, 'POST', '/api/2.0/authentication.json', { body: { userName: 'ghost', password: 'whatever-1' } })

    const created = await call(url, 'POST', '/api/2.0/people', {
      token: admin,
      body: { userName: 'member', password: 'member-password' },
    })
    const memberId: string = created.json.response.id
    await call(url, 'PUT', `/api/2.0/people/${memberId}`, { token: admin, body: { isAdmin: true } })
    await call(url, 'PUT', `/api/2.0/people/${memberId}`, {
      token: admin,
      body: { isAdmin: false, email: 'm@example.org' },
    })
    await call(url, 'PUT', `/api/2.0/people/${memberId}/password`, {
      token: admin,
      body: { password: 'member-password-2' },
    })
    const member = await signIn(url, 'member', 'member-password-2')
    await call(url, 'POST', '/api/2.0/authentication/logout', { token: member })
    await call(url, 'DELETE', `/api/2.0/people/${memberId}`, { token: admin })

    const fileId = await h.createFile('Notes.docx', 'first')
    assert.equal((await h.wopi(fileId, { override: 'LOCK', headers: lockHeaders('L1') })).status, 200)
    const put = await h.wopi(fileId, {
      contents: true,
      override: 'PUT',
      headers: { 'X-WOPI-Lock': 'L1' },
      body: 'second',
    })
    assert.equal(put.status, 200)
    // A lock left behind, released through the portal: that is an audit event (a WOPI
    // client's own Unlock at every close is routine and is not).
    assert.equal((await call(url, 'DELETE', `/api/2.0/files/file/${fileId}/lock`, { token: admin })).status, 200)
    const restored = await call(url, 'POST', `/api/2.0/files/file/${fileId}/restore`, {
      token: admin,
      body: { version: 1 },
    })
    assert.equal(restored.status, 200)
    assert.equal((await call(url, 'DELETE', `/api/2.0/files/file/${fileId}`, { token: admin })).status, 200)

    const reply = await trail('?count=1000')
    assert.equal(reply.status, 200)
    assert.equal(reply.headers.get('cache-control'), 'no-store')
    const all: EventJson[] = reply.json.response
    assert.equal(reply.json.total, all.length)
    const find = (action: string, predicate: (e: EventJson) => boolean = () => true) => {
      const found = all.find((e) => e.action === action && predicate(e))
      assert.ok(found, `an event ${action} in ${JSON.stringify(all.map((e) => e.action))}`)
      return found
    }
    // The admin account Folio made at its first start is recorded as Folio's own act.
    const first = find('user-created', (e) => e.userName === 'folio' && e.target?.title === 'admin')
    assert.equal(first.detail, 'admin')
    for (const event of all.filter((e) => e !== first)) {
      assert.equal(event.ip, '127.0.0.1', `${event.action} from the client's address`)
      assert.ok(Date.parse(event.date) >= started - 60_000, `${event.action} has its time`)
    }
    const failed = find('sign-in-failed', (e) => e.userName === 'admin')
    assert.equal(failed.userId, '')
    assert.equal(failed.detail, 'wrong password')
    assert.equal(find('sign-in-failed', (e) => e.userName === 'ghost').detail, 'unknown user')
    find('sign-in', (e) => e.userName === 'admin')
    find('sign-in', (e) => e.userName === 'member')
    find('sign-out', (e) => e.userName === 'member' && e.userId === memberId)
    const onMember = (e: EventJson) => e.userName === 'admin' && e.target?.type === 'user' && e.target.id === memberId
    for (const action of ['user-created', 'admin-granted', 'admin-withdrawn', 'password-set', 'user-removed']) {
      const event = find(action, onMember)
      assert.equal(event.target?.title, 'member')
    }
    assert.equal(find('user-changed', onMember).detail, 'email')
    const onFile = (e: EventJson) => e.userName === 'admin' && e.target?.type === 'file' && e.target.id === fileId
    assert.equal(find('lock-released', onFile).target?.title, 'Notes.docx')
    assert.equal(find('version-restored', onFile).detail, 'version 1')
    find('file-deleted', onFile)

    // Newest first: the delete came last.
    assert.equal(all[0]?.action, 'file-deleted')
    // Nothing of a password reaches the trail.
    assert.doesNotMatch(reply.text, /not-the-password|member-password|whatever-1/)
  })

  test('startIndex and count page through the trail without gaps or repeats', async () => {
    const everything = await events()
    const seen: string[] = []
    for (let start = 0; start < everything.length; start += 3) {
      const page = await trail(`?startIndex=${start}&count=3`)
      assert.equal(page.json.startIndex, start)
      assert.equal(page.json.total, everything.length)
      seen.push(...page.json.response.map((e: EventJson) => e.id))
    }
    assert.deepEqual(
      seen,
      everything.map((e) => e.id),
    )
    const future = await trail(`?from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`)
    assert.equal(future.json.total, 0)
  })

  test('refuses non-admins (403), anonymous callers (401) and bad paging (400)', async () => {
    await call(h.server.url, 'POST', '/api/2.0/people', {
      token: h.portalToken,
      body: { userName: 'plain', password: 'plain-password' },
    })
    const plain = await signIn(h.server.url, 'plain', 'plain-password')
    const forbidden = await trail('', plain)
    assert.equal(forbidden.status, 403)
    assert.equal(forbidden.json.error.type, 'FORBIDDEN')
    const anonymous = await call(h.server.url, 'GET', '/api/2.0/security/audit/events/filter')
    assert.equal(anonymous.status, 401)
    for (const query of ['?count=0', '?count=1001', '?startIndex=-1', '?count=abc', '?from=yesterday']) {
      const bad = await trail(query)
      assert.equal(bad.status, 400, query)
      assert.equal(bad.json.error.type, 'INVALID_INPUT')
    }
  })

  test('share and link changes are listed with who changed what', async () => {
    const url = h.server.url
    const admin = h.portalToken
    const created = await call(url, 'POST', '/api/2.0/people', {
      token: admin,
      body: { userName: 'reader', password: 'reader-password' },
    })
    const readerId: string = created.json.response.id
    const fileId = await h.createFile('Shared plan.docx', 'plan')
    const shared = await call(url, 'PUT', `/api/2.0/files/file/${fileId}/share`, {
      token: admin,
      body: { share: [{ shareTo: readerId, access: 2 }] },
    })
    assert.equal(shared.status, 200)
    assert.equal(
      (await call(url, 'PUT', `/api/2.0/files/${fileId}/sharedlink`, { token: admin, body: { share: 2 } })).status,
      200,
    )
    assert.equal(
      (await call(url, 'PUT', `/api/2.0/files/${fileId}/sharedlink`, { token: admin, body: { share: 0 } })).status,
      200,
    )

    const onFile = (e: EventJson) => e.userName === 'admin' && e.target?.type === 'file' && e.target.id === fileId
    const all = await events()
    const share = all.find((e) => e.action === 'share-changed' && onFile(e))
    assert.ok(share, 'the share is in the trail')
    assert.equal(share.target?.title, 'Shared plan.docx')
    assert.equal(share.detail, `access ${readerId}: 2`)
    const links = all.filter((e) => e.action === 'link-changed' && onFile(e)).map((e) => e.detail)
    // Newest first: turned off after it was turned on.
    assert.deepEqual(links, ['link turned off', 'link access 2'])
  })
})
