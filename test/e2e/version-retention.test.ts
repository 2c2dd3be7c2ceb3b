import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { FakeClock } from '../support/folio-server.js'
import { call } from '../support/portal-client.js'
import {
  contentOf,
  countBlobFiles,
  lockHeaders,
  startWopiHarness,
  versionsOf,
  type WopiHarness,
} from './wopi-support.js'

const MINUTE = 60_000

interface VersionJson {
  version: number
  source: string
}

/** A WOPI client's editing session: takes the lock, then saves as its autosave would. */
async function session(h: WopiHarness, title: string) {
  const fileId = await h.createFile(title, 'uploaded')
  assert.equal((await h.wopi(fileId, { override: 'LOCK', headers: lockHeaders('L') })).status, 200)
  const token = await h.tokenFor(fileId)
  const save = async (body: string, headers: Record<string, string> = {}) => {
    const reply = await h.wopi(fileId, {
      token,
      contents: true,
      override: 'PUT',
      headers: { 'X-WOPI-Lock': 'L', ...headers },
      body,
    })
    assert.equal(reply.status, 200, reply.text)
  }
  const versions = async () => ((await versionsOf(h, fileId)) as VersionJson[]).map((v) => v.version)
  return { fileId, save, versions }
}

describe('version retention with WOPI autosaves', () => {
  const servers: WopiHarness[] = []
  after(async () => {
    for (const h of servers) await h.server.dispose()
  })

  test('saves by one user within FOLIO_VERSION_SQUASH_WINDOW become one version (the last wins), and the replaced bytes are freed', async () => {
    const clock = new FakeClock()
    const h = await startWopiHarness({ FOLIO_VERSION_SQUASH_WINDOW: '5m' }, { clock })
    servers.push(h)
    const s = await session(h, 'Autosaved.docx')
    const blobsBefore = await countBlobFiles(h.server)
    await s.save('autosave 1')
    assert.deepEqual(await s.versions(), [2, 1])
    clock.advance(MINUTE)
    await s.save('autosave 2')
    clock.advance(2 * MINUTE)
    await s.save('autosave 3')
    // One version for the run; the upload before it is no save and stays.
    assert.deepEqual(await s.versions(), [4, 1])
    assert.equal(await contentOf(h, s.fileId), 'autosave 3')
    assert.equal(await countBlobFiles(h.server), blobsBefore + 1, "the replaced autosaves' bytes are gone")
    const got = await h.wopi(s.fileId, { contents: true, method: 'GET' })
    assert.equal(got.text, 'autosave 3')

    // The window counts from the run's first save: past it, a new version starts.
    clock.advance(3 * MINUTE)
    await s.save('autosave 4')
    assert.deepEqual(await s.versions(), [5, 4, 1])

    // An exit save may replace the autosave before it (the last wins), but is never
    // squashed away itself.
    clock.advance(MINUTE)
    await s.save('closing', { 'X-LOOL-WOPI-IsExitSave': 'true' })
    assert.deepEqual(await s.versions(), [6, 4, 1])
    clock.advance(MINUTE)
    await s.save('reopened')
    assert.deepEqual(await s.versions(), [7, 6, 4, 1])
  })

  test('FOLIO_VERSION_SQUASH_WINDOW=0 keeps every save; a restore is never squashed', async () => {
    const h = await startWopiHarness({ FOLIO_VERSION_SQUASH_WINDOW: '0' })
    servers.push(h)
    const s = await session(h, 'Every.docx')
    await s.save('one')
    await s.save('two')
    assert.deepEqual(await s.versions(), [3, 2, 1])

    const squashing = await startWopiHarness({ FOLIO_VERSION_SQUASH_WINDOW: '5m' })
    servers.push(squashing)
    const r = await session(squashing, 'Restored.docx')
    await r.save('one')
    assert.equal((await squashing.wopi(r.fileId, { override: 'UNLOCK', headers: lockHeaders('L') })).status, 200)
    const restored = await call(squashing.server.url, 'POST', `/api/2.0/files/file/${r.fileId}/restore`, {
      token: squashing.portalToken,
      body: { version: 1 },
    })
    assert.equal(restored.status, 200)
    assert.equal((await squashing.wopi(r.fileId, { override: 'LOCK', headers: lockHeaders('L') })).status, 200)
    await r.save('after the restore')
    assert.deepEqual(await r.versions(), [4, 3, 2, 1])
  })

  test('FOLIO_VERSIONS_KEEP keeps at most N versions, frees the dropped bytes and keeps the last exit save', async () => {
    const h = await startWopiHarness({ FOLIO_VERSION_SQUASH_WINDOW: '0', FOLIO_VERSIONS_KEEP: '3' })
    servers.push(h)
    const s = await session(h, 'Kept.docx')
    const blobsBefore = await countBlobFiles(h.server)
    await s.save('two')
    await s.save('three', { 'X-LOOL-WOPI-IsExitSave': 'true' })
    assert.deepEqual(await s.versions(), [3, 2, 1])
    await s.save('four')
    assert.deepEqual(await s.versions(), [4, 3, 2])
    await s.save('five')
    await s.save('six')
    // Version 3 is the last exit save: it stays, the others make room.
    assert.deepEqual(await s.versions(), [6, 5, 3])
    assert.equal(await contentOf(h, s.fileId), 'six')
    assert.equal(await countBlobFiles(h.server), blobsBefore + 2, "three versions' bytes, no more")
    const old = await call(h.server.url, 'GET', `/api/2.0/files/file/${s.fileId}/version/3/download`, {
      token: h.portalToken,
    })
    assert.equal(old.text, 'three')
  })
})
