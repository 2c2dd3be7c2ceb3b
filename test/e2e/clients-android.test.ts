import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import {
  ANDROID_ALL_SETTINGS,
  ANDROID_CAPABILITIES,
  ANDROID_FILE,
  ANDROID_OPERATION,
  ANDROID_TOKEN,
  ANDROID_USER,
  ANDROID_VERSIONS,
  androidExplorerMisfits,
  misfits,
  misfitsRequiring,
} from '../support/app-models.js'
import { FakeClock } from '../support/folio-server.js'
import { startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { call, signIn } from '../support/portal-client.js'
import { sendAs } from '../support/app-request.js'

/**
 * ONLYOFFICE Documents for Android against Folio, each request as the app's sources
 * (ONLYOFFICE/documents-app-android) send it: Retrofit interfaces with fixed headers
 * (`Content-OperationType: application/json`, `Accept: application/json`), the token as
 * `Authorization: Bearer`, downloads with `Cookie: asc_auth_key=<token>`, uploads with the
 * multipart part named after the file. Every answer is checked against the fields and
 * types of the model the app decodes it into (test/support/app-models.ts).
 */

const JSON_HEADERS = { 'Content-OperationType': 'application/json', Accept: 'application/json' }

describe('ONLYOFFICE Documents for Android', () => {
  let h: Harness
  let base: string
  let token = ''
  let myFolder = ''
  let fileId = ''

  before(async () => {
    h = await startHarness()
    base = h.folio.url
  })
  after(() => h?.close())

  const send = (method: string, path: string, init: Parameters<typeof sendAs>[3] = {}) =>
    sendAs(base, method, path, init)
  const bearer = () => ({ ...JSON_HEADERS, Authorization: `Bearer ${token}` })

  test('sign-in: capabilities, authentication, versions, settings, people/@self', async () => {
    // core/network/.../login/CloudLoginDataSourceImpl.kt: getCapabilities
    const capabilities = await send('GET', 'api/2.0/capabilities', { headers: JSON_HEADERS })
    assert.equal(capabilities.status, 200)
    assert.deepEqual(misfits(capabilities.json.response, ANDROID_CAPABILITIES), [])

    // CloudLoginDataSourceImpl.kt: signIn (RequestSignIn, kotlinx leaves default fields out)
    const signIn = await send('POST', 'api/2.0/authentication', {
      headers: { 'Cache-Control': 'no-cache', ...JSON_HEADERS, 'Content-Type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ userName: 'admin', password: h.folio.adminPassword }),
    })
    assert.equal(signIn.status, 201)
    assert.deepEqual(misfitsRequiring(signIn.json.response, ANDROID_TOKEN, ['token']), [])
    token = signIn.json.response.token

    // CloudLoginDataSourceImpl.kt: getSettings (settings/version/build)
    const versions = await send('GET', 'api/2.0/settings/version/build', { headers: bearer() })
    assert.equal(versions.status, 200)
    assert.deepEqual(misfits(versions.json.response, ANDROID_VERSIONS), [])
    // No docSpace: Android takes the portal for Workspace.
    assert.equal(versions.json.response.docSpace, undefined)
    // The connected Docs' version, which Android compares with its editors' before co-editing.
    assert.match(versions.json.response.documentServer, /^8\.3\.0/)

    // CloudLoginDataSourceImpl.kt: getAllSettings
    const settings = await send('GET', 'api/2.0/settings', { headers: bearer() })
    assert.deepEqual(misfits(settings.json.response, ANDROID_ALL_SETTINGS), [])
    assert.equal(settings.json.response.personal, false)
    assert.equal(settings.json.response.docSpace, false)

    // CloudLoginDataSourceImpl.kt: getUserInfo
    const self = await send('GET', 'api/2.0/people/@self', { headers: bearer() })
    assert.deepEqual(misfitsRequiring(self.json.response, ANDROID_USER, ['id', 'displayName']), [])

    // CloudLoginDataSourceImpl.kt: registerDevice, subscribe (failures ignored; answered all the same)
    const register = await send('POST', 'api/2.0/settings/push/docregisterdevice', {
      headers: { Accept: 'application/json', Authorization: token, 'Content-Type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ firebaseDeviceToken: 'device-1' }),
    })
    assert.equal(register.status, 200)
    const subscribe = await send('PUT', 'api/2.0/settings/push/docsubscribe', {
      headers: { Accept: 'application/json', Authorization: token, 'Content-Type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ firebaseDeviceToken: 'device-1', isSubscribed: true }),
    })
    assert.equal(subscribe.status, 200)
  })

  test("browse: @root, a folder with the app's paging, sort and every filterType it offers", async () => {
    // core/.../manager/ManagerService.kt: getItemById("@root")
    const root = await send('GET', 'api/2.0/files/@root', { headers: bearer() })
    assert.equal(root.status, 200)
    for (const section of root.json.response) assert.deepEqual(androidExplorerMisfits(section), [])
    myFolder = String(root.json.response[0].current.id)

    // appmanager/.../presenters/main/DocsBasePresenter.kt: getArgs + putFilters (a TreeMap)
    const listing = await send(
      'GET',
      `api/2.0/files/${myFolder}?count=25&filterType=None&sortBy=DateAndTime&sortOrder=descending&userIdOrGroupId=`,
      { headers: bearer() },
    )
    assert.equal(listing.status, 200)
    assert.deepEqual(androidExplorerMisfits(listing.json.response), [])
    // A sort left unset is sent empty.
    const unsorted = await send('GET', `api/2.0/files/${myFolder}?count=25&filterType=None&sortBy=&sortOrder=`, {
      headers: bearer(),
    })
    assert.equal(unsorted.status, 200)

    // appmanager/.../mvp/models/filter/FilterType values (ApiContract.Parameters VAL_FILTER_BY_*)
    await h.upload('photo.png', 'png bytes')
    await h.upload('song.mp3', 'mp3 bytes')
    await h.upload('pack.zip', 'zip bytes')
    await h.upload('scan.pdf', 'pdf bytes')
    const only = async (filterType: string) => {
      const reply = await send(
        'GET',
        `api/2.0/files/${myFolder}?count=25&filterType=${filterType}&withSubfolders=true&sortBy=AZ&sortOrder=ascending`,
        { headers: bearer() },
      )
      assert.equal(reply.status, 200, `${filterType}: ${reply.body.toString()}`)
      assert.deepEqual(androidExplorerMisfits(reply.json.response), [])
      return reply.json.response.files.map((f: { title: string }) => f.title)
    }
    assert.deepEqual(await only('ImagesOnly'), ['photo.png'])
    assert.deepEqual(await only('MediaOnly'), ['song.mp3'])
    assert.deepEqual(await only('ArchiveOnly'), ['pack.zip'])
    assert.deepEqual(await only('Pdf'), ['scan.pdf'])
    // Folio cannot tell a PDF form: nothing, not a refusal.
    assert.deepEqual(await only('PdfForm'), [])
    // Sort names the app sends (ApiContract.Parameters VAL_SORT_BY_*).
    for (const sortBy of ['created', 'type', 'size', 'Author', 'name', 'AZ', 'DateAndTime']) {
      const reply = await send('GET', `api/2.0/files/${myFolder}?count=25&sortBy=${sortBy}&sortOrder=ascending`, {
        headers: bearer(),
      })
      assert.equal(reply.status, 200, sortBy)
    }
  })

  test('upload: the part named after the file, then createNewIfExist', async () => {
    // appmanager/.../managers/works/UploadWork.kt: createMultipartBody (part name = title) and
    // ManagerService.kt: uploadFile(folderId, part, createNewIfExist)
    const form = new FormData()
    form.append('Report.docx', new Blob(['first draft']), 'Report.docx')
    form.append('createNewIfExist', 'true')
    const uploaded = await send('POST', `api/2.0/files/${myFolder}/upload`, {
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    })
    assert.equal(uploaded.status, 201, uploaded.body.toString())
    assert.deepEqual(misfitsRequiring(uploaded.json.response, ANDROID_FILE, ['id', 'title', 'viewUrl', 'version']), [])
    fileId = uploaded.json.response.id

    // UploadWork.kt with copy=false: createNewIfExist "false" makes a version of the same file.
    const again = new FormData()
    again.append('Report.docx', new Blob(['second draft']), 'Report.docx')
    again.append('createNewIfExist', 'false')
    const versioned = await send('POST', `api/2.0/files/${myFolder}/upload`, {
      headers: { Authorization: `Bearer ${token}` },
      body: again,
    })
    assert.equal(versioned.status, 201)
    assert.equal(versioned.json.response.id, fileId)
    assert.equal(versioned.json.response.version, 2)
  })

  test('open without a Document Server: presigneduri, then the bytes with no Authorization', async () => {
    // core/.../manager/ManagerService.kt: getDownloadFileLink (BaseResponse<String>, kotlinx)
    const link = await send('GET', `api/2.0/files/file/${fileId}/presigneduri`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    assert.equal(link.status, 200)
    assert.equal(typeof link.json.response, 'string')
    // ManagerService.kt: suspendDownloadFile(url, cookie): the cookie of the account, no header.
    const bytes = await send('GET', link.json.response, { headers: { Cookie: 'asc_auth_key=' } })
    assert.equal(bytes.status, 200)
    assert.equal(bytes.body.toString(), 'second draft')
  })

  test('save a local edit: PUT files/{fileId}/update, the part named after the file', async () => {
    // appmanager/.../presenters/main/DocsBasePresenter.kt: updateDocument; ManagerService.kt: updateDocument
    const form = new FormData()
    form.append('Report.docx', new Blob(['edited on the phone']), 'Report.docx')
    const saved = await send('PUT', `api/2.0/files/${fileId}/update`, {
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    })
    assert.equal(saved.status, 200, saved.body.toString())
    assert.equal(saved.json.response.version, 3)
  })

  test('download and history: viewUrl with the asc_auth_key cookie, {viewUrl}&version=N', async () => {
    const file = await h.file(fileId)
    // ManagerService.kt: downloadFile(@Url viewUrl, @Header("Cookie") "asc_auth_key=<token>")
    const current = await send('GET', file.viewUrl, { headers: { Cookie: `asc_auth_key=${token}` } })
    assert.equal(current.status, 200)
    assert.equal(current.body.toString(), 'edited on the phone')

    // ManagerService.kt: getVersionHistory (ResponseVersionHistory: a list of CloudFile, Gson)
    const history = await send('GET', `api/2.0/files/file/${fileId}/history`, { headers: bearer() })
    assert.equal(history.status, 200)
    assert.equal(history.json.response.length, 3)
    history.json.response.forEach((entry: unknown, i: number) =>
      assert.deepEqual(
        misfitsRequiring(
          entry,
          ANDROID_FILE,
          ['id', 'title', 'version', 'viewUrl', 'created', 'createdBy'],
          `history[${i}]`,
        ),
        [],
      ),
    )
    // The history screen fetches an old version as {viewUrl}&version=N.
    const first = await send('GET', `${file.viewUrl}&version=1`, { headers: { Cookie: `asc_auth_key=${token}` } })
    assert.equal(first.status, 200)
    assert.equal(first.body.toString(), 'first draft')
    const entry = history.json.response.find((e: { version: number }) => e.version === 2)
    const second = await send('GET', `${entry.viewUrl}&version=2`, { headers: { Cookie: `asc_auth_key=${token}` } })
    assert.equal(second.body.toString(), 'second draft')
  })

  test('bulk download: PUT fileops/bulkdownload, poll GET fileops until finished, fetch the url', async () => {
    // ManagerService.kt: downloadFiles(RequestDownload {fileIds, folderIds})
    const started = await send('PUT', 'api/2.0/files/fileops/bulkdownload', {
      headers: { ...bearer(), 'Content-Type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ fileIds: [fileId], folderIds: [] }),
    })
    assert.equal(started.status, 200)
    started.json.response.forEach((op: unknown, i: number) =>
      assert.deepEqual(misfits(op, ANDROID_OPERATION, `ops[${i}]`), []),
    )
    const mine = started.json.response.find((op: { operation: number }) => op.operation === 3)
    // ManagerService.kt: status() — the app polls and looks for its operation finished.
    const polled = await send('GET', 'api/2.0/files/fileops', { headers: bearer() })
    assert.equal(polled.status, 200)
    const found = polled.json.response.find((op: { id: string }) => op.id === mine.id)
    assert.ok(found, 'the finished operation is still listed by the poll after the reply')
    assert.equal(found.finished, true)
    assert.deepEqual(misfits(found, ANDROID_OPERATION, 'poll'), [])
    const archive = await send('GET', found.url, { headers: { Cookie: `asc_auth_key=${token}` } })
    assert.equal(archive.status, 200)
    assert.equal(archive.body.subarray(0, 2).toString(), 'PK')
  })

  test('empty the trash and stop operations: application/json with no body', async () => {
    // ManagerService.kt: emptyTrash() and terminate(), fixed headers, no @Body
    for (const path of ['api/2.0/files/fileops/emptytrash', 'api/2.0/files/fileops/terminate']) {
      const reply = await send('PUT', path, {
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${token}` },
      })
      assert.equal(reply.status, 200, `${path}: ${reply.body.toString()}`)
      assert.ok(Array.isArray(reply.json.response))
    }
  })

  test('open with a Document Server: docservice, openedit with version/fill/edit/view, the editor', async () => {
    // ManagerService.kt: getDocService (a string: the api.js address)
    const docService = await send('GET', 'api/2.0/files/docservice', { headers: bearer() })
    assert.equal(docService.status, 200)
    assert.match(docService.json.response, /\/web-apps\/apps\/api\/documents\/api\.js$/)
    const version = (await h.file(fileId)).version
    // ManagerService.kt: openFile(id, version, fill, edit, view)
    const edit = await send(
      'GET',
      `api/2.0/files/file/${fileId}/openedit?version=${version}&fill=false&edit=true&view=false`,
      { headers: bearer() },
    )
    assert.equal(edit.status, 200, edit.body.toString())
    assert.equal(edit.json.response.editorConfig.mode, 'edit')
    const session = await h.sim.openEditor(edit.json.response)
    assert.equal(session.mode, 'edit')
    assert.equal(Buffer.from(session.downloaded).toString(), 'edited on the phone')
    await session.disconnect()
    const view = await send(
      'GET',
      `api/2.0/files/file/${fileId}/openedit?version=${version}&fill=false&edit=false&view=true`,
      { headers: bearer() },
    )
    assert.equal(view.json.response.editorConfig.mode, 'view')
  })

  test('avatars: people/{id}/photo answers without a stored photo', async () => {
    const self = await send('GET', 'api/2.0/people/@self', { headers: bearer() })
    const photo = await send('GET', `api/2.0/people/${self.json.response.id}/photo`, { headers: bearer() })
    assert.equal(photo.status, 200)
    assert.equal(typeof photo.json.response.max, 'string')
  })
})

describe('presigned links (the app opens documents through them)', () => {
  let h: Harness
  const clock = new FakeClock()
  let owner = ''
  let reader = ''
  let readerId = ''
  let first: { id: string }
  let second: { id: string }

  before(async () => {
    h = await startHarness({ clock })
    owner = h.token
    await h.createUser('rita')
    reader = await signIn(h.folio.url, 'rita', 'rita-password-1')
    readerId = (await call(h.folio.url, 'GET', '/api/2.0/people/@self', { token: reader })).json.response.id
    first = await h.upload('one.txt', 'the first file')
    second = await h.upload('two.txt', 'the second file')
  })
  after(() => h?.close())

  const presign = async (token: string, fileId: string): Promise<string> => {
    // core/.../manager/ManagerService.kt: getDownloadFileLink
    const reply = await call(h.folio.url, 'GET', `/api/2.0/files/file/${fileId}/presigneduri`, {
      token: `Bearer ${token}`,
    })
    assert.equal(reply.status, 200, reply.text)
    return reply.json.response
  }

  test("a link expires after minutes (the server's clock moved, no waiting)", async () => {
    const url = await presign(owner, first.id)
    assert.equal((await fetch(url)).status, 200)
    clock.advance(4 * 60_000)
    assert.equal((await fetch(url)).status, 200)
    clock.advance(2 * 60_000)
    const expired = await fetch(url)
    assert.equal(expired.status, 401)
    assert.match(await expired.text(), /expired/)
  })

  test('a link reads one file only, and only for reading', async () => {
    const url = new URL(await presign(owner, first.id))
    const other = new URL(url)
    other.pathname = url.pathname.replace(first.id, second.id)
    assert.equal((await fetch(other)).status, 401)
    assert.equal((await fetch(url, { method: 'PUT', body: 'x' })).status, 404)
    const tampered = new URL(url)
    tampered.searchParams.set('token', `${url.searchParams.get('token')}x`)
    assert.equal((await fetch(tampered)).status, 401)
  })

  test('a link is bound to its version: a newer save does not change what it reads', async () => {
    const url = await presign(owner, first.id)
    const form = new FormData()
    form.append('one.txt', new Blob(['a newer version']), 'one.txt')
    const saved = await fetch(`${h.folio.url}/api/2.0/files/${first.id}/update`, {
      method: 'PUT',
      headers: { Authorization: owner },
      body: form,
    })
    assert.equal(saved.status, 200)
    assert.equal(await (await fetch(url)).text(), 'the first file')
  })

  test('a link stops working once its user lost access (a share removed)', async () => {
    await call(h.folio.url, 'PUT', `/api/2.0/files/file/${second.id}/share`, {
      token: owner,
      body: { share: [{ shareTo: readerId, access: 2 }] },
    })
    const url = await presign(reader, second.id)
    assert.equal(await (await fetch(url)).text(), 'the second file')
    await call(h.folio.url, 'PUT', `/api/2.0/files/file/${second.id}/share`, {
      token: owner,
      body: { share: [{ shareTo: readerId, access: 0 }] },
    })
    assert.equal((await fetch(url)).status, 404)
    // Nor can they ask for a new one.
    const again = await call(h.folio.url, 'GET', `/api/2.0/files/file/${second.id}/presigneduri`, { token: reader })
    assert.equal(again.status, 404)
  })
})
