import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { UserRecord } from '../../src/core/entities.js'
import { bytes, lastCallback, startHarness, waitFor, type Harness } from '../support/onlyoffice-harness.js'

/**
 * A share change reaches editors already open: whoever may no longer change the document
 * is dropped from Docs (`drop` with their user id), and a save of their session (status 6
 * or 2) is refused with 403, so Docs keeps the document as "forgotten" and no version is
 * added.
 */
describe('ONLYOFFICE editors after a share change', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  async function share(kind: 'file' | 'folder', id: string, user: UserRecord, access: number): Promise<void> {
    const reply = await h.api('PUT', `/files/${kind}/${id}/share`, {
      share: [{ shareTo: user.id, access }],
      notify: false,
    })
    assert.equal(reply.status, 200, reply.text)
  }

  test('a sharee lowered to Read is dropped, and his status 6 and 2 add no version', async () => {
    const file = await h.upload('Lowered.docx', 'alice v1')
    const bob = await h.createUser('bob-lowered')
    await share('file', file.id, bob, 1)
    const config = await h.configFor(file.id, bob)
    const callbackUrl = config.editorConfig?.callbackUrl ?? ''
    const session = await h.sim.openEditor(config)
    session.edit(bytes('bob v2'))
    const forced = await session.clickSave()
    assert.equal(forced?.ok, true)
    assert.equal((await h.file(file.id)).version, 2)
    session.edit(bytes('bob v3'))

    await share('file', file.id, bob, 2)
    const drop = await waitFor(() => h.sim.commands.find((c) => c.c === 'drop' && c.key === session.key))
    assert.deepEqual(drop.users, [bob.id])
    await h.sim.idle()
    // The drop closed Bob's editor: Docs sent his exit save, which is refused.
    const exit = lastCallback(h.sim, 2)
    assert.equal(exit.httpStatus, 403, exit.reply)
    assert.ok(h.sim.forgotten.includes(session.key))

    // A status 6 of his session after the change (a new save, the link still served): refused.
    const { token: _token, ...again } = forced?.body ?? {}
    const replay = await h.sim.sendCallback(callbackUrl, {
      ...again,
      lastsave: new Date(Date.now() + 60_000).toISOString(),
    })
    assert.equal(replay.httpStatus, 403, replay.reply)

    assert.equal((await h.file(file.id)).version, 2)
    assert.equal(await h.contents(file.id), 'bob v2')
    assert.match((await h.file(file.id)).lastSaveError?.message ?? '', /may no longer/)
  })

  test('a sharee removed from a folder above the file is dropped, and his exit save adds no version', async () => {
    const folder = await h.api('POST', '/files/folder/@my', { title: 'Team' })
    assert.ok(folder.status < 300, folder.text)
    const folderId = String(folder.json.response.id)
    const upload = await h.api('POST', `/files/${folderId}/file`, { title: 'Inside.docx' })
    assert.ok(upload.status < 300, upload.text)
    const fileId = String(upload.json.response.id)
    const carol = await h.createUser('carol-removed')
    await share('folder', folderId, carol, 1)
    const session = await h.sim.openEditor(await h.configFor(fileId, carol))
    session.edit(bytes('carol v2'))

    await share('folder', folderId, carol, 0)
    const drop = await waitFor(() => h.sim.commands.find((c) => c.c === 'drop' && c.key === session.key))
    assert.deepEqual(drop.users, [carol.id])
    await h.sim.idle()
    assert.equal(lastCallback(h.sim, 2).httpStatus, 403)
    assert.equal((await h.file(fileId)).version, 1)
  })

  test('a sharee whose access still allows editing keeps his editor and saves', async () => {
    const file = await h.upload('Kept.docx', 'alice v1')
    const dan = await h.createUser('dan-kept')
    await share('file', file.id, dan, 2)
    const config = await h.configFor(file.id, dan)
    await share('file', file.id, dan, 1)
    const session = await h.sim.openEditor(config)
    session.edit(bytes('dan v2'))
    // Raised to ReadWrite: no drop, and the exit save is stored.
    await session.disconnect()
    assert.equal(
      h.sim.commands.some((c) => c.c === 'drop' && c.key === session.key),
      false,
    )
    assert.equal(lastCallback(h.sim, 2).httpStatus, 200)
    assert.equal(await h.contents(file.id), 'dan v2')
  })
})
