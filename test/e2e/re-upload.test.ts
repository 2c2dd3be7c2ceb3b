import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'

/** A multipart upload with the file part named `part` and extra fields after it. */
async function upload(
  url: string,
  token: string,
  name: string,
  text: string,
  options: { part?: string; fields?: Record<string, string>; query?: string } = {},
) {
  const form = new FormData()
  form.append(options.part ?? 'file', new Blob([text]), name)
  for (const [key, value] of Object.entries(options.fields ?? {})) form.append(key, value)
  const response = await fetch(`${url}/api/2.0/files/@my/upload${options.query ?? ''}`, {
    method: 'POST',
    headers: { Authorization: token },
    body: form,
  })
  return { status: response.status, json: await response.json() }
}

async function titles(url: string, token: string): Promise<string[]> {
  const reply = await call(url, 'GET', '/api/2.0/files/@my', { token })
  return reply.json.response.files.map((f: { title: string }) => f.title).sort()
}

describe('a re-upload is a new version', () => {
  let server: TestServer
  let token: string

  before(async () => {
    server = await startTestServer()
    token = await signIn(server.url)
  })
  after(() => server.dispose())

  test('createNewIfExist=false (a form field after the file) stores a new version of the same file', async () => {
    const first = await upload(server.url, token, 'plan.txt', 'one')
    assert.equal(first.status, 201)
    const again = await upload(server.url, token, 'plan.txt', 'two', { fields: { createNewIfExist: 'false' } })
    assert.equal(again.status, 201)
    assert.equal(again.json.response.id, first.json.response.id)
    assert.equal(again.json.response.version, 2)
    const download = await call(server.url, 'GET', `/api/2.0/files/file/${first.json.response.id}/download`, { token })
    assert.equal(download.text, 'two')
    assert.deepEqual(
      (await titles(server.url, token)).filter((t) => t.startsWith('plan')),
      ['plan.txt'],
    )
  })

  test('createNewIfExist=true (query) keeps both: "name (2).ext"', async () => {
    await upload(server.url, token, 'memo.txt', 'one')
    const again = await upload(server.url, token, 'memo.txt', 'two', { query: '?createNewIfExist=true' })
    assert.equal(again.status, 201)
    assert.equal(again.json.response.title, 'memo (2).txt')
    assert.equal(again.json.response.version, 1)
  })

  test('the user default: PUT files/updateifexist {set} and GET files/settings', async () => {
    const before = await call(server.url, 'GET', '/api/2.0/files/settings', { token })
    assert.equal(before.status, 200)
    assert.equal(before.json.response.updateIfExist, false)
    await upload(server.url, token, 'notes.txt', 'one')
    const kept = await upload(server.url, token, 'notes.txt', 'two')
    assert.equal(kept.json.response.title, 'notes (2).txt')

    const set = await call(server.url, 'PUT', '/api/2.0/files/updateifexist', { token, body: { set: true } })
    assert.equal(set.status, 200)
    assert.equal(set.json.response, true)
    const settings = await call(server.url, 'GET', '/api/2.0/files/settings.json', { token })
    assert.equal(settings.json.response.updateIfExist, true)
    const updated = await upload(server.url, token, 'notes.txt', 'three')
    assert.equal(updated.json.response.title, 'notes.txt')
    assert.equal(updated.json.response.version, 2)
    // The other user's default is their own.
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(server.ctx, { userName: 'carol', password: 'carol-password-1' })
    const carol = await signIn(server.url, 'carol', 'carol-password-1')
    const theirs = await call(server.url, 'GET', '/api/2.0/files/settings', { token: carol })
    assert.equal(theirs.json.response.updateIfExist, false)
    const bad = await call(server.url, 'PUT', '/api/2.0/files/updateifexist', { token, body: { set: 'maybe' } })
    assert.equal(bad.status, 400)
    await call(server.url, 'PUT', '/api/2.0/files/updateifexist', { token, body: { set: false } })
  })

  test('PUT files/{fileId}/update (multipart, any part name) stores a new version', async () => {
    const first = await upload(server.url, token, 'budget.txt', 'v1')
    const id = first.json.response.id
    const form = new FormData()
    form.append('budget.txt', new Blob(['v2']), 'budget.txt')
    const response = await fetch(`${server.url}/api/2.0/files/${id}/update`, {
      method: 'PUT',
      headers: { Authorization: token },
      body: form,
    })
    assert.equal(response.status, 200)
    const json = await response.json()
    assert.equal(json.response.id, id)
    assert.equal(json.response.version, 2)
    const download = await call(server.url, 'GET', `/api/2.0/files/file/${id}/download`, { token })
    assert.equal(download.text, 'v2')
  })

  test('a user who may only read the same-named file gets a new file, never a version of it', async () => {
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(server.ctx, { userName: 'dave', password: 'dave-password-1' })
    const dave = await signIn(server.url, 'dave', 'dave-password-1')
    const davesId = (await call(server.url, 'GET', '/api/2.0/people/@self', { token: dave })).json.response.id
    // A folder shared for editing, holding a file shared with dave read-only.
    const folder = await call(server.url, 'POST', '/api/2.0/files/folder/@my', { token, body: { title: 'Team' } })
    const folderId = folder.json.response.id
    const form = new FormData()
    form.append('file', new Blob(['owner']), 'shared.txt')
    const put = await fetch(`${server.url}/api/2.0/files/${folderId}/upload`, {
      method: 'POST',
      headers: { Authorization: token },
      body: form,
    })
    const fileId = (await put.json()).response.id
    await call(server.url, 'PUT', `/api/2.0/files/folder/${folderId}/share`, {
      token,
      body: { share: [{ shareTo: davesId, access: 1 }] },
    })
    await call(server.url, 'PUT', `/api/2.0/files/file/${fileId}/share`, {
      token,
      body: { share: [{ shareTo: davesId, access: 2 }] },
    })
    const daveForm = new FormData()
    daveForm.append('file', new Blob(['dave']), 'shared.txt')
    daveForm.append('createNewIfExist', 'false')
    const reply = await fetch(`${server.url}/api/2.0/files/${folderId}/upload`, {
      method: 'POST',
      headers: { Authorization: dave },
      body: daveForm,
    })
    assert.equal(reply.status, 201)
    const stored = (await reply.json()).response
    assert.notEqual(stored.id, fileId)
    assert.equal(stored.title, 'shared (2).txt')
    const original = await call(server.url, 'GET', `/api/2.0/files/file/${fileId}/download`, { token })
    assert.equal(original.text, 'owner')
  })

  test('an empty JSON body counts as {} (PUT files/fileops/emptytrash)', async () => {
    const reply = await call(server.url, 'PUT', '/api/2.0/files/fileops/emptytrash', {
      token,
      headers: { 'Content-Type': 'application/json' },
    })
    assert.equal(reply.status, 200)
    const malformed = await call(server.url, 'PUT', '/api/2.0/files/fileops/delete', { token, body: '{"fileIds":' })
    assert.equal(malformed.status, 400)
  })
})
