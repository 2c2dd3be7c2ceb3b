import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startHarness, waitFor, type Harness } from '../support/onlyoffice-harness.js'
import { call, signIn } from '../support/portal-client.js'

/**
 * An admin disables an account without removing it (ONLYOFFICE's PUT people/status/
 * Terminated): everything issued to that user ends at once (portal sessions, WOPI tokens,
 * links to their files, their open editors), they cannot sign in, and enabling them
 * (people/status/Active) gives back what they had.
 */
describe('disabling and enabling a user', () => {
  let h: Harness
  let bobId: string

  before(async () => {
    h = await startHarness()
    bobId = (await h.createUser('bob')).id
  })
  after(() => h.close())

  const setStatus = (status: string, userIds: string[], token = h.token) =>
    call(h.folio.url, 'PUT', `/api/2.0/people/status/${status}`, { token, body: { userIds } })
  const bobSignIn = (password = 'bob-password-1') =>
    call(h.folio.url, 'POST', '/api/2.0/authentication.json', { body: { userName: 'bob', password } })
  const self = (token: string) => call(h.folio.url, 'GET', '/api/2.0/people/@self', { token })
  const checkFileInfo = (fileId: string, token: string) =>
    call(h.folio.url, 'GET', `/wopi/files/${fileId}?access_token=${encodeURIComponent(token)}`)
  const openLink = (fileId: string, key: string) =>
    call(h.folio.url, 'GET', `/api/2.0/files/file/${fileId}/openedit?doc=${encodeURIComponent(key)}&name=Guest`)
  const linkPage = (fileId: string, key: string) =>
    call(h.folio.url, 'GET', `/s/${fileId}?doc=${encodeURIComponent(key)}&name=Guest`)

  test('a disabled user is shut out at once: session, WOPI token, links, editors, sign-in; enabling restores', async () => {
    const bob = await signIn(h.folio.url, 'bob', 'bob-password-1')
    const uploaded = await call(h.folio.url, 'POST', '/api/2.0/files/@my/upload?title=Bob.docx', {
      token: bob,
      raw: 'bob writes',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(uploaded.status, 201, uploaded.text)
    const bobFile: string = uploaded.json.response.id
    const made = await call(h.folio.url, 'PUT', `/api/2.0/files/${bobFile}/sharedlink`, {
      token: bob,
      body: { share: 2 },
    })
    assert.equal(made.status, 200, made.text)
    const key = new URL(made.json.response.sharedTo.shareLink).searchParams.get('doc') ?? ''
    const minted = await call(h.folio.url, 'POST', `/api/2.0/files/file/${bobFile}/wopi`, { token: bob })
    const wopiToken: string = minted.json.response.accessToken

    // The admin's document, shared with Bob to edit; both have it open in ONLYOFFICE.
    const shared = await h.upload('Together.docx', 'together')
    const share = await h.api('PUT', `/files/file/${shared.id}/share`, { share: [{ shareTo: bobId, access: 1 }] })
    assert.equal(share.status, 200, share.text)
    const adminEditor = await h.openEditor(shared.id)
    const bobUser = await h.folio.ctx.store.users.findById(bobId)
    assert.ok(bobUser)
    const bobEditor = await h.sim.openEditor(await h.configFor(shared.id, bobUser))
    await waitFor(async () => ((await h.file(shared.id)).editing.length === 2 ? true : undefined))

    // Everything works before.
    assert.equal((await self(bob)).status, 200)
    assert.equal((await checkFileInfo(bobFile, wopiToken)).status, 200)
    assert.equal((await openLink(bobFile, key)).status, 200)

    const disabled = await setStatus('Terminated', [bobId])
    assert.equal(disabled.status, 200, disabled.text)
    assert.deepEqual(
      disabled.json.response.map((p: { id: string; status: number }) => [p.id, p.status]),
      [[bobId, 2]],
    )

    assert.equal((await self(bob)).status, 401, 'the portal session ended')
    assert.equal((await checkFileInfo(bobFile, wopiToken)).status, 401, 'the WOPI token ended')
    assert.equal((await openLink(bobFile, key)).status, 404, 'the link to his file answers as a dead link')
    assert.equal((await linkPage(bobFile, key)).status, 404)
    const refused = await bobSignIn()
    assert.equal(refused.status, 403)
    assert.equal(refused.json.error.type, 'USER_DISABLED')
    assert.match(refused.json.error.message, /disabled/)
    const guessed = await bobSignIn('not-his-password')
    assert.equal(guessed.status, 401, 'a wrong password says nothing of the account being disabled')
    assert.equal(guessed.json.error.type, 'INVALID_CREDENTIALS')

    // Docs drops Bob from the session, and only him.
    const drop = await waitFor(() => h.sim.commands.find((c) => c.c === 'drop' && c.key === bobEditor.key))
    assert.equal(drop.error, 0)
    assert.deepEqual(drop.params.users, [bobId])
    await waitFor(() => (bobEditor.warnings.includes('drop') ? true : undefined))
    assert.equal(adminEditor.warnings.includes('drop'), false)

    // The admin sees him disabled; the share to him stays.
    const people = await h.api('GET', '/people')
    assert.equal(people.json.response.find((p: { id: string }) => p.id === bobId).status, 2)
    const offered = await h.api('GET', '/people/filter?filterValue=bob')
    assert.deepEqual(offered.json.response, [], 'a disabled account is not offered to share with')
    const shares = await h.api('GET', `/files/file/${shared.id}/share`)
    assert.ok(shares.json.response.some((s: { sharedTo: { id: string } }) => s.sharedTo.id === bobId))

    // The right password while disabled is no failed attempt: it never locks the name out.
    for (let i = 0; i < 6; i++) assert.equal((await bobSignIn()).status, 403)

    const enabled = await setStatus('Active', [bobId])
    assert.equal(enabled.status, 200, enabled.text)
    assert.equal(enabled.json.response[0].status, 1)
    const again = await signIn(h.folio.url, 'bob', 'bob-password-1')
    const sharedWithBob = await call(h.folio.url, 'GET', '/api/2.0/files/@share', { token: again })
    assert.ok(sharedWithBob.json.response.files.some((f: { id: string }) => f.id === shared.id))
    assert.equal((await openLink(bobFile, key)).status, 200, 'his link works again')
    assert.equal((await checkFileInfo(bobFile, wopiToken)).status, 401, 'a token ended stays ended')
    await h.sim.idle()
  })

  test('no one disables themselves or the last enabled admin; a non-admin may not; bad input changes nothing', async () => {
    const admin = h.admin.id
    const own = await setStatus('Terminated', [admin])
    assert.equal(own.status, 403)
    assert.equal(own.json.error.type, 'FORBIDDEN')
    const carol = await h.createUser('carol')
    const carolToken = await signIn(h.folio.url, 'carol', 'carol-password-1')
    const byCarol = await setStatus('Terminated', [bobId], carolToken)
    assert.equal(byCarol.status, 403)
    // One id that cannot be disabled refuses the whole list.
    const mixed = await setStatus('2', [carol.id, admin])
    assert.equal(mixed.status, 403)
    assert.equal((await self(carolToken)).status, 200, 'carol was not disabled either')
    for (const status of ['Pending', '4', 'nonsense']) {
      const bad = await setStatus(status, [carol.id])
      assert.equal(bad.status, 400, status)
    }
    assert.equal((await setStatus('Terminated', [])).status, 400)
    const unknown = await setStatus('Terminated', [carol.id, 'no-such-user'])
    assert.equal(unknown.status, 404)
    assert.equal((await self(carolToken)).status, 200)
    assert.equal((await h.api('GET', '/people/@self')).status, 200, 'the admin is still in')
  })
})
