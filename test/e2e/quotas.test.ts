import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { call, signIn, type ApiReply } from '../support/portal-client.js'
import { bytes, startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { countStoredBlobs } from '../support/stored-blobs.js'

/**
 * Storage quotas over real HTTP: the people API that sets and shows them, and every door a
 * file's contents come in through (portal uploads and updates, WOPI PutFile and
 * PutRelativeFile, an ONLYOFFICE save through the Docs simulator) refusing a write past the
 * owner's quota with nothing stored.
 */
describe('storage quotas', () => {
  let h: Harness
  let bobToken = ''
  let bobId = ''

  before(async () => {
    // No converter: background thumbnails would add blobs while the tests count them.
    h = await startHarness({ settings: { FOLIO_CONVERTER: 'off' } })
    const bob = await h.createUser('bob')
    bobId = bob.id
    bobToken = await signIn(h.folio.url, 'bob', 'bob-password-1')
  })
  after(() => h?.close())

  const asBob = (method: string, path: string, body?: unknown) =>
    call(h.folio.url, method, `/api/2.0${path}`, { token: bobToken, ...(body === undefined ? {} : { body }) })
  const setQuota = async (quota: number, userIds = [h.admin.id]) => {
    const reply = await h.api('PUT', '/people/userquota', { userIds, quota })
    assert.equal(reply.status, 200, reply.text)
    return reply
  }
  const self = async () => (await h.api('GET', '/people/@self')).json.response
  const rawUpload = (title: string, content: string | Buffer, folder = '@my') =>
    call(h.folio.url, 'POST', `/api/2.0/files/${folder}/upload?title=${encodeURIComponent(title)}`, {
      token: h.token,
      raw: typeof content === 'string' ? content : new Uint8Array(content),
      headers: { 'Content-Type': 'application/octet-stream' },
    })
  const multipartUpload = (title: string, content: string) => {
    const form = new FormData()
    form.append('file', new Blob([content]), title)
    return call(h.folio.url, 'POST', '/api/2.0/files/@my/upload', { token: h.token, raw: form })
  }
  const assertRefused = (reply: ApiReply, status = 413) => {
    assert.equal(reply.status, status, reply.text)
    assert.equal(reply.json.error.type, 'QUOTA_EXCEEDED')
    assert.match(reply.json.error.message, /storage quota exceeded: .* used/)
  }
  const fileCount = async () => (await h.api('GET', '/files/@my')).json.response.files.length

  test('people API: usedSpace and quotaLimit as DocSpace names them; only admins set quotas, bad bodies are 400', async () => {
    const mine = await self()
    assert.equal(mine.quotaLimit, -1)
    assert.equal(mine.usedSpace, 0)
    const bobSelf = (await asBob('GET', '/people/@self')).json.response
    assert.deepEqual([bobSelf.quotaLimit, bobSelf.usedSpace], [-1, 0])

    const refused = await asBob('PUT', '/people/userquota', { userIds: [bobId], quota: 10 ** 9 })
    assert.equal(refused.status, 403, refused.text)
    assert.equal((await asBob('GET', '/people/@self')).json.response.quotaLimit, -1)

    for (const [body, field] of [
      [{ userIds: [bobId], quota: 'lots' }, /quota/],
      [{ userIds: [bobId], quota: -2 }, /quota/],
      [{ userIds: [bobId], quota: 1.5 }, /quota/],
      [{ userIds: [], quota: 100 }, /userIds/],
      [{ quota: 100 }, /userIds/],
    ] as const) {
      const bad = await h.api('PUT', '/people/userquota', body)
      assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${bad.text}`)
      assert.equal(bad.json.error.type, 'INVALID_INPUT')
      assert.match(bad.json.error.message, field)
    }
    const unknown = await h.api('PUT', '/people/userquota', { userIds: [bobId, 'no-such-user'], quota: 100 })
    assert.equal(unknown.status, 404, unknown.text)
    assert.equal((await asBob('GET', '/people/@self')).json.response.quotaLimit, -1, 'no id changed')

    const set = await setQuota(5 * 1024 * 1024, [bobId])
    assert.deepEqual(
      set.json.response.map((p: { id: string; quotaLimit: number }) => [p.id, p.quotaLimit]),
      [[bobId, 5 * 1024 * 1024]],
    )
    const listed = (await h.api('GET', '/people')).json.response.find((p: { id: string }) => p.id === bobId)
    assert.deepEqual([listed.quotaLimit, listed.usedSpace], [5 * 1024 * 1024, 0])
    // Others see no one's storage in the people search.
    const found = (await asBob('GET', '/people')).json.response
    assert.ok(
      found.every((p: Record<string, unknown>) => !('usedSpace' in p)),
      JSON.stringify(found),
    )
    await setQuota(-1, [bobId])
    assert.equal((await asBob('GET', '/people/@self')).json.response.quotaLimit, -1)
  })

  test('uploads and updates past the quota are 413 QUOTA_EXCEEDED and store nothing; usedSpace counts versions and the trash', async () => {
    const first = await rawUpload('first.txt', '0123456789')
    assert.equal(first.status, 201, first.text)
    const fileId: string = first.json.response.id
    assert.equal((await self()).usedSpace, 10)
    await setQuota(25)
    const blobs = await countStoredBlobs(h.folio)
    const files = await fileCount()

    assertRefused(await rawUpload('big.txt', 'x'.repeat(16)))
    assertRefused(await multipartUpload('big.txt', 'x'.repeat(16)))
    // Several files in one request: each would fit alone, together they do not, so none is placed.
    const batch = new FormData()
    for (const name of ['a.txt', 'b.txt']) batch.append('file', new Blob(['x'.repeat(10)]), name)
    assertRefused(await call(h.folio.url, 'POST', '/api/2.0/files/@my/upload', { token: h.token, raw: batch }))
    // A declared size far past the quota is refused before the body is stored.
    assertRefused(await rawUpload('huge.bin', Buffer.alloc(4 * 1024 * 1024, 1)))
    const update = await call(h.folio.url, 'PUT', `/api/2.0/files/${fileId}/update`, {
      token: h.token,
      raw: 'y'.repeat(16),
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assertRefused(update)
    assert.equal(await countStoredBlobs(h.folio), blobs, 'no blob or temporary file left')
    assert.equal(await fileCount(), files)
    assert.equal(await h.contents(fileId), '0123456789')
    assert.equal((await self()).usedSpace, 10)

    // Up to the quota exactly is stored; a new version counts beside the old one.
    const fits = await call(h.folio.url, 'PUT', `/api/2.0/files/${fileId}/update`, {
      token: h.token,
      raw: 'z'.repeat(15),
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(fits.status, 200, fits.text)
    assert.deepEqual([(await self()).usedSpace, (await self()).quotaLimit], [25, 25])
    assertRefused(await rawUpload('one.txt', 'x'))

    // The trash still counts; deleting for good frees the space.
    assert.equal((await h.api('DELETE', `/files/file/${fileId}`)).status, 200)
    assert.equal((await self()).usedSpace, 25)
    assert.equal((await h.api('DELETE', `/files/file/${fileId}?immediately=true`)).status, 200)
    assert.equal((await self()).usedSpace, 0)
    assert.equal((await rawUpload('one.txt', 'x')).status, 201)
    await setQuota(-1)
  })

  test('WOPI PutFile and PutRelativeFile past the quota answer 413 and keep the old contents', async () => {
    const file = await h.upload('Sheet.docx', 'old wopi content')
    const used = (await self()).usedSpace
    await setQuota(used + 5)
    const token = (await h.api('POST', `/files/file/${file.id}/wopi?mode=edit`)).json.response.accessToken
    const wopi = (override: string | undefined, headers: Record<string, string>, body?: string) =>
      call(
        h.folio.url,
        'POST',
        `/wopi/files/${file.id}${override === undefined ? '/contents' : ''}?access_token=${encodeURIComponent(token)}`,
        {
          headers: { ...headers, 'X-WOPI-Override': override ?? 'PUT' },
          ...(body === undefined ? {} : { raw: body }),
        },
      )
    assert.equal((await wopi('LOCK', { 'X-WOPI-Lock': 'quota-lock' })).status, 200)
    const blobs = await countStoredBlobs(h.folio)

    const put = await wopi(undefined, { 'X-WOPI-Lock': 'quota-lock' }, 'new contents past the quota')
    assert.equal(put.status, 413, put.text)
    assert.match(put.text, /storage quota exceeded/)
    const relative = await wopi('PUT_RELATIVE', { 'X-WOPI-SuggestedTarget': 'Copy.docx' }, 'a copy past the quota')
    assert.equal(relative.status, 413, relative.text)
    assert.equal(await countStoredBlobs(h.folio), blobs)
    assert.equal(await h.contents(file.id), 'old wopi content')
    assert.equal((await self()).usedSpace, used)

    const small = await wopi(undefined, { 'X-WOPI-Lock': 'quota-lock' }, 'fits!')
    assert.equal(small.status, 200, small.text)
    assert.equal((await self()).usedSpace, used + 5)
    await setQuota(-1)
  })

  test('an ONLYOFFICE save past the quota gets the error reply, so Docs keeps the document; raised, the retry is stored', async () => {
    const file = await h.upload('Notes.docx', 'notes v1')
    const used = (await self()).usedSpace
    await setQuota(used + 4)
    const session = await h.openEditor(file.id)
    session.edit(bytes('notes v2, much longer than the quota allows'))
    let blobsAtRefusal = -1
    let blobsBefore = -1
    const refusedFirst = h.sim
      .waitForCallback((c) => c.status === 2 && c.body.key === session.key && c.attempt === 1)
      .then(async (first) => {
        blobsAtRefusal = await countStoredBlobs(h.folio)
        await setQuota(-1)
        return first
      })
    blobsBefore = await countStoredBlobs(h.folio)
    await session.disconnect()
    const first = await refusedFirst
    assert.equal(first.httpStatus, 507, first.reply)
    const reply = JSON.parse(first.reply)
    assert.equal(reply.error, 1)
    assert.match(reply.message, /storage quota exceeded/)
    assert.equal(blobsAtRefusal, blobsBefore, 'the refused save left no blob')
    assert.deepEqual(
      h.sim.callbacks.filter((c) => c.status === 2 && c.body.key === session.key).map((c) => c.httpStatus),
      [507, 200],
    )
    assert.equal(h.sim.forgotten.includes(session.key), false)
    assert.equal(await h.contents(file.id), 'notes v2, much longer than the quota allows')
  })

  test('an ONLYOFFICE force save (status 6) past the quota gets the error reply and stores nothing; editing goes on', async () => {
    const file = await h.upload('Forced.docx', 'forced v1')
    await setQuota((await self()).usedSpace + 3)
    const session = await h.openEditor(file.id)
    session.edit(bytes('forced v2, past the quota'))
    const blobs = await countStoredBlobs(h.folio)
    const sent = await session.clickSave()
    assert.equal(sent?.status, 6)
    assert.equal(sent?.httpStatus, 507, sent?.reply)
    assert.match(JSON.parse(sent?.reply ?? '{}').message, /storage quota exceeded/)
    let record = await h.file(file.id)
    assert.equal(record.version, 1)
    assert.match(record.lastSaveError?.message ?? '', /storage quota exceeded/)
    assert.equal(await countStoredBlobs(h.folio), blobs)
    assert.equal(await h.contents(file.id), 'forced v1')

    await setQuota(-1)
    assert.equal((await session.clickSave())?.httpStatus, 200)
    record = await h.file(file.id)
    assert.equal(record.version, 2)
    assert.equal(record.lastSaveError, null)
    await session.disconnect()
  })

  test('a save into a shared file counts against the owner, not the sharee', async () => {
    const file = await h.upload('Shared.txt', 'shared v1')
    const share = await h.api('PUT', `/files/file/${file.id}/share`, {
      share: [{ shareTo: bobId, access: 1 }],
    })
    assert.equal(share.status, 200, share.text)
    await setQuota((await self()).usedSpace + 2)
    const update = (content: string) =>
      call(h.folio.url, 'PUT', `/api/2.0/files/${file.id}/update`, {
        token: bobToken,
        raw: content,
        headers: { 'Content-Type': 'application/octet-stream' },
      })
    assertRefused(await update('shared v2 by bob'))
    assert.equal((await asBob('GET', '/people/@self')).json.response.usedSpace, 0)
    assert.equal((await update('ok')).status, 200)
    assert.equal((await asBob('GET', '/people/@self')).json.response.usedSpace, 0)
    await setQuota(-1)
  })
})
