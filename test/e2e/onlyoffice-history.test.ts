import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { jwtVerify } from 'jose'
import { call } from '../support/portal-client.js'
import { countStoredBlobs } from '../support/stored-blobs.js'
import { JWT_SECRET, bytes, startHarness, waitFor, type Harness } from '../support/onlyoffice-harness.js'

// The history pane (refreshHistory / setHistoryData), restore, and open editors told
// about renames and deletes.
describe('ONLYOFFICE history', () => {
  let h: Harness
  let fileId: string
  let firstKey: string

  before(async () => {
    h = await startHarness()
    const file = await h.upload('History.docx', 'h v1')
    fileId = file.id
    const config = await h.openConfig(fileId)
    firstKey = config.document?.key ?? ''
    const session = await h.sim.openEditor(config)
    session.edit(bytes('h v2 forced'))
    await session.clickSave()
    session.edit(bytes('h v3 final'))
    await session.disconnect()
  })
  after(() => h.close())

  test('the version list says where each version came from', async () => {
    const versions = await h.versions(fileId)
    assert.deepEqual(
      versions.map((v) => [v.version, v.source]),
      [
        [3, 'exit-save'],
        [2, 'force-save'],
        [1, 'upload'],
      ],
    )
    assert.ok(versions.every((v) => v.author.id === h.admin.id))
    for (const v of versions) {
      const reply = await call(v.downloadUrl, 'GET', '', { token: h.token })
      assert.equal(reply.text, ['h v1', 'h v2 forced', 'h v3 final'][v.version - 1])
    }
  })

  test('edit-history has what refreshHistory needs', async () => {
    const reply = await h.api('GET', `/files/file/${fileId}/edit-history`)
    assert.equal(reply.status, 200)
    const data = reply.json.response
    assert.equal(data.currentVersion, 3)
    assert.deepEqual(
      data.history.map((e: { version: number }) => e.version),
      [1, 2, 3],
    )
    const [v1, v2, v3] = data.history
    assert.equal(v1.key, firstKey)
    assert.deepEqual(v1.user, { id: h.admin.id, name: 'admin' })
    assert.match(v1.created, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
    assert.equal(v1.changes, undefined)
    for (const entry of [v2, v3]) {
      assert.ok(Array.isArray(entry.changes) && entry.changes.length > 0)
      assert.equal(entry.changes[0].user.id, h.admin.id)
      assert.equal(entry.serverVersion, '8.3.0')
    }
    assert.equal(new Set(data.history.map((e: { key: string }) => e.key)).size, 3)
    assert.ok(data.history.every((e: { key: string }) => /^[0-9A-Za-z._=-]{1,128}$/.test(e.key)))
  })

  test('edit-history/N/data has signed links to the version, its base and its changes', async () => {
    const reply = await h.api('GET', `/files/file/${fileId}/edit-history/3/data`)
    assert.equal(reply.status, 200)
    const data = reply.json.response
    assert.equal(data.version, 3)
    assert.equal(data.fileType, 'docx')
    assert.equal((await call(data.url, 'GET', '')).text, 'h v3 final')
    // changes.zip holds the whole session, so "previous" is the version it opened (1).
    assert.equal(data.previous.key, firstKey)
    assert.equal(data.previous.fileType, 'docx')
    assert.equal((await call(data.previous.url, 'GET', '')).text, 'h v1')
    const zip = await fetch(data.changesUrl)
    assert.equal(zip.status, 200)
    assert.equal(
      Buffer.from(await zip.arrayBuffer())
        .subarray(0, 2)
        .toString(),
      'PK',
    )

    const { payload } = await jwtVerify(data.token, new TextEncoder().encode(JWT_SECRET))
    assert.equal(payload.url, data.url)
    assert.equal(payload.changesUrl, data.changesUrl)
    assert.deepEqual(payload.previous, data.previous)

    const first = (await h.api('GET', `/files/file/${fileId}/edit-history/1/data`)).json.response
    assert.equal(first.changesUrl, undefined)
    assert.equal(first.previous, undefined)
    assert.equal((await call(first.url, 'GET', '')).text, 'h v1')
    assert.equal((await h.api('GET', `/files/file/${fileId}/edit-history/9/data`)).status, 404)
  })

  test('restore makes an old version the newest; history is never rewritten', async () => {
    const before = await h.openConfig(fileId)
    const reply = await h.api('POST', `/files/file/${fileId}/restore`, { version: 1 })
    assert.equal(reply.status, 200, reply.text)
    assert.equal(reply.json.response.version, 4)
    assert.equal(reply.json.response.source, 'restore')
    assert.equal(await h.contents(fileId), 'h v1')
    const versions = await h.versions(fileId)
    assert.deepEqual(
      versions.map((v) => v.source),
      ['restore', 'exit-save', 'force-save', 'upload'],
    )
    assert.equal(versions[0]?.meta.restoredFrom, 1)
    // New content, new key.
    assert.notEqual((await h.openConfig(fileId)).document?.key, before.document?.key)
    const history = (await h.api('GET', `/files/file/${fileId}/edit-history`)).json.response
    assert.equal(history.currentVersion, 4)

    assert.equal((await h.api('POST', `/files/file/${fileId}/restore`, { version: 4 })).status, 400)
    assert.equal((await h.api('POST', `/files/file/${fileId}/restore`, { version: 99 })).status, 404)
  })

  test('save copy as: the file Docs made becomes a new file with a free name', async () => {
    const file = await h.upload('Source.docx', 'source')
    const session = await h.openEditor(file.id)
    session.edit(bytes('copy bytes'))
    const sent = await session.clickSave()
    const url = String(sent?.body.url)
    const reply = await h.api('POST', `/files/file/${file.id}/saveas`, {
      url,
      title: 'Source',
      fileType: 'docx',
    })
    assert.equal(reply.status, 201, reply.text)
    assert.equal(reply.json.response.title, 'Source (2).docx')
    assert.equal(await h.contents(reply.json.response.id), 'copy bytes')
    const elsewhere = await h.api('POST', `/files/file/${file.id}/saveas`, {
      url: 'http://127.0.0.1:9/x.docx',
      title: 'x',
      fileType: 'docx',
    })
    assert.equal(elsewhere.status, 400)
    // On the Docs server but outside its file cache (here its health check): not fetched.
    const before = h.sim.requests.length
    for (const outside of [
      `${h.sim.url}/healthcheck`,
      `${h.sim.url}/cache/other`,
      `${h.sim.url}/cache/files/../../healthcheck`,
    ]) {
      const reply = await h.api('POST', `/files/file/${file.id}/saveas`, {
        url: outside,
        title: 'Probe',
        fileType: 'docx',
      })
      assert.equal(reply.status, 400, outside)
    }
    assert.deepEqual(h.sim.requests.slice(before), [])
    const listing = await h.api('GET', '/files/@my?count=500')
    assert.equal(JSON.stringify(listing.json).includes('Probe.docx'), false)
    await session.disconnect()
  })

  test('rename while open sends meta; delete while open sends drop and removes every blob', async () => {
    const file = await h.upload('Live.docx', 'live v1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('live v2'))
    await session.clickSave()

    const renamed = await h.api('PUT', `/files/file/${file.id}`, { title: 'Live renamed.docx' })
    assert.equal(renamed.status, 200)
    const meta = await waitFor(() => h.sim.commands.find((c) => c.c === 'meta' && c.key === session.key))
    assert.equal(meta.error, 0)

    const blobsBefore = await countStoredBlobs(h.folio)
    const deleted = await h.api('DELETE', `/files/file/${file.id}?immediately=true`)
    assert.equal(deleted.status, 200)
    const drop = await waitFor(() => h.sim.commands.find((c) => c.c === 'drop' && c.key === session.key))
    assert.equal(drop.error, 0)
    // Content of v1 and v2 plus the changes.zip of v2.
    assert.equal(blobsBefore - (await countStoredBlobs(h.folio)), 3)
    await h.sim.idle()
  })

  test('rename and delete of a file nobody edits send no command', async () => {
    const file = await h.upload('Quiet.docx', 'quiet')
    const before = h.sim.commands.length
    await h.api('PUT', `/files/file/${file.id}`, { title: 'Quieter.docx' })
    await h.api('DELETE', `/files/file/${file.id}`)
    // A marker: a rename of a file that is open, made after both; once its meta has
    // arrived, a command for the quiet file (decided before it) would have arrived too.
    const marker = await h.upload('Marker.docx', 'marker')
    const session = await h.openEditor(marker.id)
    assert.equal((await h.api('PUT', `/files/file/${marker.id}`, { title: 'Marker renamed.docx' })).status, 200)
    await waitFor(() => h.sim.commands.find((c) => c.c === 'meta' && c.key === session.key))
    assert.deepEqual(
      h.sim.commands.slice(before).map((c) => [c.c, c.key]),
      [['meta', session.key]],
    )
    await session.disconnect()
    await h.sim.idle()
  })
})
