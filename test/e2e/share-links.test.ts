import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { call, signIn } from '../support/portal-client.js'

/** A file's share link: made, opened without an account, changed and turned off at once. */
describe('share links', () => {
  let h: Harness
  let bobToken: string

  before(async () => {
    h = await startHarness()
    await h.createUser('bob')
    bobToken = await signIn(h.folio.url, 'bob', 'bob-password-1')
  })
  after(() => h.close())

  const setLink = (fileId: string, share: number, token = h.token) =>
    call(h.folio.url, 'PUT', `/api/2.0/files/${fileId}/sharedlink`, { token, body: { share } })
  const open = (fileId: string, key: string, extra = '', cookie?: string) =>
    call(h.folio.url, 'GET', `/api/2.0/files/file/${fileId}/openedit?doc=${encodeURIComponent(key)}${extra}`, {
      ...(cookie === undefined ? {} : { headers: { Cookie: cookie } }),
    })

  test('the link opens the editor without an account, within its access, until it is turned off', async () => {
    const file = await h.upload('Linked.docx', 'linked')
    assert.equal((await setLink(file.id, 2, bobToken)).status, 404)
    const made = await setLink(file.id, 2)
    assert.equal(made.status, 200, made.text)
    const url = new URL(made.json.response.sharedTo.shareLink)
    assert.equal(url.pathname, `/s/${file.id}`)
    const key = url.searchParams.get('doc') ?? ''
    assert.ok(key.length >= 32)
    assert.equal(made.json.response.access, 2)
    assert.deepEqual(
      (await call(h.folio.url, 'GET', `/api/2.0/files/${file.id}/sharedlink`, { token: h.token })).json.response,
      made.json.response,
    )

    // Read: a viewer, a guest identity kept by a cookie, the name the guest typed.
    const first = await open(file.id, key, '&name=Zed')
    assert.equal(first.status, 200, first.text)
    const config = first.json.response
    assert.equal(config.editorConfig.mode, 'view')
    assert.equal(config.document.permissions.edit, false)
    assert.equal(config.editorConfig.user.name, 'Zed')
    assert.match(config.editorConfig.user.id, /^guest-/)
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    assert.match(cookie, /^folio_guest=/)
    const again = await open(file.id, key, '', cookie)
    assert.equal(again.json.response.editorConfig.user.id, config.editorConfig.user.id)
    assert.equal(again.json.response.editorConfig.user.name, 'Guest')
    assert.equal(again.headers.get('set-cookie'), null)
    assert.equal(again.json.response.document.key, (await h.openConfig(file.id)).document?.key)

    // A wrong key, or the key on another file, opens nothing; the portal stays closed.
    assert.equal((await open(file.id, `${key}x`)).status, 404)
    const other = await h.upload('Other.docx', 'other')
    assert.equal((await open(other.id, key)).status, 404)
    assert.equal((await call(h.folio.url, 'GET', `/api/2.0/files/file/${file.id}`)).status, 401)

    // ReadWrite: the same link now edits; its download link works.
    const upgraded = await setLink(file.id, 1)
    assert.equal(new URL(upgraded.json.response.sharedTo.shareLink).searchParams.get('doc'), key)
    const editing = (await open(file.id, key, '', cookie)).json.response
    assert.equal(editing.editorConfig.mode, 'edit')
    assert.equal(editing.document.permissions.edit, true)
    const downloaded = await fetch(editing.document.url)
    assert.equal(downloaded.status, 200)
    assert.equal(await downloaded.text(), 'linked')
    const garbled = await fetch(editing.editorConfig.callbackUrl, { method: 'POST', body: 'not json' })
    assert.equal(garbled.status, 400, 'the callback is still accepted up to the body check')

    // Off: openedit, the session's download link and its callback are refused at once.
    const off = await setLink(file.id, 0)
    assert.equal(off.status, 200)
    assert.equal(off.json.response, null)
    assert.equal((await open(file.id, key)).status, 404)
    assert.equal((await fetch(editing.document.url)).status, 403)
    const refused = await fetch(editing.editorConfig.callbackUrl, { method: 'POST', body: 'not json' })
    assert.equal(refused.status, 403)
    assert.equal(
      (await call(h.folio.url, 'GET', `/api/2.0/files/${file.id}/sharedlink`, { token: h.token })).json.response,
      null,
    )

    // Made again: a new key; the old one stays dead.
    const remade = await setLink(file.id, 2)
    assert.notEqual(new URL(remade.json.response.sharedTo.shareLink).searchParams.get('doc'), key)
    assert.equal((await open(file.id, key)).status, 404)
  })

  test('bad link input is a 400 that changes nothing', async () => {
    const file = await h.upload('Bad link.docx', 'x')
    for (const share of [3, 7, 9, -1]) assert.equal((await setLink(file.id, share)).status, 400, String(share))
    assert.equal(
      (await call(h.folio.url, 'GET', `/api/2.0/files/${file.id}/sharedlink`, { token: h.token })).json.response,
      null,
    )
  })

  test('the browser page of a link offers the editor, which asks the guest for a name, then opens it', async () => {
    const file = await h.upload('Page.docx', 'page')
    const key = new URL((await setLink(file.id, 6)).json.response.sharedTo.shareLink).searchParams.get('doc') ?? ''
    const ask = await call(h.folio.url, 'GET', `/s/${file.id}?doc=${encodeURIComponent(key)}`)
    assert.equal(ask.status, 200)
    assert.match(ask.text, /Open in editor/)
    assert.match(ask.text, new RegExp(`action="/s/${file.id}/editor"`))
    assert.match(ask.text, /name="name"/)
    // The address of the name form, and the older one with the name on the link itself.
    const old = await call(h.folio.url, 'GET', `/s/${file.id}?doc=${encodeURIComponent(key)}&name=Ada`)
    assert.equal(old.status, 302)
    assert.equal(old.headers.get('location'), `/s/${file.id}/editor?doc=${encodeURIComponent(key)}&name=Ada`)
    const page = await call(
      h.folio.url,
      'GET',
      `/s/${file.id}/editor?doc=${encodeURIComponent(key)}&name=${encodeURIComponent('Ada <b>')}`,
    )
    assert.equal(page.status, 200)
    assert.match(page.text, /DocsAPI/)
    assert.match(page.text, /Ada \\u003cb>|Ada \\u003cb\\u003e/)
    assert.doesNotMatch(page.text, /Ada <b>/)
    assert.equal((await call(h.folio.url, 'GET', `/s/${file.id}?doc=wrong&name=x`)).status, 404)
    assert.equal((await call(h.folio.url, 'GET', `/s/${file.id}/editor?doc=wrong&name=x`)).status, 404)
  })
})
