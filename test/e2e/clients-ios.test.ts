import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { IOS_DOCSERVICE_VERSION, iosConfigMisfits, misfits } from '../support/app-models.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { call, signIn } from '../support/portal-client.js'
import { sendAs } from '../support/app-request.js'

/**
 * ONLYOFFICE Documents for iOS against Folio, each request as the app's sources
 * (ONLYOFFICE/documents-app-ios) send it: paths from Networking/Onlyoffice/
 * OnlyofficeEndpoints.swift, JSON bodies for POST and PUT, query strings for GET, the
 * token as `Authorization: Bearer` once `communityServer` is 10.0 or more. Without a
 * Document Server the app edits on the device: openedit, startedit, trackeditfile and
 * saveediting (EditorManager/ASCEditorManager.swift). The editor config is decoded with
 * strict Codable (Onlyoffice/Model/OnlyofficeDocumentConfig.swift).
 */

const send = sendAs

/** Compares dotted versions as iOS's isVersion(greaterThanOrEqualTo:) does. */
function atLeast(version: string, wanted: string): boolean {
  const a = version.split('.').map(Number)
  const b = wanted.split('.').map(Number)
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0
    const y = b[i] ?? 0
    if (x !== y) return x > y
  }
  return true
}

describe('ONLYOFFICE Documents for iOS, without a Document Server', () => {
  let server: TestServer
  let base: string
  let auth: Record<string, string> = {}
  let fileId = ''
  let key = ''

  before(async () => {
    server = await startTestServer()
    base = server.url
  })
  after(() => server?.dispose())

  test('sign-in: authentication, then the versions decide Bearer and the @root sections', async () => {
    // Networking/Onlyoffice/OnlyofficeEndpoints.swift: capabilities, authentication
    // (ASCSignInController.swift sends OnlyofficeAuthRequest.toJSON())
    assert.equal((await send(base, 'GET', 'api/2.0/capabilities')).status, 200)
    const signedIn = await send(base, 'POST', 'api/2.0/authentication', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal: new URL(base).host, userName: 'admin', password: server.adminPassword }),
    })
    assert.equal(signedIn.status, 201)
    const token: string = signedIn.json.response.token
    // OnlyofficeApiClient.swift: until the versions are known the token goes alone.
    const versions = await send(base, 'GET', 'api/2.0/settings/version/build', { headers: { Authorization: token } })
    assert.equal(versions.status, 200)
    const community: string = versions.json.response.communityServer
    // isHttp2 (>= 10.0): Bearer; >= 11.5: the sections come from @root.
    assert.ok(atLeast(community, '10.0') && atLeast(community, '11.5'), community)
    assert.equal(versions.json.response.docSpace, undefined, 'not taken for DocSpace')
    assert.equal(versions.json.response.documentServer, '')
    auth = { Authorization: `Bearer ${token}` }
    // OnlyofficeEndpoints.swift: peopleSelf, deviceRegistration (failures ignored)
    assert.equal((await send(base, 'GET', 'api/2.0/people/@self', { headers: auth })).status, 200)
    const registration = await send(base, 'POST', 'api/2.0/portal/mobile/registration', {
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 1 }),
    })
    assert.equal(registration.status, 200)
  })

  test("browse: @root, then a folder with iOS's paging, search, sortBy=tag and numeric filterType", async () => {
    // Providers/ASCOnlyofficeProvider.swift: fetch (files/@root, then files/{id} with params)
    const root = await send(base, 'GET', 'api/2.0/files/@root', { headers: auth })
    assert.equal(root.status, 200)
    const my = String(root.json.response[0].current.id)
    await call(base, 'POST', '/api/2.0/files/@my/upload?title=photo.png', {
      token: auth.Authorization,
      raw: 'png',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    await call(base, 'POST', '/api/2.0/files/@my/upload?title=pack.zip', {
      token: auth.Authorization,
      raw: 'zip',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    await call(base, 'POST', '/api/2.0/files/@my/upload?title=clip.mp4', {
      token: auth.Authorization,
      raw: 'mp4',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    const list = async (extra: string) => {
      const reply = await send(base, 'GET', `api/2.0/files/${my}?page=0&startIndex=0&count=20&${extra}`, {
        headers: auth,
      })
      assert.equal(reply.status, 200, `${extra}: ${reply.body.toString()}`)
      return reply.json.response.files.map((f: { title: string }) => f.title)
    }
    // Controllers/Filters/Model/ASCDocumentsFilterModel.swift: images 7, archive 10, media 12
    assert.deepEqual(await list('filterType=7'), ['photo.png'])
    assert.deepEqual(await list('filterType=10'), ['pack.zip'])
    assert.deepEqual(await list('filterType=12'), ['clip.mp4'])
    // Controllers/Documents/Models/ASCDocumentSortType.swift: "tag"
    assert.equal((await list('sortBy=tag&sortOrder=ascending')).length, 3)
    assert.deepEqual(await list('filterBy=title&filterOp=contains&filterValue=pack'), ['pack.zip'])
  })

  test('upload: multipart, the part named "file"', async () => {
    // Providers/ASCOnlyofficeProvider.swift: upload (OnlyofficeEndpoints.swift uploadFile)
    const form = new FormData()
    form.append('file', new Blob(['typed on the iPad']), 'Notes.docx')
    const uploaded = await send(base, 'POST', 'api/2.0/files/@my/upload', { headers: auth, body: form })
    assert.equal(uploaded.status, 201)
    fileId = uploaded.json.response.id
  })

  test('open for editing on the device: openedit answers key, url and permissions (strict Codable)', async () => {
    // EditorManager/ASCEditorManager.swift: fetchDocumentInfo (openedit?edit=true)
    const opened = await send(base, 'GET', `api/2.0/files/file/${fileId}/openedit?edit=true`, { headers: auth })
    assert.equal(opened.status, 200, opened.body.toString())
    const config = opened.json.response
    assert.deepEqual(iosConfigMisfits(config), [])
    assert.ok(config.document.key !== '' && config.document.url !== '', 'the app needs key and url')
    assert.equal(config.document.permissions.edit, true)
    assert.equal(config.editorConfig.callbackUrl, undefined)
    // ASCEntityManager.swift: downloadTemp (document.url, a presigned link)
    const bytes = await send(base, 'GET', config.document.url)
    assert.equal(bytes.body.toString(), 'typed on the iPad')
    // view=true: a viewer's permissions.
    const viewer = await send(base, 'GET', `api/2.0/files/file/${fileId}/openedit?view=true`, { headers: auth })
    assert.equal(viewer.json.response.editorConfig.mode, 'view')
    assert.equal(viewer.json.response.document.permissions.edit, false)
  })

  test('startedit, trackeditfile, saveediting (raw and multipart), then isFinish', async () => {
    // ASCEditorManager.swift: updateLocallyEditFile → startEdit {editingAlone: true}
    const started = await send(base, 'POST', `api/2.0/files/file/${fileId}/startedit`, {
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ editingAlone: true }),
    })
    assert.equal(started.status, 200, started.body.toString())
    assert.equal(typeof started.json.response, 'string')
    key = started.json.response
    // ASCEditorManager.swift: trackEdit ["docKeyForTrack": key] (URLEncoding: a query)
    const tracked = await send(
      base,
      'GET',
      `api/2.0/files/file/${fileId}/trackeditfile?docKeyForTrack=${encodeURIComponent(key)}`,
      { headers: auth },
    )
    assert.equal(tracked.status, 200)
    assert.equal(tracked.json.response.key, true)
    // Providers/ASCOnlyofficeProvider.swift: modify → apiClient.upload(saveEditing, data, {title}, mime)
    const raw = await send(base, 'PUT', `api/2.0/files/file/${fileId}/saveediting?title=Notes.docx`, {
      headers: { ...auth, 'Content-Type': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
      body: 'saved from the iPad',
    })
    assert.equal(raw.status, 200, raw.body.toString())
    assert.equal(raw.json.response.version, 2)
    // ... and the multipart form of DocSpace 3.1+ (part "file").
    const form = new FormData()
    form.append('file', new Blob(['saved again']), 'Notes.docx')
    const multipart = await send(base, 'PUT', `api/2.0/files/file/${fileId}/saveediting`, { headers: auth, body: form })
    assert.equal(multipart.status, 200, multipart.body.toString())
    assert.equal(multipart.json.response.version, 3)
    const content = await call(base, 'GET', `/api/2.0/files/file/${fileId}/download`, { token: auth.Authorization })
    assert.equal(content.text, 'saved again')
    // ASCEditorManager.swift: stopLocallyEditing → trackEdit ["docKeyForTrack", "isFinish": "true"]
    const finished = await send(
      base,
      'GET',
      `api/2.0/files/file/${fileId}/trackeditfile?docKeyForTrack=${encodeURIComponent(key)}&isFinish=true`,
      { headers: auth },
    )
    assert.equal(finished.status, 200)
    const lock = await call(base, 'GET', `/api/2.0/files/file/${fileId}/lock`, { token: auth.Authorization })
    assert.equal(lock.json.response.locked, false)
  })

  test('bulk download: the first operation of the poll reaches progress 100', async () => {
    // OnlyofficeEndpoints.swift: Operations.download (PUT fileops/bulkdownload), then
    // ASCEntityManager.swift: poll Operations.list until result.first.progress >= 100
    const started = await send(base, 'PUT', 'api/2.0/files/fileops/bulkdownload', {
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ fileIds: [fileId] }),
    })
    assert.equal(started.status, 200)
    const poll = await send(base, 'GET', 'api/2.0/files/fileops', { headers: auth })
    const first = poll.json.response[0]
    assert.ok(first, 'the poll lists the operation')
    assert.ok(first.progress >= 100)
    assert.match(first.url, /bulkdownload\?/)
  })

  test('security: startedit is refused while someone else holds the file; its lock blocks a WOPI PutFile with 409', async () => {
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(server.ctx, { userName: 'erin', password: 'erin-password-1' })
    const erin = await signIn(base, 'erin', 'erin-password-1')
    const erinId = (await call(base, 'GET', '/api/2.0/people/@self', { token: erin })).json.response.id
    await call(base, 'PUT', `/api/2.0/files/file/${fileId}/share`, {
      token: auth.Authorization,
      body: { share: [{ shareTo: erinId, access: 1 }] },
    })

    const mine = await send(base, 'POST', `api/2.0/files/file/${fileId}/startedit`, {
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ editingAlone: true }),
    })
    assert.equal(mine.status, 200)
    const lockId: string = mine.json.response
    // Another user's app: 409 while the lock is held.
    const theirs = await send(base, 'POST', `api/2.0/files/file/${fileId}/startedit`, {
      headers: { Authorization: `Bearer ${erin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ editingAlone: true }),
    })
    assert.equal(theirs.status, 409)

    // A WOPI client (erin's) with a lock of its own: PutFile is 409 with X-WOPI-Lock naming
    // the app's lock, as the lock table says for a file locked with another ID.
    const launch = await call(base, 'POST', `/api/2.0/files/file/${fileId}/wopi`, { token: erin, body: {} })
    assert.equal(launch.status, 200, launch.text)
    const { wopiSrc, accessToken } = launch.json.response
    const put = await fetch(`${wopiSrc}/contents?access_token=${accessToken}`, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'another-client-lock' },
      body: 'overwrite',
    })
    assert.equal(put.status, 409)
    assert.equal(put.headers.get('x-wopi-lock'), lockId)
    const lockCall = await fetch(`${wopiSrc}?access_token=${accessToken}`, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'another-client-lock' },
    })
    assert.equal(lockCall.status, 409)
    const content = await call(base, 'GET', `/api/2.0/files/file/${fileId}/download`, { token: auth.Authorization })
    assert.equal(content.text, 'saved again')
    // The app's own save still goes through; released, the WOPI client may lock.
    const saved = await send(base, 'PUT', `api/2.0/files/file/${fileId}/saveediting?title=Notes.docx`, {
      headers: { ...auth, 'Content-Type': 'application/octet-stream' },
      body: 'while locked',
    })
    assert.equal(saved.status, 200)
    await send(
      base,
      'GET',
      `api/2.0/files/file/${fileId}/trackeditfile?docKeyForTrack=${encodeURIComponent(lockId)}&isFinish=true`,
      { headers: auth },
    )
    const relock = await fetch(`${wopiSrc}?access_token=${accessToken}`, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'another-client-lock' },
    })
    assert.equal(relock.status, 200)
  })
})

describe('ONLYOFFICE Documents for iOS, with a Document Server', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h?.close())

  test('docservice?version=true, then openedit and co-editing in Docs', async () => {
    const auth = { Authorization: `Bearer ${h.token}` }
    // EditorManager/ASCEditorManager.swift: fetchDocumentService (DocumentServerVersionRequest version=true)
    for (const path of ['api/2.0/files/docservice?version=true', 'api/2.0/files/docservice.json?version=true']) {
      const reply = await send(h.folio.url, 'GET', path, { headers: auth })
      assert.equal(reply.status, 200, reply.body.toString())
      assert.deepEqual(misfits(reply.json.response, IOS_DOCSERVICE_VERSION), [])
      assert.match(reply.json.response.docServiceUrlApi, /\/web-apps\/apps\/api\/documents\/api\.js$/)
      assert.match(reply.json.response.version, /^8\.3\.0/)
    }
    const file = await h.upload('Shared.docx', 'with Docs')
    const opened = await send(h.folio.url, 'GET', `api/2.0/files/file/${file.id}/openedit?edit=true`, { headers: auth })
    assert.equal(opened.status, 200)
    assert.deepEqual(iosConfigMisfits(opened.json.response), [])
    const session = await h.sim.openEditor(opened.json.response)
    assert.equal(session.mode, 'edit')
    await session.disconnect()
  })
})
