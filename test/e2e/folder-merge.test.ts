import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'

/**
 * Folder conflicts as Workspace resolves them: Overwrite merges a folder into the one of
 * the same name at the destination (files replaced, sub-folders merged in turn), for move
 * and copy; `GET files/fileops/move` lists the files that would be replaced.
 */
describe('merging folders on Overwrite, and the conflict check', () => {
  let server: TestServer
  let token: string

  before(async () => {
    server = await startTestServer()
    token = await signIn(server.url)
  })
  after(() => server.dispose())

  const api = (method: string, path: string, body?: unknown): Promise<ApiReply> =>
    call(server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })

  async function folder(parent: string, title: string): Promise<string> {
    const reply = await api('POST', `/files/folder/${parent}`, { title })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function file(folderId: string, title: string, text: string): Promise<string> {
    const reply = await call(
      server.url,
      'POST',
      `/api/2.0/files/${folderId}/upload?title=${encodeURIComponent(title)}`,
      {
        token,
        raw: text,
        headers: { 'Content-Type': 'application/octet-stream' },
      },
    )
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function tree(folderId: string): Promise<Record<string, unknown>> {
    const listing = (await api('GET', `/files/${folderId}?sortBy=AZ`)).json.response
    const out: Record<string, unknown> = {}
    for (const f of listing.files) {
      out[f.title] = (await call(server.url, 'GET', `/api/2.0/files/file/${f.id}/download`, { token })).text
    }
    for (const f of listing.folders) out[`${f.title}/`] = await tree(f.id)
    return out
  }

  /** Dest/Docs {a.txt, keep.txt, Inner/{c.txt}} and <under>/Docs {a.txt, b.txt, Inner/{c.txt, d.txt}}. */
  async function layout(label: string) {
    const dest = await folder('@my', `Dest ${label}`)
    const destDocs = await folder(dest, 'Docs')
    await file(destDocs, 'a.txt', 'old a')
    await file(destDocs, 'keep.txt', 'kept')
    const destInner = await folder(destDocs, 'Inner')
    const oldC = await file(destInner, 'c.txt', 'old c')
    const src = await folder('@my', `Src ${label}`)
    const srcDocs = await folder(src, 'docs')
    const newA = await file(srcDocs, 'a.txt', 'new a')
    await file(srcDocs, 'b.txt', 'b')
    const srcInner = await folder(srcDocs, 'Inner')
    await file(srcInner, 'c.txt', 'new c')
    await file(srcInner, 'd.txt', 'd')
    return { dest, destDocs, oldC, src, srcDocs, newA }
  }

  const merged = {
    'a.txt': 'new a',
    'b.txt': 'b',
    'keep.txt': 'kept',
    'Inner/': { 'c.txt': 'new c', 'd.txt': 'd' },
  }

  test('the conflict check lists the files Overwrite would replace, and changes nothing', async () => {
    const { dest, srcDocs, oldC } = await layout('check')
    const reply = await api('GET', `/files/fileops/move?destFolderId=${dest}&folderIds=${srcDocs}`)
    assert.equal(reply.status, 200, reply.text)
    const titles = reply.json.response.map((f: { title: string }) => f.title).sort()
    assert.deepEqual(titles, ['a.txt', 'c.txt'])
    assert.ok(reply.json.response.some((f: { id: string }) => f.id === oldC))
    assert.equal(
      (await api('GET', `/files/fileops/move?destFolderId=${dest}&folderIds=${srcDocs}`)).json.response.length,
      2,
    )
    assert.equal((await api('GET', '/files/fileops/move?folderIds=x')).status, 400)
    assert.equal((await api('GET', `/files/fileops/move?destFolderId=${dest}&fileIds=no-such-file`)).status, 404)
  })

  test('move with Overwrite merges into the folder of the same name; the moved folder is gone', async () => {
    const { dest, destDocs, src, srcDocs, newA } = await layout('move')
    const moved = await api('PUT', '/files/fileops/move', {
      destFolderId: dest,
      folderIds: [srcDocs],
      fileIds: [],
      conflictResolveType: 1,
    })
    assert.equal(moved.status, 200, moved.text)
    assert.deepEqual(await tree(dest), { 'Docs/': merged })
    assert.deepEqual(await tree(src), {})
    assert.equal((await api('GET', `/files/folder/${srcDocs}`)).status, 404)
    // The moved file kept its id: it is the one in the merged folder now.
    assert.equal((await api('GET', `/files/file/${newA}`)).json.response.folderId, destDocs)
  })

  test('copy with Overwrite merges a copy in and leaves the source as it was; Duplicate still makes a second folder', async () => {
    const { dest, src } = await layout('copy')
    const srcTree = await tree(src)
    const [srcDocs] = (await api('GET', `/files/${src}`)).json.response.folders.map((f: { id: string }) => f.id)
    const copied = await api('PUT', '/files/fileops/copy', {
      destFolderId: dest,
      folderIds: [srcDocs],
      fileIds: [],
      conflictResolveType: 1,
    })
    assert.equal(copied.status, 200, copied.text)
    assert.deepEqual(await tree(dest), { 'Docs/': merged })
    assert.deepEqual(await tree(src), srcTree)
    const duplicated = await api('PUT', '/files/fileops/copy', {
      destFolderId: dest,
      folderIds: [srcDocs],
      fileIds: [],
      conflictResolveType: 2,
    })
    assert.equal(duplicated.status, 200, duplicated.text)
    assert.deepEqual(Object.keys(await tree(dest)).sort(), ['Docs/', 'docs (2)/'])
  })
})
