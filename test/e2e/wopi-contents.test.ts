import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { FakeClock } from '../support/folio-server.js'
import {
  contentOf,
  countBlobFiles,
  eventually,
  lockHeaders,
  recordOf,
  startWopiHarness,
  versionsOf,
  type WopiHarness,
} from './wopi-support.js'

const MAX = 1024 * 1024

describe('WOPI CheckFileInfo, GetFile and PutFile', () => {
  const clock = new FakeClock()
  let h: WopiHarness

  before(async () => {
    h = await startWopiHarness({ FOLIO_MAX_FILE_SIZE: '1MiB' }, { clock })
  })
  after(() => h.server.dispose())

  async function lockedFile(title: string, content: string | Uint8Array, lockId = 'L') {
    const id = await h.createFile(title, content)
    assert.equal((await h.wopi(id, { override: 'LOCK', headers: lockHeaders(lockId) })).status, 200)
    return id
  }

  const put = (id: string, body: BodyInit, headers: Record<string, string> = {}) =>
    h.wopi(id, { contents: true, override: 'PUT', headers: { 'X-WOPI-Lock': 'L', ...headers }, body })

  test('CheckFileInfo answers strict JSON types and every required property', async () => {
    const id = await h.createFile('Strict.docx', 'twelve bytes')
    const reply = await h.wopi(id, { method: 'GET' })
    assert.equal(reply.status, 200)
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/)
    const info = reply.json
    const strings = ['BaseFileName', 'OwnerId', 'UserId', 'UserFriendlyName', 'Version', 'LastModifiedTime']
    for (const name of [...strings, 'SHA256', 'HostEditUrl', 'HostViewUrl', 'UserInfo']) {
      assert.equal(typeof info[name], 'string', name)
    }
    const flags = [
      'SupportsLocks',
      'SupportsGetLock',
      'SupportsExtendedLockLength',
      'SupportsUpdate',
      'SupportsRename',
      'SupportsDeleteFile',
      'UserCanWrite',
      'UserCanRename',
      'UserCanNotWriteRelative',
      'ReadOnly',
    ]
    for (const name of flags) assert.equal(typeof info[name], 'boolean', name)
    assert.ok(Number.isInteger(info.Size))
    assert.ok(Number.isInteger(info.FileNameMaxLength))
    for (const [name, value] of Object.entries(info)) assert.notEqual(value, null, name)
    assert.equal(info.BaseFileName, 'Strict.docx')
    assert.equal(info.Size, 12)
    assert.equal(info.SupportsDeleteFile, true)
    assert.equal(info.SupportsLocks, true)
    assert.equal(info.UserCanWrite, true)
    assert.equal(info.ReadOnly, false)
    assert.equal(info.UserCanNotWriteRelative, false)
    assert.equal(info.SHA256, createHash('sha256').update('twelve bytes').digest('base64'))
    assert.equal(new Date(info.LastModifiedTime).toISOString(), info.LastModifiedTime)
    assert.equal(info.HostEditUrl, `${h.server.ctx.config.publicUrl}/wopi-host/${id}?action=edit`)
    assert.equal(info.HostViewUrl, `${h.server.ctx.config.publicUrl}/wopi-host/${id}?action=view`)
    assert.equal(info.UserFriendlyName, 'admin')
  })

  test('Version and LastModifiedTime change on every PutFile, even with identical bytes', async () => {
    const id = await lockedFile('Same.docx', 'same bytes')
    const first = (await h.wopi(id, { method: 'GET' })).json
    clock.advance(1000)
    const saved = await put(id, 'same bytes')
    assert.equal(saved.status, 200)
    const second = (await h.wopi(id, { method: 'GET' })).json
    assert.notEqual(second.Version, first.Version)
    assert.notEqual(second.LastModifiedTime, first.LastModifiedTime)
    assert.equal(second.SHA256, first.SHA256)
    assert.equal(saved.headers.get('x-wopi-itemversion'), second.Version)
    assert.equal(saved.json.LastModifiedTime, second.LastModifiedTime)
  })

  test('GetFile returns the bytes with X-WOPI-ItemVersion equal to CheckFileInfo Version', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252])
    const id = await h.createFile('bin.docx', bytes)
    const token = await h.tokenFor(id)
    const response = await fetch(
      `${h.server.url}/wopi/files/${id}/contents?access_token=${encodeURIComponent(token)}`,
      { headers: { 'X-WOPI-MaxExpectedSize': '104857600' } },
    )
    assert.equal(response.status, 200)
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes)
    const info = (await h.wopi(id, { method: 'GET', token })).json
    assert.equal(response.headers.get('x-wopi-itemversion'), info.Version)
  })

  test('GetFile serves a byte Range and ignores a Range in any other unit', async () => {
    const id = await h.createFile('ranged.docx', '0123456789')
    const get = (range: string) => h.wopi(id, { method: 'GET', contents: true, headers: { Range: range } })
    const part = await get('bytes=2-5')
    assert.equal(part.status, 206)
    assert.equal(part.text, '2345')
    const other = await get('items=0-3')
    assert.equal(other.status, 200)
    assert.equal(other.headers.get('content-range'), null)
    assert.equal(other.text, '0123456789')
  })

  test('GetFile honours X-WOPI-MaxExpectedSize: larger file 412, equal size 200, malformed 400', async () => {
    const id = await h.createFile('ten.docx', '0123456789')
    const get = (max: string) =>
      h.wopi(id, { method: 'GET', contents: true, headers: { 'X-WOPI-MaxExpectedSize': max } })
    assert.equal((await get('9')).status, 412)
    assert.equal((await get('10')).status, 200)
    assert.equal((await get('ten')).status, 400)
  })

  test('PutFile stores application/json and form-urlencoded bodies byte for byte', async () => {
    const id = await lockedFile('bodies.txt', 'start')
    const json = '{"not": "parsed", "n": 1}'
    assert.equal((await put(id, json, { 'Content-Type': 'application/json' })).status, 200)
    assert.equal(await contentOf(h, id), json)
    const form = 'a=1&b=%20two&c=+&empty='
    assert.equal((await put(id, form, { 'Content-Type': 'application/x-www-form-urlencoded' })).status, 200)
    assert.equal(await contentOf(h, id), form)
    const binary = Buffer.from([0x7b, 0x00, 0xff, 0x3d, 0x26])
    assert.equal((await put(id, binary, { 'Content-Type': 'application/x-www-form-urlencoded' })).status, 200)
    const download = await fetch(`${h.server.url}/api/2.0/files/file/${id}/download`, {
      headers: { Authorization: h.portalToken },
    })
    assert.deepEqual(Buffer.from(await download.arrayBuffer()), binary)
    assert.equal((await put(id, 'no type')).status, 200)
    assert.equal(await contentOf(h, id), 'no type')
  })

  test('PutFile records X-WOPI-Editors and the X-LOOL/X-EDITOR save flags on the version', async () => {
    const id = await lockedFile('flags.docx', 'x')
    await put(id, 'exit', {
      'X-WOPI-Editors': 'user-1, user-2',
      'X-LOOL-WOPI-IsModifiedByUser': 'true',
      'X-LOOL-WOPI-IsExitSave': 'true',
    })
    await put(id, 'auto', { 'X-EDITOR-WOPI-IsAutosave': 'true' })
    const [auto, exit] = await versionsOf(h, id)
    assert.equal(exit.source, 'wopi')
    assert.deepEqual(exit.meta.editors, ['user-1', 'user-2'])
    assert.equal(exit.meta.isModifiedByUser, true)
    assert.equal(exit.meta.isExitSave, true)
    assert.equal(exit.meta.isAutosave, undefined)
    assert.equal(auto.meta.isAutosave, true)
    assert.deepEqual(auto.meta.editors, [])
  })

  test('PutFile over FOLIO_MAX_FILE_SIZE is 413 and leaves nothing behind', async () => {
    const id = await lockedFile('big.docx', 'small')
    const blobsBefore = await countBlobFiles(h.server)
    const reply = await put(id, Buffer.alloc(MAX + 1, 7))
    assert.equal(reply.status, 413)
    assert.equal(await countBlobFiles(h.server), blobsBefore)
    assert.equal((await versionsOf(h, id)).length, 1)
    assert.equal(await contentOf(h, id), 'small')
    assert.equal((await put(id, Buffer.alloc(MAX, 7))).status, 200, 'exactly the limit is fine')
  })

  test('a chunked PutFile that grows past the limit is refused and leaves nothing behind', async () => {
    const id = await lockedFile('chunked.docx', 'small')
    const blobsBefore = await countBlobFiles(h.server)
    const chunk = new Uint8Array(256 * 1024)
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= MAX + chunk.length) return controller.close()
        sent += chunk.length
        controller.enqueue(chunk)
      },
    })
    const token = await h.tokenFor(id)
    const status = await fetch(`${h.server.url}/wopi/files/${id}/contents?access_token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'L' },
      body,
      duplex: 'half',
    } as RequestInit).then(
      (response) => response.status,
      () => 0,
    )
    assert.ok(status === 413 || status === 0, `413 or a closed connection, got ${status}`)
    await eventually(async () => (await countBlobFiles(h.server)) === blobsBefore)
    assert.equal((await versionsOf(h, id)).length, 1)
    assert.equal(await contentOf(h, id), 'small')
  })

  test('a doomed PutFile (lock mismatch) is refused before its body is sent, and stores nothing', async () => {
    const id = await lockedFile('doomed.docx', 'keep me')
    const blobsBefore = await countBlobFiles(h.server)
    const token = await h.tokenFor(id)
    const url = new URL(`${h.server.url}/wopi/files/${id}/contents?access_token=${encodeURIComponent(token)}`)
    const req = httpRequest(url, {
      method: 'POST',
      headers: {
        'X-WOPI-Override': 'PUT',
        'X-WOPI-Lock': 'not-the-lock',
        'Content-Length': String(100 * 1024 * 1024),
      },
    })
    req.on('error', () => undefined)
    req.write(Buffer.alloc(64 * 1024))
    const [response] = (await once(req, 'response')) as [IncomingMessage]
    assert.equal(response.statusCode, 409, 'answered while 99.9% of the body is still unsent')
    assert.equal(response.headers['x-wopi-lock'], 'L')
    assert.equal(response.headers.connection, 'close')
    response.resume()
    req.destroy()
    assert.equal(await countBlobFiles(h.server), blobsBefore)
    assert.equal(await contentOf(h, id), 'keep me')
  })

  test('a client that aborts mid-body leaves the old content and version untouched', async () => {
    const id = await lockedFile('abort.docx', 'original')
    const blobsBefore = await countBlobFiles(h.server)
    const token = await h.tokenFor(id)
    const url = new URL(`${h.server.url}/wopi/files/${id}/contents?access_token=${encodeURIComponent(token)}`)
    const req = httpRequest(url, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'L', 'Content-Length': '200000' },
    })
    req.on('error', () => undefined)
    req.write(Buffer.alloc(100_000, 1))
    await new Promise((resolve) => setTimeout(resolve, 100))
    req.destroy()
    await eventually(async () => (await countBlobFiles(h.server)) === blobsBefore)
    assert.equal(await contentOf(h, id), 'original')
    const record = await recordOf(h, id)
    assert.equal(record.version, 1)
    assert.equal((await versionsOf(h, id)).length, 1)
    // The file is still fully usable afterwards.
    assert.equal((await put(id, 'after abort')).status, 200)
    assert.equal(await contentOf(h, id), 'after abort')
  })

  test('a refused PutFile (lock mismatch) leaves content, version and blobs as they were', async () => {
    const id = await lockedFile('mismatch.docx', 'first')
    const blobsBefore = await countBlobFiles(h.server)
    const reply = await h.wopi(id, {
      contents: true,
      override: 'PUT',
      headers: { 'X-WOPI-Lock': 'wrong' },
      body: Buffer.alloc(4096, 1),
    })
    assert.equal(reply.status, 409)
    assert.equal(await countBlobFiles(h.server), blobsBefore)
    assert.equal((await recordOf(h, id)).version, 1)
    assert.equal(await contentOf(h, id), 'first')
  })
})
