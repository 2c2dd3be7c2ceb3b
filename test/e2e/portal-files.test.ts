import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { unzipSync, strFromU8 } from 'fflate'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { countStoredBlobs } from '../support/stored-blobs.js'

async function uploadMultipart(url: string, token: string, name: string, bytes: Uint8Array) {
  const form = new FormData()
  form.append('file', new Blob([Buffer.from(bytes)]), name)
  const response = await fetch(`${url}/api/2.0/files/@my/upload`, {
    method: 'POST',
    headers: { Authorization: token },
    body: form,
  })
  return { status: response.status, json: await response.json() }
}

describe('files API', () => {
  let server: TestServer
  let token: string
  let otherToken: string

  before(async () => {
    // No converter: no thumbnail is made in the background while these tests count stored blobs.
    server = await startTestServer({ FOLIO_MAX_FILE_SIZE: '1MiB', FOLIO_CONVERTER: 'off' })
    token = await signIn(server.url)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(server.ctx, { userName: 'bob', password: 'bob-password-1' })
    otherToken = await signIn(server.url, 'bob', 'bob-password-1')
  })
  after(() => server.dispose())

  test('multipart upload stores the bytes and returns the file record', async () => {
    const bytes = new TextEncoder().encode('hello, multipart')
    const reply = await uploadMultipart(server.url, token, 'notes.txt', bytes)
    assert.equal(reply.status, 201)
    const file = reply.json.response
    assert.equal(file.title, 'notes.txt')
    assert.equal(file.fileExst, '.txt')
    assert.equal(file.pureContentLength, bytes.length)
    assert.equal(file.version, 1)
    assert.match(file.id, /^[A-Za-z0-9_-]{16,}$/)
    const download = await fetch(file.viewUrl, { headers: { Authorization: token } })
    assert.equal(download.status, 200)
    assert.equal(await download.text(), 'hello, multipart')
  })

  test('raw-body upload with ?title= works and keeps JSON bodies as bytes', async () => {
    const body = '{"this": "is a file, not a request"}'
    const reply = await call(server.url, 'POST', '/api/2.0/files/@my/upload?title=data.json', {
      token,
      raw: body,
      headers: { 'Content-Type': 'application/json' },
    })
    assert.equal(reply.status, 201)
    const dl = await call(server.url, 'GET', `/api/2.0/files/file/${reply.json.response.id}/download`, { token })
    assert.equal(dl.text, body)
  })

  test('a second upload with the same name gets a free name, never overwriting', async () => {
    const first = await uploadMultipart(server.url, token, 'same.txt', new Uint8Array([1]))
    const second = await uploadMultipart(server.url, token, 'same.txt', new Uint8Array([2]))
    assert.equal(first.json.response.title, 'same.txt')
    assert.equal(second.json.response.title, 'same (2).txt')
  })

  test('too large: 413 in the envelope and nothing kept (multipart and raw)', async () => {
    const before = await countStoredBlobs(server)
    const list = await call(server.url, 'GET', '/api/2.0/files/@my?count=1000', { token })
    const big = new Uint8Array(1024 * 1024 + 10)
    const multi = await uploadMultipart(server.url, token, 'big.bin', big)
    assert.equal(multi.status, 413)
    assert.equal(multi.json.status, 1)
    const raw = await call(server.url, 'POST', '/api/2.0/files/@my/upload?title=big.bin', {
      token,
      raw: big,
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(raw.status, 413)
    assert.equal(await countStoredBlobs(server), before, 'no partial blob or temp file left')
    const listAfter = await call(server.url, 'GET', '/api/2.0/files/@my?count=1000', { token })
    assert.equal(listAfter.json.response.total, list.json.response.total, 'no file record made')
  })

  test('finding 6: a malformed multipart upload is 400 and stores nothing', async () => {
    const before = await countStoredBlobs(server)
    const list = await call(server.url, 'GET', '/api/2.0/files/@my?count=1000', { token })
    const part = '--XX\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\n\r\nhalf a file'
    const cases: Array<[string, string]> = [
      ['multipart/form-data', part + '\r\n--XX--\r\n'], // Boundary not found
      ['multipart/form-data; boundary=XX', part], // Unexpected end of multipart data
      ['multipart/form-data; boundary=XX', '--XX\r\ngarbage without a blank line'],
    ]
    for (const [type, body] of cases) {
      const reply = await call(server.url, 'POST', '/api/2.0/files/@my/upload', {
        token,
        raw: body,
        headers: { 'Content-Type': type },
      })
      assert.equal(reply.status, 400, `${type}: ${reply.text}`)
      assert.equal(reply.json.status, 1)
      assert.equal(reply.json.error.type ?? 'INVALID_INPUT', 'INVALID_INPUT')
    }
    assert.equal(await countStoredBlobs(server), before, 'no blob or temporary file left')
    const listAfter = await call(server.url, 'GET', '/api/2.0/files/@my?count=1000', { token })
    assert.equal(listAfter.json.response.total, list.json.response.total, 'no file record made')
  })

  test('finding 6: two files in one upload are both stored and both answered', async () => {
    const form = new FormData()
    form.append('file', new Blob(['first file']), 'one.txt')
    form.append('file', new Blob(['second file']), 'two.txt')
    const response = await fetch(`${server.url}/api/2.0/files/@my/upload`, {
      method: 'POST',
      headers: { Authorization: token },
      body: form,
    })
    assert.equal(response.status, 201)
    const json = await response.json()
    assert.ok(Array.isArray(json.response), 'several files answer a list')
    assert.deepEqual(
      json.response.map((f: { title: string }) => f.title),
      ['one.txt', 'two.txt'],
    )
    for (const [file, text] of [
      [json.response[0], 'first file'],
      [json.response[1], 'second file'],
    ]) {
      const dl = await call(server.url, 'GET', `/api/2.0/files/file/${file.id}/download`, { token })
      assert.equal(dl.text, text)
    }
  })

  /** What the portal holds for the admin: the stored blobs and the files listed in @my. */
  async function holdings() {
    const list = await call(server.url, 'GET', '/api/2.0/files/@my?count=1000', { token })
    assert.equal(list.status, 200)
    return { blobs: await countStoredBlobs(server), total: list.json.response.total }
  }

  /** A multipart body written by hand, so one part can be cut short or another added. */
  function handMadeParts(files: Array<[string, string]>, tail: string) {
    const parts = files.map(
      ([name, text]) =>
        `--XX\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
        `Content-Type: text/plain\r\n\r\n${text}\r\n`,
    )
    return parts.join('') + tail
  }

  test('a good file part before a malformed one: 400 and neither is stored', async () => {
    const before = await holdings()
    const bodies = [
      // the second part's headers never end
      handMadeParts(
        [['good.txt', 'a whole file']],
        '--XX\r\nContent-Disposition: form-data; name="file"; filename="bad.txt"',
      ),
      // the second part is cut off before the closing boundary
      handMadeParts(
        [['good.txt', 'a whole file']],
        '--XX\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\n\r\nhalf a',
      ),
    ]
    for (const raw of bodies) {
      const reply = await call(server.url, 'POST', '/api/2.0/files/@my/upload', {
        token,
        raw,
        headers: { 'Content-Type': 'multipart/form-data; boundary=XX' },
      })
      assert.equal(reply.status, 400, reply.text)
      assert.equal(reply.json.status, 1)
      assert.equal(reply.json.error.type, 'INVALID_INPUT')
      assert.match(reply.json.error.message, /^malformed multipart body: /)
    }
    assert.deepEqual(await holdings(), before, 'the good part is not stored either')
  })

  test('a good file part before one over the size limit: 413 and neither is stored', async () => {
    const before = await holdings()
    const form = new FormData()
    form.append('file', new Blob(['a whole, small file']), 'small.txt')
    form.append('file', new Blob([new Uint8Array(1024 * 1024 + 10)]), 'big.bin')
    const response = await fetch(`${server.url}/api/2.0/files/@my/upload`, {
      method: 'POST',
      headers: { Authorization: token },
      body: form,
    })
    assert.equal(response.status, 413, await response.clone().text())
    assert.equal((await response.json()).status, 1)
    assert.deepEqual(await holdings(), before, 'the small file is not stored either')
  })

  test('21 files in one upload: 400 and none stored; 20 are all stored', async () => {
    const formOf = (count: number) => {
      const form = new FormData()
      for (let i = 1; i <= count; i++) form.append('file', new Blob([`file number ${i}`]), `many-${count}-${i}.txt`)
      return form
    }
    const before = await holdings()
    const tooMany = await fetch(`${server.url}/api/2.0/files/@my/upload`, {
      method: 'POST',
      headers: { Authorization: token },
      body: formOf(21),
    })
    const refused = await tooMany.json()
    assert.equal(tooMany.status, 400, JSON.stringify(refused))
    assert.match(refused.error.message, /at most 20 files/)
    assert.deepEqual(await holdings(), before, 'none of the 21 is stored')

    const twenty = await fetch(`${server.url}/api/2.0/files/@my/upload`, {
      method: 'POST',
      headers: { Authorization: token },
      body: formOf(20),
    })
    assert.equal(twenty.status, 201)
    const stored: Array<{ id: string; title: string }> = (await twenty.json()).response
    assert.deepEqual(
      stored.map((file) => file.title),
      Array.from({ length: 20 }, (_, i) => `many-20-${i + 1}.txt`),
    )
    for (const [i, file] of stored.entries()) {
      const dl = await call(server.url, 'GET', `/api/2.0/files/file/${file.id}/download`, { token })
      assert.equal(dl.text, `file number ${i + 1}`)
    }
    const after = await holdings()
    assert.equal(after.total, before.total + 20)
    assert.equal(after.blobs, before.blobs + 20)
  })

  test('upload with an illegal name stores the repaired name; one without a name is 400', async () => {
    const reply = await call(server.url, 'POST', '/api/2.0/files/@my/upload?title=..%2Fescape%3F.txt', {
      token,
      raw: 'x',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(reply.status, 201)
    assert.equal(reply.json.response.title, '.._escape_.txt')
    const noTitle = await call(server.url, 'POST', '/api/2.0/files/@my/upload', {
      token,
      raw: 'x',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(noTitle.status, 400)
  })

  for (const [ext, mainPart, root] of [
    ['docx', 'word/document.xml', 'w:document'],
    ['xlsx', 'xl/workbook.xml', 'workbook'],
    ['pptx', 'ppt/presentation.xml', 'p:presentation'],
  ] as const) {
    test(`create ${ext}: a valid, empty OOXML package`, async () => {
      const reply = await call(server.url, 'POST', '/api/2.0/files/@my/file', {
        token,
        body: { title: `New.${ext}` },
      })
      assert.equal(reply.status, 201)
      assert.equal(reply.json.response.title, `New.${ext}`)
      const dl = await fetch(reply.json.response.viewUrl, { headers: { Authorization: token } })
      const zip = unzipSync(new Uint8Array(await dl.arrayBuffer()))
      assert.ok(zip['[Content_Types].xml'], 'has [Content_Types].xml')
      assert.ok(zip['_rels/.rels'], 'has _rels/.rels')
      const main = zip[mainPart]
      assert.ok(main, `has ${mainPart}`)
      assert.match(strFromU8(main), new RegExp(`<${root}[\\s>]`))
    })
  }

  test('create another type: an empty file', async () => {
    const reply = await call(server.url, 'POST', '/api/2.0/files/@my/file', {
      token,
      body: { title: 'empty.txt' },
    })
    assert.equal(reply.status, 201)
    assert.equal(reply.json.response.pureContentLength, 0)
  })

  test('create with a bad body is 400; an illegal name is repaired', async () => {
    for (const body of [{}, { title: '' }, { title: '...' }, { title: 7 }]) {
      const reply = await call(server.url, 'POST', '/api/2.0/files/@my/file', { token, body })
      assert.equal(reply.status, 400, JSON.stringify(body))
    }
    const repaired = await call(server.url, 'POST', '/api/2.0/files/@my/file', {
      token,
      body: { title: '<img src=x onerror=alert(1)>.docx' },
    })
    assert.equal(repaired.status, 201)
    assert.equal(repaired.json.response.title, '_img src=x onerror=alert(1)_.docx')
  })

  test('file info has the documented fields', async () => {
    const created = await call(server.url, 'POST', '/api/2.0/files/@my/file', {
      token,
      body: { title: 'Info.docx' },
    })
    const reply = await call(server.url, 'GET', `/api/2.0/files/file/${created.json.response.id}`, { token })
    assert.equal(reply.status, 200)
    const f = reply.json.response
    for (const field of [
      'id',
      'title',
      'fileExst',
      'contentLength',
      'version',
      'created',
      'updated',
      'createdBy',
      'updatedBy',
      'viewUrl',
    ]) {
      assert.ok(field in f, field)
    }
    assert.equal(f.createdBy.displayName, 'admin')
    assert.ok(f.viewUrl.startsWith(server.ctx.config.publicUrl))
  })

  test('download: ETag, If-None-Match, Range, and a safe Content-Disposition', async () => {
    const name = 'Отчёт "final"; a\r\nb.txt'.replace(/\r\n/g, '')
    const bytes = new TextEncoder().encode('0123456789abcdef')
    const up = await uploadMultipart(server.url, token, name, bytes)
    assert.equal(up.status, 201)
    const url = up.json.response.viewUrl
    const whole = await fetch(url, { headers: { Authorization: token } })
    const etag = whole.headers.get('etag')
    assert.equal(etag, `"${createHash('sha256').update(bytes).digest('hex')}"`)
    const disposition = whole.headers.get('content-disposition') ?? ''
    assert.match(disposition, /^attachment; filename="[^"]*"; filename\*=UTF-8''/)
    assert.ok(!/[\r\n]/.test(disposition))
    const again = await fetch(url, { headers: { Authorization: token, 'If-None-Match': etag ?? '' } })
    assert.equal(again.status, 304)
    const part = await fetch(url, { headers: { Authorization: token, Range: 'bytes=2-5' } })
    assert.equal(part.status, 206)
    assert.equal(part.headers.get('content-range'), 'bytes 2-5/16')
    assert.equal(await part.text(), '2345')
    const tail = await fetch(url, { headers: { Authorization: token, Range: 'bytes=-3' } })
    assert.equal(await tail.text(), 'def')
    const bad = await fetch(url, { headers: { Authorization: token, Range: 'bytes=100-200' } })
    assert.equal(bad.status, 416)
    assert.equal(bad.headers.get('content-range'), 'bytes */16')
  })

  test('download: a Range in a unit other than bytes is ignored (200, the whole body)', async () => {
    const up = await uploadMultipart(server.url, token, 'units.txt', new TextEncoder().encode('0123456789abcdef'))
    for (const range of ['items=0-10', 'Items=2-5', 'items=100-200']) {
      const reply = await fetch(up.json.response.viewUrl, { headers: { Authorization: token, Range: range } })
      assert.equal(reply.status, 200, range)
      assert.equal(reply.headers.get('content-range'), null, range)
      assert.equal(await reply.text(), '0123456789abcdef', range)
    }
  })

  test('list: paging with startIndex and count, newest first, sortBy and filterValue', async () => {
    for (const name of ['alpha.txt', 'beta.txt', 'gamma.txt']) {
      await call(server.url, 'POST', '/api/2.0/files/@my/file', { token: otherToken, body: { title: name } })
      await new Promise((r) => setTimeout(r, 5))
    }
    const newest = await call(server.url, 'GET', '/api/2.0/files/@my?startIndex=0&count=2', { token: otherToken })
    assert.equal(newest.status, 200)
    assert.equal(newest.json.response.total, 3)
    assert.deepEqual(
      newest.json.response.files.map((f: { title: string }) => f.title),
      ['gamma.txt', 'beta.txt'],
    )
    const next = await call(server.url, 'GET', '/api/2.0/files/@my?startIndex=2&count=2', { token: otherToken })
    assert.deepEqual(
      next.json.response.files.map((f: { title: string }) => f.title),
      ['alpha.txt'],
    )
    const az = await call(server.url, 'GET', '/api/2.0/files/@my?sortBy=AZ&sortOrder=ascending', { token: otherToken })
    assert.deepEqual(
      az.json.response.files.map((f: { title: string }) => f.title),
      ['alpha.txt', 'beta.txt', 'gamma.txt'],
    )
    const filtered = await call(server.url, 'GET', '/api/2.0/files/@my?filterValue=ET', { token: otherToken })
    assert.deepEqual(
      filtered.json.response.files.map((f: { title: string }) => f.title),
      ['beta.txt'],
    )
    const bad = await call(server.url, 'GET', '/api/2.0/files/@my?count=-1', { token: otherToken })
    assert.equal(bad.status, 400)
  })

  test('rename, then delete', async () => {
    const created = await call(server.url, 'POST', '/api/2.0/files/@my/file', { token, body: { title: 'Old.docx' } })
    const id = created.json.response.id
    const renamed = await call(server.url, 'PUT', `/api/2.0/files/file/${id}`, {
      token,
      body: { title: 'New name.docx' },
    })
    assert.equal(renamed.status, 200)
    assert.equal(renamed.json.response.title, 'New name.docx')
    const illegal = await call(server.url, 'PUT', `/api/2.0/files/file/${id}`, { token, body: { title: 'CON.docx' } })
    assert.equal(illegal.status, 400)
    const info = await call(server.url, 'GET', `/api/2.0/files/file/${id}`, { token })
    assert.equal(info.json.response.title, 'New name.docx', 'a refused rename changes nothing')
    const removed = await call(server.url, 'DELETE', `/api/2.0/files/file/${id}`, { token })
    assert.equal(removed.status, 200)
    const trashed = await call(server.url, 'GET', `/api/2.0/files/file/${id}`, { token })
    assert.equal(trashed.status, 200, 'a deleted file goes to the trash first')
    assert.equal(trashed.json.response.rootFolderType, 3)
    const final = await call(server.url, 'DELETE', `/api/2.0/files/file/${id}`, { token })
    assert.equal(final.status, 200)
    const gone = await call(server.url, 'GET', `/api/2.0/files/file/${id}`, { token })
    assert.equal(gone.status, 404)
  })

  test('rename to a name the owner already has is 409', async () => {
    await call(server.url, 'POST', '/api/2.0/files/@my/file', { token, body: { title: 'Taken.docx' } })
    const other = await call(server.url, 'POST', '/api/2.0/files/@my/file', { token, body: { title: 'Free.docx' } })
    const reply = await call(server.url, 'PUT', `/api/2.0/files/file/${other.json.response.id}`, {
      token,
      body: { title: 'taken.DOCX' },
    })
    assert.equal(reply.status, 409)
  })

  test("another user's file answers 404, exactly like a missing one", async () => {
    const mine = await call(server.url, 'POST', '/api/2.0/files/@my/file', { token, body: { title: 'Private.docx' } })
    const id = mine.json.response.id
    const missing = await call(server.url, 'GET', '/api/2.0/files/file/AAAAAAAAAAAAAAAAAAAAAA', { token: otherToken })
    for (const [method, path, body] of [
      ['GET', `/api/2.0/files/file/${id}`, undefined],
      ['GET', `/api/2.0/files/file/${id}/download`, undefined],
      ['PUT', `/api/2.0/files/file/${id}`, { title: 'Stolen.docx' }],
      ['DELETE', `/api/2.0/files/file/${id}`, undefined],
    ] as const) {
      const reply = await call(server.url, method, path, { token: otherToken, body })
      assert.equal(reply.status, 404, `${method} ${path}`)
      assert.equal(reply.json.error.message, missing.json.error.message)
    }
    const list = await call(server.url, 'GET', '/api/2.0/files/@my?count=1000', { token: otherToken })
    assert.ok(!list.json.response.files.some((f: { id: string }) => f.id === id))
    const still = await call(server.url, 'GET', `/api/2.0/files/file/${id}`, { token })
    assert.equal(still.json.response.title, 'Private.docx')
  })

  test('files calls without a token are 401', async () => {
    const reply = await call(server.url, 'GET', '/api/2.0/files/@my')
    assert.equal(reply.status, 401)
  })
})
