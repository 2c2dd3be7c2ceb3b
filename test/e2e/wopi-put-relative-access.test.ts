import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createUser } from '../../src/app/accounts/accounts.js'
import { encodeUtf7 } from '../../src/core/names/utf7.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'
import { contentOf, recordOf, startWopiHarness, type WopiHarness } from './wopi-support.js'

/**
 * PutRelativeFile by someone a file is shared with: the new file goes where he may create
 * (the source's folder, else his own documents), never replaces a file he may not edit,
 * and a name he cannot see answers as a free name does.
 */
describe('WOPI PutRelativeFile decides access on the folder and the file it writes', () => {
  let h: WopiHarness
  let bob: { id: string; token: string }
  let bobMy: string

  before(async () => {
    h = await startWopiHarness()
    const user = await createUser(h.server.ctx, { userName: 'bob', password: 'bob-password-1' })
    bob = { id: user.id, token: await signIn(h.server.url, 'bob', 'bob-password-1') }
    bobMy = (await api(bob.token, 'GET', '/files/@my')).json.response.current.id
  })
  after(() => h.server.dispose())

  const api = (token: string, method: string, path: string, body?: unknown): Promise<ApiReply> =>
    call(h.server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })

  async function folder(title: string): Promise<string> {
    const my = (await api(h.portalToken, 'GET', '/files/@my')).json.response.current.id
    const reply = await api(h.portalToken, 'POST', `/files/folder/${my}`, { title })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function upload(folderId: string, title: string, text: string): Promise<string> {
    const reply = await call(
      h.server.url,
      'POST',
      `/api/2.0/files/${folderId}/upload?title=${encodeURIComponent(title)}`,
      {
        token: h.portalToken,
        raw: text,
        headers: { 'Content-Type': 'application/octet-stream' },
      },
    )
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function share(kind: 'file' | 'folder', id: string, access: number): Promise<void> {
    const reply = await api(h.portalToken, 'PUT', `/files/${kind}/${id}/share`, {
      share: [{ shareTo: bob.id, access }],
    })
    assert.equal(reply.status, 200, reply.text)
  }

  async function bobsToken(fileId: string): Promise<string> {
    const reply = await api(bob.token, 'POST', `/files/file/${fileId}/wopi`)
    assert.equal(reply.status, 200, reply.text)
    return reply.json.response.accessToken
  }

  const putRelative = async (sourceId: string, name: string, overwrite: boolean, body = 'bob bytes') =>
    h.wopi(sourceId, {
      token: await bobsToken(sourceId),
      override: 'PUT_RELATIVE',
      headers: { 'X-WOPI-RelativeTarget': name, 'X-WOPI-OverwriteRelativeTarget': String(overwrite) },
      body,
    })

  const folderOf = async (reply: ApiReply): Promise<string | undefined> => {
    const id = new URL(reply.json.Url).pathname.split('/').pop() ?? ''
    return (await h.server.ctx.store.files.findById(id))?.folderId
  }

  test('a sharee of one file cannot overwrite an unshared file beside it; his copy goes to his own documents', async () => {
    const team = await folder('Payroll')
    const shared = await upload(team, 'shared.docx', 'shared')
    const salary = await upload(team, 'salary.xlsx', 'salaries')
    await upload(team, 'bonus.xlsx', 'bonuses')
    await share('file', shared, 1)
    assert.equal((await api(bob.token, 'GET', `/files/file/${salary}`)).status, 404)

    const reply = await putRelative(shared, 'salary.xlsx', true)
    assert.equal(reply.status, 200, reply.text)
    assert.equal(await contentOf(h, salary), 'salaries')
    assert.equal((await recordOf(h, salary)).version, 1)
    assert.equal(reply.json.Name, 'salary.xlsx')
    assert.equal(await folderOf(reply), bobMy, "he may not create in the owner's folder: his own documents")

    // The 409 leak: without overwrite, the unseen name answers as a free one does.
    const again = await putRelative(shared, 'bonus.xlsx', false)
    const free = await putRelative(shared, 'nothing-here.xlsx', false)
    assert.equal(again.status, free.status)
    assert.equal(again.status, 200, again.text)
    assert.equal(again.headers.get('x-wopi-validrelativetarget'), null)
    assert.equal(await folderOf(free), bobMy, 'nothing is created in a folder he may not create in')
    const listing = await api(h.portalToken, 'GET', `/files/${team}`)
    assert.deepEqual(listing.json.response.files.map((f: { title: string }) => f.title).sort(), [
      'bonus.xlsx',
      'salary.xlsx',
      'shared.docx',
    ])
  })

  test('inside a ReadWrite folder: Read-only and Restrict entries are never replaced; free names land there', async () => {
    const team = await folder('Team')
    const doc = await upload(team, 'doc.docx', 'doc')
    const readOnly = await upload(team, 'read-only.xlsx', 'read only')
    const hidden = await upload(team, 'hidden.xlsx', 'hidden')
    const alsoHidden = await upload(team, 'also-hidden.xlsx', 'also hidden')
    await share('folder', team, 1)
    await share('file', readOnly, 2)
    await share('file', hidden, 3)
    await share('file', alsoHidden, 3)

    const onReadOnly = await putRelative(doc, 'read-only.xlsx', true)
    assert.equal(onReadOnly.status, 409, onReadOnly.text)
    assert.equal(await contentOf(h, readOnly), 'read only')
    assert.equal((await recordOf(h, readOnly)).version, 1)

    const onHidden = await putRelative(doc, 'hidden.xlsx', true)
    assert.equal(onHidden.status, 200, onHidden.text)
    assert.equal(await contentOf(h, hidden), 'hidden')
    assert.equal((await recordOf(h, hidden)).version, 1)
    assert.equal(await folderOf(onHidden), bobMy)

    const hiddenName = await putRelative(doc, 'also-hidden.xlsx', false)
    const freeName = await putRelative(doc, 'free.xlsx', false)
    assert.equal(hiddenName.status, 200, hiddenName.text)
    assert.equal(freeName.status, 200, freeName.text)
    assert.deepEqual(Object.keys(hiddenName.json).sort(), Object.keys(freeName.json).sort())
    assert.equal(hiddenName.json.Name, 'also-hidden.xlsx')
    assert.equal(await contentOf(h, alsoHidden), 'also hidden')
    assert.equal(await folderOf(freeName), team, 'he may create in the shared folder: beside the original')
  })

  test("CheckFileInfo's UserCanNotWriteRelative is false for a sharee with edit, true with a view token", async () => {
    const team = await folder('Info')
    const doc = await upload(team, 'info.docx', 'x')
    await share('file', doc, 1)
    const info = await h.wopi(doc, { method: 'GET', token: await bobsToken(doc) })
    assert.equal(info.json.UserCanNotWriteRelative, false)
    const view = await api(bob.token, 'POST', `/files/file/${doc}/wopi?mode=view`)
    const viewInfo = await h.wopi(doc, { method: 'GET', token: view.json.response.accessToken })
    assert.equal(viewInfo.json.UserCanNotWriteRelative, true)
  })

  test("a suggestion or a 409's ValidRelativeTarget never skips over a name he cannot see", async () => {
    const team = await folder('Reports')
    const doc = await upload(team, 'Report.docx', 'report')
    const hidden = await upload(team, 'Report (2).docx', 'hidden second')
    await share('folder', team, 1)
    await share('file', hidden, 3)
    const taken = await putRelative(doc, 'Report.docx', false)
    assert.equal(taken.status, 409, taken.text)
    assert.equal(taken.headers.get('x-wopi-validrelativetarget'), encodeUtf7('Report (2).docx'))
    const suggested = await h.wopi(doc, {
      token: await bobsToken(doc),
      override: 'PUT_RELATIVE',
      headers: { 'X-WOPI-SuggestedTarget': 'Report.docx' },
      body: 'bob bytes',
    })
    assert.equal(suggested.status, 200, suggested.text)
    assert.equal(suggested.json.Name, 'Report (2).docx')
    assert.equal(await contentOf(h, hidden), 'hidden second')
    assert.equal(await folderOf(suggested), bobMy)
  })
})
