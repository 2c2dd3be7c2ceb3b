import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { call } from '../support/portal-client.js'
import { bytes, lastCallback, startHarness, type Harness } from '../support/onlyoffice-harness.js'

// Failed saves: Docs' own errors (3, 7), downloads that fail, bodies that make no sense.
describe('ONLYOFFICE save errors', () => {
  let h: Harness

  before(async () => {
    h = await startHarness({ settings: { FOLIO_MAX_FILE_SIZE: '1KiB' } })
  })
  after(() => h.close())

  test('status 3: the error is recorded on the file, the content kept, {"error":0}', async () => {
    for (const kind of ['conversion', 'corrupted'] as const) {
      const file = await h.upload(`Broken ${kind}.docx`, 'good v1')
      const config = await h.openConfig(file.id)
      const session = await h.sim.openEditor(config)
      session.edit(bytes('never stored'))
      session.failNextSave(kind)
      await session.disconnect()
      const sent = lastCallback(h.sim, 3)
      assert.equal(sent.ok, true)
      // A corrupted result still comes with a url; Folio does not take it.
      assert.equal(sent.body.url !== undefined, kind === 'corrupted')

      const record = await h.file(file.id)
      assert.equal(record.version, 1)
      assert.equal(await h.contents(file.id), 'good v1')
      assert.equal(record.lastSaveError?.status, 3)
      assert.match(record.lastSaveError?.message ?? '', /could not save/)
      assert.deepEqual(record.editing, [])
      // No new key: reopening the key gets Docs' forgotten copy back for another try.
      assert.equal((await h.openConfig(file.id)).document?.key, config.document?.key)
    }
  })

  test('status 7: a failed force save is recorded; editing goes on; a later save clears it', async () => {
    const file = await h.upload('Force fail.docx', 'f1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('f2'))
    session.failNextSave('conversion')
    const sent = await session.clickSave()
    assert.equal(sent?.status, 7)
    assert.equal(sent?.ok, true)
    let record = await h.file(file.id)
    assert.equal(record.version, 1)
    assert.equal(record.lastSaveError?.status, 7)
    assert.deepEqual(
      record.editing.map((e) => e.id),
      [h.admin.id],
    )

    assert.equal((await session.clickSave())?.ok, true)
    record = await h.file(file.id)
    assert.equal(record.version, 2)
    assert.equal(record.lastSaveError, null)
    await session.disconnect()
  })

  test("a download that fails: HTTP 500, old content intact; Docs' retry then succeeds", async () => {
    const file = await h.upload('Flaky.docx', 'flaky v1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('flaky v2'))
    session.setServeMode('http500')
    // Serve again as soon as the first attempt has been refused.
    const recovered = h.sim
      .waitForCallback((c) => c.status === 2 && c.body.key === session.key && c.attempt === 1)
      .then((first) => {
        session.setServeMode('ok')
        return first
      })
    await session.disconnect()
    const first = await recovered
    assert.equal(first.httpStatus, 500)
    assert.deepEqual(JSON.parse(first.reply).error, 1)
    const attempts = h.sim.callbacks.filter((c) => c.status === 2 && c.body.key === session.key)
    assert.deepEqual(
      attempts.map((c) => c.httpStatus),
      [500, 200],
    )
    assert.equal(h.sim.forgotten.includes(session.key), false)
    const record = await h.file(file.id)
    assert.equal(record.version, 2)
    assert.equal(record.lastSaveError, null)
    assert.equal(await h.contents(file.id), 'flaky v2')
  })

  test('downloads that keep failing: four 500s, then Docs keeps the file as forgotten', async () => {
    const file = await h.upload('Down.docx', 'down v1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('down v2'))
    session.setServeMode('http500')
    await session.disconnect()
    const attempts = h.sim.callbacks.filter((c) => c.status === 2 && c.body.key === session.key)
    assert.deepEqual(
      attempts.map((c) => c.httpStatus),
      [500, 500, 500, 500],
    )
    assert.ok(h.sim.forgotten.includes(session.key))
    const record = await h.file(file.id)
    assert.equal(record.version, 1)
    assert.equal(await h.contents(file.id), 'down v1')
    assert.match(record.lastSaveError?.message ?? '', /could not store/)
  })

  test('a redirect is not followed: nothing fetched from elsewhere, old content intact', async () => {
    const file = await h.upload('Bounce.docx', 'bounce v1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('bounce v2'))
    session.setServeMode('redirect-elsewhere')
    await session.disconnect()
    assert.equal(lastCallback(h.sim, 2).httpStatus, 500)
    assert.deepEqual(h.sim.elsewhereHits, [])
    assert.equal((await h.file(file.id)).version, 1)
    assert.equal(await h.contents(file.id), 'bounce v1')
  })

  test('a saved file over FOLIO_MAX_FILE_SIZE: 413, not retried, old content intact', async () => {
    const file = await h.upload('Huge.docx', 'small')
    const session = await h.openEditor(file.id)
    session.edit(new Uint8Array(4096).fill(65))
    await session.disconnect()
    const attempts = h.sim.callbacks.filter((c) => c.status === 2 && c.body.key === session.key)
    assert.deepEqual(
      attempts.map((c) => c.httpStatus),
      [413],
    )
    const record = await h.file(file.id)
    assert.equal(record.version, 1)
    assert.equal(await h.contents(file.id), 'small')
    assert.match(record.lastSaveError?.message ?? '', /larger/)
  })

  test('malformed bodies: 400 and nothing changes; unknown status and fields: {"error":0}', async () => {
    const file = await h.upload('Odd.docx', 'odd v1')
    const session = await h.openEditor(file.id)
    const callbackUrl = await h.callbackUrl(file.id)
    const before = await h.file(file.id)

    const notJson = await call(callbackUrl, 'POST', '', {
      raw: '{"key": "x", "status": ',
      headers: { 'Content-Type': 'application/json' },
    })
    assert.equal(notJson.status, 400)
    assert.equal(notJson.json.error, 1)
    const notObject = await call(callbackUrl, 'POST', '', { body: '[1,2]' })
    assert.equal(notObject.status, 400)
    const noStatus = await h.sim.sendCallback(callbackUrl, { key: session.key })
    assert.equal(noStatus.httpStatus, 400)
    const noUrl = await h.sim.sendCallback(callbackUrl, { key: session.key, status: 2, users: [h.admin.id] })
    assert.equal(noUrl.httpStatus, 400)

    const unknown = await h.sim.sendCallback(callbackUrl, { key: session.key, status: 5, novel: { a: 1 } })
    assert.equal(unknown.httpStatus, 200)
    assert.equal(unknown.reply, '{"error":0}')
    const extra = await h.sim.sendCallback(callbackUrl, {
      key: session.key,
      status: 1,
      users: [h.admin.id],
      actions: [{ type: 1, userid: h.admin.id, extra: true }],
      somethingNew: 'ignored',
      users_v2: 42,
    })
    assert.equal(extra.reply, '{"error":0}')

    const after = await h.file(file.id)
    assert.equal(after.version, before.version)
    assert.deepEqual(after.editing, before.editing)
    assert.equal(after.lastSaveError, null)
    await session.disconnect()
  })

  test('a callback for a deleted file is acknowledged and changes nothing', async () => {
    const file = await h.upload('Gone.docx', 'gone')
    const session = await h.openEditor(file.id)
    const callbackUrl = await h.callbackUrl(file.id)
    const deleted = await h.api('DELETE', `/files/file/${file.id}`)
    assert.equal(deleted.status, 200)
    const late = await h.sim.sendCallback(callbackUrl, { key: session.key, status: 4 })
    assert.equal(late.reply, '{"error":0}')
  })
})
