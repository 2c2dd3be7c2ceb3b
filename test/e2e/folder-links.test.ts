import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { FakeClock, startTestServer, type TestServer } from '../support/folio-server.js'
import { startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { call, signIn } from '../support/portal-client.js'
import { libreOfficeMissing } from '../contract/converter.contract.js'
import { docxWithText } from '../support/office-documents.js'

/** Public links for folders over HTTP: the API, the signed-out pages and their downloads. */
describe('folder links over HTTP', () => {
  let server: TestServer
  let token: string
  let bobToken: string
  const clock = new FakeClock()

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'off' }, { clock })
    token = await signIn(server.url)
    const bob = await call(server.url, 'POST', '/api/2.0/people', {
      token,
      body: { userName: 'bob', password: 'bob-password-1', displayName: 'Bob' },
    })
    assert.equal(bob.status, 201, bob.text)
    bobToken = await signIn(server.url, 'bob', 'bob-password-1')
  })
  after(() => server.dispose())

  const api = (method: string, path: string, body?: unknown, as = token) =>
    call(server.url, method, `/api/2.0${path}`, { token: as, ...(body === undefined ? {} : { body }) })
  const folder = async (parentId: string, title: string): Promise<string> => {
    const reply = await api('POST', `/files/folder/${parentId}`, { title })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }
  const upload = async (folderId: string, title: string, content: string): Promise<string> => {
    const reply = await call(
      server.url,
      'POST',
      `/api/2.0/files/${folderId}/upload?title=${encodeURIComponent(title)}`,
      {
        token,
        headers: { 'Content-Type': 'application/octet-stream' },
        raw: content,
      },
    )
    assert.ok(reply.status === 200 || reply.status === 201, reply.text)
    return reply.json.response.id
  }
  const page = (id: string, key: string, part = '') =>
    call(server.url, 'GET', `/s/${encodeURIComponent(id)}${part}?doc=${encodeURIComponent(key)}`)
  const keyOf = (reply: { json: { response: { sharedTo: { shareLink: string } } } }) =>
    new URL(reply.json.response.sharedTo.shareLink).searchParams.get('doc') ?? ''

  test('made, read and changed as DocSpace names it; only the owner; bad settings are 400 and change nothing', async () => {
    const shared = await folder('@my', 'Handouts')
    assert.equal((await api('GET', `/files/folder/${shared}/link`)).json.response, null)
    assert.deepEqual((await api('GET', `/files/folder/${shared}/links`)).json.response, [])
    assert.equal((await api('PUT', `/files/folder/${shared}/links`, { access: 2 }, bobToken)).status, 404)
    assert.equal((await api('GET', `/files/folder/${shared}/link`, undefined, bobToken)).status, 404)

    const made = await api('PUT', `/files/folder/${shared}/links`, {
      access: 2,
      denyDownload: true,
      expirationDate: '2099-01-01T00:00:00Z',
    })
    assert.equal(made.status, 200, made.text)
    const link = made.json.response
    assert.equal(link.access, 2)
    assert.equal(link.sharedTo.denyDownload, true)
    assert.equal(link.sharedTo.isExpired, false)
    assert.equal(Date.parse(link.sharedTo.expirationDate), Date.UTC(2099, 0, 1))
    const url = new URL(link.sharedTo.shareLink)
    assert.equal(url.pathname, `/s/${shared}`)
    assert.ok(keyOf(made).length >= 32)
    assert.deepEqual((await api('GET', `/files/folder/${shared}/link`)).json.response, link)
    assert.deepEqual((await api('GET', `/files/folder/${shared}/links`)).json.response, [link])
    // POST answers the link there is, unchanged.
    assert.deepEqual((await api('POST', `/files/folder/${shared}/link`, { access: 1 })).json.response, link)

    for (const bad of [
      { access: 2, password: 'secret' },
      { access: 2, internal: true },
      { access: 2, expirationDate: 'next week' },
      { access: 2, expirationDate: '2001-01-01T00:00:00Z' },
      { access: 7 },
      { access: 2, denyDownload: 'yes' },
    ]) {
      const refused = await api('PUT', `/files/folder/${shared}/links`, bad)
      assert.equal(refused.status, 400, JSON.stringify(bad))
      assert.match(refused.json.error.message, /\w/)
    }
    assert.deepEqual((await api('GET', `/files/folder/${shared}/link`)).json.response, link)

    // Every setting applied: same key, a field left out is reset.
    const changed = await api('PUT', `/files/folder/${shared}/links`, { access: 6 })
    assert.equal(keyOf(changed), keyOf(made))
    assert.equal(changed.json.response.access, 6)
    assert.equal(changed.json.response.sharedTo.denyDownload, false)
    assert.equal(changed.json.response.sharedTo.expirationDate, undefined)

    // The folder's row carries the marker.
    const listing = await api('GET', '/files/@my')
    const row = listing.json.response.folders.find((f: { id: string }) => f.id === shared)
    assert.equal(row.sharedLink, 6)

    const my = (await api('GET', '/files/@my')).json.response.current.id
    assert.equal((await api('PUT', `/files/folder/${my}/links`, { access: 2 })).status, 404)
    const off = await api('PUT', `/files/folder/${shared}/links`, { access: 0 })
    assert.equal(off.status, 200)
    assert.equal(off.json.response, null)
    assert.equal((await api('GET', `/files/folder/${shared}/link`)).json.response, null)
  })

  test('the pages list the tree signed out, never above it; downloads follow the link; moved out, trashed, revoked, expired: 404', async () => {
    const outside = await folder('@my', 'Outside')
    const shared = await folder('@my', 'Team')
    const sub = await folder(shared, 'Minutes')
    const notes = await upload(shared, 'notes.txt', 'team notes')
    const minutes = await upload(sub, 'monday.txt', 'monday minutes')
    const secret = await upload(outside, 'secret.txt', 'secret')
    const key = keyOf(await api('PUT', `/files/folder/${shared}/links`, { access: 2 }))

    const top = await page(shared, key)
    assert.equal(top.status, 200, top.text)
    assert.equal(top.headers.get('cache-control'), 'no-store')
    assert.match(top.text, /<h1>Team<\/h1>/)
    assert.match(top.text, /notes\.txt/)
    assert.match(top.text, new RegExp(`href="/s/${sub}\\?doc=`))
    assert.match(top.text, new RegExp(`/s/${notes}/download\\?doc=`))
    assert.doesNotMatch(top.text, /secret|Outside/)

    const inner = await page(sub, key)
    assert.equal(inner.status, 200)
    assert.match(inner.text, /monday\.txt/)
    assert.match(inner.text, new RegExp(`<a href="/s/${shared}\\?doc=[^"]*">Team</a>`))
    const filePage = await page(minutes, key)
    assert.equal(filePage.status, 200)
    assert.match(filePage.text, /monday minutes/, 'the text preview')
    assert.match(filePage.text, /Download/)
    const download = await page(minutes, key, '/download')
    assert.equal(download.status, 200)
    assert.equal(download.text, 'monday minutes')

    // Above the linked folder, beside it, a file outside, a made-up key: the 404 page.
    const my = (await api('GET', '/files/@my')).json.response.current.id
    for (const [id, k] of [
      [my, key],
      [outside, key],
      [secret, key],
      [shared, `${key}x`],
      [shared, ''],
    ] as const) {
      const refused = await page(id, k)
      assert.equal(refused.status, 404, `${id} ${k}`)
      assert.match(refused.text, /not here/)
    }
    assert.equal((await page(secret, key, '/download')).status, 404)

    // View only: no Download offered, the address refused; the preview stays.
    await api('PUT', `/files/folder/${shared}/links`, { access: 2, denyDownload: true })
    const viewOnly = await page(shared, key)
    assert.doesNotMatch(viewOnly.text, /\/download\?/)
    assert.match(viewOnly.text, /View only/)
    assert.doesNotMatch((await page(minutes, key)).text, /\/download\?/)
    assert.equal((await page(minutes, key, '/download')).status, 403)
    assert.equal((await page(minutes, key, '/preview')).status, 200)
    await api('PUT', `/files/folder/${shared}/links`, { access: 2 })

    // Moved out: gone from the list and from its address at once; moved back: there again.
    const moved = await api('PUT', '/files/fileops/move', {
      destFolderId: outside,
      fileIds: [notes],
      folderIds: [],
      conflictResolveType: 2,
    })
    assert.equal(moved.status, 200, moved.text)
    assert.doesNotMatch((await page(shared, key)).text, /notes\.txt/)
    assert.equal((await page(notes, key)).status, 404)
    assert.equal((await page(notes, key, '/download')).status, 404)

    // Trashed: not listed, not reachable.
    assert.equal((await api('DELETE', `/files/folder/${sub}`, { immediately: false })).status, 200)
    assert.doesNotMatch((await page(shared, key)).text, /Minutes/)
    assert.equal((await page(sub, key)).status, 404)
    assert.equal((await page(minutes, key, '/download')).status, 404)

    // Expired, then renewed (same key), then revoked.
    const soon = new Date(clock.now() + 60_000).toISOString()
    await api('PUT', `/files/folder/${shared}/links`, { access: 2, expirationDate: soon })
    assert.equal((await page(shared, key)).status, 200)
    clock.advance(61_000)
    assert.equal((await page(shared, key)).status, 404)
    assert.equal((await api('GET', `/files/folder/${shared}/link`)).json.response.sharedTo.isExpired, true)
    await api('PUT', `/files/folder/${shared}/links`, { access: 2 })
    assert.equal((await page(shared, key)).status, 200)
    await api('PUT', `/files/folder/${shared}/links`, { access: 0 })
    const revoked = await page(shared, key)
    assert.equal(revoked.status, 404)
    assert.match(revoked.text, /not here/)
  })
})

describe('folder links over WOPI', () => {
  let server: TestServer
  let token: string

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'off' })
    token = await signIn(server.url)
  })
  after(() => server.dispose())

  test("a guest's WOPI token from a folder key: GetFile within the tree; view only hides print and export; moved out, 404", async () => {
    const shared = await call(server.url, 'POST', '/api/2.0/files/folder/@my', { token, body: { title: 'Board' } })
    const folderId = shared.json.response.id
    const uploaded = await call(server.url, 'POST', `/api/2.0/files/${folderId}/upload?title=Agenda.docx`, {
      token,
      headers: { 'Content-Type': 'application/octet-stream' },
      raw: 'agenda',
    })
    const fileId = uploaded.json.response.id
    const made = await call(server.url, 'PUT', `/api/2.0/files/folder/${folderId}/links`, {
      token,
      body: { access: 2, denyDownload: true },
    })
    const key = new URL(made.json.response.sharedTo.shareLink).searchParams.get('doc') ?? ''
    const launched = await call(
      server.url,
      'POST',
      `/api/2.0/files/file/${fileId}/wopi?doc=${encodeURIComponent(key)}&name=Gina&mode=view`,
    )
    assert.equal(launched.status, 200, launched.text)
    const wopiToken = encodeURIComponent(launched.json.response.accessToken)
    const info = await call(server.url, 'GET', `/wopi/files/${fileId}?access_token=${wopiToken}`)
    assert.equal(info.status, 200)
    assert.deepEqual(
      [info.json.UserFriendlyName, info.json.IsAnonymousUser, info.json.UserCanWrite],
      ['Gina', true, false],
    )
    assert.deepEqual(
      [info.json.DisablePrint, info.json.HidePrintOption, info.json.DisableExport, info.json.HideExportOption],
      [true, true, true, true],
    )
    assert.equal(
      (await call(server.url, 'GET', `/wopi/files/${fileId}/contents?access_token=${wopiToken}`)).text,
      'agenda',
    )
    // Downloads allowed again: the flags go at the next CheckFileInfo.
    await call(server.url, 'PUT', `/api/2.0/files/folder/${folderId}/links`, { token, body: { access: 2 } })
    const again = await call(server.url, 'GET', `/wopi/files/${fileId}?access_token=${wopiToken}`)
    assert.equal(again.json.DisablePrint, undefined)
    // Moved out of the folder: the token already issued reaches nothing.
    const my = (await call(server.url, 'GET', '/api/2.0/files/@my', { token })).json.response.current.id
    await call(server.url, 'PUT', '/api/2.0/files/fileops/move', {
      token,
      body: { destFolderId: my, fileIds: [fileId], folderIds: [], conflictResolveType: 2 },
    })
    assert.equal((await call(server.url, 'GET', `/wopi/files/${fileId}?access_token=${wopiToken}`)).status, 404)
  })
})

/** A document below a folder link opens in ONLYOFFICE for a guest, as a file link's does. */
describe('folder links in the editor', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  test('openedit with the folder key: within the link access, a file outside the folder is 404, off is 404', async () => {
    const shared = await h.api('POST', '/files/folder/@my', { title: 'Shared docs' })
    const folderId = shared.json.response.id
    const inside = await call(h.folio.url, 'POST', `/api/2.0/files/${folderId}/upload?title=Inside.docx`, {
      token: h.token,
      headers: { 'Content-Type': 'application/octet-stream' },
      raw: 'inside',
    })
    const fileId = inside.json.response.id
    const outside = await h.upload('Outside.docx', 'outside')
    const made = await h.api('PUT', `/files/folder/${folderId}/links`, { access: 1 })
    const key = new URL(made.json.response.sharedTo.shareLink).searchParams.get('doc') ?? ''
    const open = (id: string) =>
      call(h.folio.url, 'GET', `/api/2.0/files/file/${id}/openedit?doc=${encodeURIComponent(key)}&name=Zed`)

    const config = (await open(fileId)).json.response
    assert.equal(config.editorConfig.mode, 'edit')
    assert.equal(config.editorConfig.user.name, 'Zed')
    assert.equal((await fetch(config.document.url)).status, 200)
    assert.equal((await open(outside.id)).status, 404)

    // The file page offers the editor, asking the name only then.
    const filePage = await call(h.folio.url, 'GET', `/s/${fileId}?doc=${encodeURIComponent(key)}`)
    assert.match(filePage.text, /Open in editor/)
    assert.match(filePage.text, new RegExp(`action="/s/${fileId}/editor"`))
    const editor = await call(h.folio.url, 'GET', `/s/${fileId}/editor?doc=${encodeURIComponent(key)}&name=Zed`)
    assert.equal(editor.status, 200, editor.text.slice(0, 200))

    assert.equal(config.document.permissions.download, true)
    // A link that denies downloads: the editor offers no download, print or copy.
    await h.api('PUT', `/files/folder/${folderId}/links`, { access: 2, denyDownload: true })
    const viewOnly = (await open(fileId)).json.response
    assert.equal(viewOnly.editorConfig.mode, 'view')
    assert.deepEqual(
      [viewOnly.document.permissions.download, viewOnly.document.permissions.print, viewOnly.document.permissions.copy],
      [false, false, false],
    )

    await h.api('PUT', `/files/folder/${folderId}/links`, { access: 0 })
    assert.equal((await open(fileId)).status, 404)
    assert.equal((await fetch(config.document.url)).status, 403)
  })
})

/** A folder link's page shows the thumbnails LibreOffice made, read through the link. */
describe('folder link thumbnails', { skip: libreOfficeMissing() }, () => {
  let server: TestServer
  let token: string

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
    token = await signIn(server.url)
  })
  after(() => server.dispose())

  test('a document with a thumbnail shows it in the list; the thumbnail answers through the key only', async () => {
    const made = await call(server.url, 'POST', '/api/2.0/files/folder/@my', { token, body: { title: 'Plans' } })
    const folderId = made.json.response.id
    const uploaded = await call(server.url, 'POST', `/api/2.0/files/${folderId}/upload?title=Plan.docx`, {
      token,
      headers: { 'Content-Type': 'application/octet-stream' },
      raw: new Uint8Array(docxWithText(['The plan for spring'])),
    })
    const fileId = uploaded.json.response.id
    // The thumbnail is made in the background: wait for the listing to say it is settled.
    for (;;) {
      const listing = await call(server.url, 'GET', `/api/2.0/files/${folderId}`, { token })
      const file = listing.json.response.files.find((f: { id: string }) => f.id === fileId)
      if (file.thumbnailStatus !== 0) {
        assert.equal(file.thumbnailStatus, 1)
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const link = await call(server.url, 'PUT', `/api/2.0/files/folder/${folderId}/links`, {
      token,
      body: { access: 2, denyDownload: true },
    })
    const key = new URL(link.json.response.sharedTo.shareLink).searchParams.get('doc') ?? ''
    const page = await call(server.url, 'GET', `/s/${folderId}?doc=${encodeURIComponent(key)}`)
    const src = `/s/${fileId}/thumbnail?doc=${encodeURIComponent(key)}`
    assert.ok(page.text.includes(`<img class="thumb" src="${src}"`), page.text)
    const image = await fetch(server.url + src)
    assert.equal(image.status, 200)
    assert.equal(image.headers.get('content-type'), 'image/png')
    assert.equal((await fetch(`${server.url}/s/${fileId}/thumbnail?doc=wrong`)).status, 404)
    await call(server.url, 'PUT', `/api/2.0/files/folder/${folderId}/links`, { token, body: { access: 0 } })
    assert.equal((await fetch(server.url + src)).status, 404)
  })
})
