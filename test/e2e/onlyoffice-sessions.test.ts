import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { jwtVerify } from 'jose'
import { JWT_SECRET, bytes, lastCallback, startHarness, type Harness } from '../support/onlyoffice-harness.js'

// Editing sessions without saves: opening, co-editing, closing unchanged, viewers.
describe('ONLYOFFICE sessions', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  test('open then close without changes: status 1 records the editor, status 4 clears it, key stays', async () => {
    const file = await h.upload('Plan.docx', 'plan v1')
    const config = await h.openConfig(file.id)
    const session = await h.sim.openEditor(config)

    // Docs downloaded document.url with its own {payload:{url}} Bearer JWT, and got the bytes.
    assert.equal(Buffer.from(session.downloaded).toString(), 'plan v1')
    // The editor's own download (a background thumbnail may fetch the same file through /converter).
    const download = h.sim.downloads.filter((d) => d.url === config.document?.url).at(-1)
    assert.equal(download?.httpStatus, 200)
    assert.match(download?.headers.Authorization ?? '', /^Bearer /)

    const joined = lastCallback(h.sim, 1)
    assert.equal(joined.ok, true)
    assert.equal(joined.httpStatus, 200)
    assert.equal(joined.reply, '{"error":0}')
    const editing = await h.file(file.id)
    assert.deepEqual(editing.editing, [{ id: h.admin.id, name: 'admin', displayName: 'admin' }])

    await session.disconnect()
    const closed = lastCallback(h.sim, 4)
    assert.equal(closed.ok, true)
    const after = await h.file(file.id)
    assert.deepEqual(after.editing, [])
    assert.equal(after.version, 1)
    assert.equal(await h.contents(file.id), 'plan v1')
    // Reusing the key after status 4 is fine: nothing was saved, so the document is unchanged.
    const again = await h.openConfig(file.id)
    assert.equal(again.document?.key, config.document?.key)
  })

  test('two editors join and leave: the editor list follows every status 1', async () => {
    const file = await h.upload('Shared.docx', 'shared v1')
    const bob = await h.createUser('bob')
    const alice = await h.sim.openEditor(await h.openConfig(file.id))
    const bobSession = await h.sim.openEditor(await h.configFor(file.id, bob))
    assert.equal(bobSession.key, alice.key)

    const both = await h.file(file.id)
    assert.deepEqual(both.editing.map((e) => e.id).sort(), [h.admin.id, bob.id].sort())
    assert.equal(both.editing.find((e) => e.id === bob.id)?.name, 'bob (display)')

    await alice.disconnect()
    assert.deepEqual(
      (await h.file(file.id)).editing.map((e) => e.id),
      [bob.id],
    )

    await bobSession.disconnect()
    assert.equal(lastCallback(h.sim, 4).ok, true)
    assert.deepEqual((await h.file(file.id)).editing, [])
    assert.equal((await h.file(file.id)).version, 1)
  })

  test('the editor config carries everything Docs requires, signed with the secret', async () => {
    const file = await h.upload('Budget.xlsx', 'cells')
    const config = await h.openConfig(file.id)
    assert.equal(config.documentType, 'cell')
    assert.equal(config.document?.fileType, 'xlsx')
    assert.equal(config.document?.title, 'Budget.xlsx')
    assert.match(config.document?.key ?? '', /^[0-9A-Za-z._=-]{1,128}$/)
    assert.equal(config.editorConfig?.mode, 'edit')
    assert.deepEqual(config.editorConfig?.user, { id: h.admin.id, name: 'admin' })
    assert.equal(config.editorConfig?.customization?.forcesave, true)
    assert.equal(config.document?.permissions?.edit, true)
    const { payload } = await jwtVerify(config.token ?? '', new TextEncoder().encode(JWT_SECRET))
    assert.deepEqual(payload.document, config.document)
    assert.deepEqual(payload.editorConfig, config.editorConfig)
    assert.equal(payload.url, undefined)
    assert.equal(payload.key, undefined)
    assert.equal(payload.payload, undefined)
  })

  test('a viewer gets mode view and no callbackUrl; opening it sends no callback', async () => {
    const file = await h.upload('Read me.docx', 'read only')
    const config = await h.openConfig(file.id, 'view')
    assert.equal(config.editorConfig?.mode, 'view')
    assert.equal(config.editorConfig?.callbackUrl, undefined)
    assert.equal(config.document?.permissions?.edit, false)
    const { payload } = await jwtVerify(config.token ?? '', new TextEncoder().encode(JWT_SECRET))
    assert.equal(JSON.stringify(payload.editorConfig).includes('callbackUrl'), false)

    const before = h.sim.callbacks.length
    const viewer = await h.sim.openEditor(config)
    assert.equal(viewer.mode, 'view')
    assert.equal(Buffer.from(viewer.downloaded).toString(), 'read only')
    assert.throws(() => viewer.edit(bytes('nope')))
    await viewer.disconnect()
    assert.equal(h.sim.callbacks.length, before)
    assert.deepEqual((await h.file(file.id)).editing, [])
  })

  test('formats Docs cannot save open in view mode; unknown formats are refused', async () => {
    const legacy = await h.upload('Old.doc', 'legacy')
    const config = await h.openConfig(legacy.id)
    assert.equal(config.editorConfig?.mode, 'view')
    assert.equal(config.editorConfig?.callbackUrl, undefined)

    const unknown = await h.upload('archive.zip', 'zip')
    const reply = await h.api('GET', `/files/file/${unknown.id}/openedit`)
    assert.equal(reply.status, 501)
    assert.equal(reply.json.error.type, 'NOT_SUPPORTED')
  })

  test('openedit is for the owner only', async () => {
    const file = await h.upload('Private.docx', 'mine')
    await h.createUser('carol')
    const { signIn } = await import('../support/portal-client.js')
    const carolToken = await signIn(h.folio.url, 'carol', 'carol-password-1')
    const { call } = await import('../support/portal-client.js')
    const reply = await call(h.folio.url, 'GET', `/api/2.0/files/file/${file.id}/openedit`, {
      token: carolToken,
    })
    assert.equal(reply.status, 404)
  })
})
