import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { call } from '../support/portal-client.js'
import { startHarness, waitFor, type Harness } from '../support/onlyoffice-harness.js'

/**
 * Deleting a folder that holds files open in editors follows the single file's rule, once
 * for every file inside: the folder goes to the trash, a WOPI-locked file keeps its lock
 * (and answers 404 to WOPI until restored), and ONLYOFFICE editors are dropped.
 */
describe('deleting a folder with files open in editors', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  async function folderWith(title: string, fileIds: string[]): Promise<string> {
    const created = await h.api('POST', '/files/folder/@my', { title })
    assert.equal(created.status, 201, created.text)
    const folderId: string = created.json.response.id
    const moved = await h.api('PUT', '/files/fileops/move', { destFolderId: folderId, folderIds: [], fileIds })
    assert.equal(moved.status, 200, moved.text)
    return folderId
  }

  async function wopiToken(fileId: string): Promise<string> {
    const grant = await h.api('POST', `/files/file/${fileId}/wopi?mode=edit`)
    assert.equal(grant.status, 200, grant.text)
    return encodeURIComponent(grant.json.response.accessToken)
  }

  test('to the trash: the lock is kept and WOPI answers 404 until restored; editors are dropped', async () => {
    const edited = await h.upload('Edited.docx', 'edited')
    const locked = await h.upload('Locked.docx', 'locked')
    const folderId = await folderWith('Busy folder', [edited.id, locked.id])
    const session = await h.openEditor(edited.id)
    await waitFor(() => h.sim.callbacks.find((c) => c.status === 1 && c.body.key === session.key && c.ok))
    const token = await wopiToken(locked.id)
    const wopi = (override?: string) =>
      call(h.folio.url, override ? 'POST' : 'GET', `/wopi/files/${locked.id}?access_token=${token}`, {
        headers: override ? { 'X-WOPI-Override': override, 'X-WOPI-Lock': 'client-lock' } : {},
      })
    assert.equal((await wopi('LOCK')).status, 200)

    const deleted = await h.api('DELETE', `/files/folder/${folderId}`)
    assert.equal(deleted.status, 200, deleted.text)
    await waitFor(() => h.sim.commands.find((c) => c.c === 'drop' && c.key === session.key))
    assert.equal((await wopi()).status, 404)
    assert.equal((await wopi('REFRESH_LOCK')).status, 404)

    const restored = await h.api('PUT', '/files/fileops/restore', { folderIds: [folderId], fileIds: [] })
    assert.equal(restored.status, 200, restored.text)
    // The lock came back with the file: its holder may release it, no one else may take it.
    assert.equal((await wopi()).status, 200)
    const other = await call(h.folio.url, 'POST', `/wopi/files/${locked.id}?access_token=${token}`, {
      headers: { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'someone-else' },
    })
    assert.equal(other.status, 409)
    assert.equal(other.headers.get('x-wopi-lock'), 'client-lock')
    assert.equal((await wopi('UNLOCK')).status, 200)
  })

  test('for good: the folder and its locked file go, as a single locked file would', async () => {
    const locked = await h.upload('Gone.docx', 'gone')
    const folderId = await folderWith('Gone folder', [locked.id])
    const token = await wopiToken(locked.id)
    const lock = await call(h.folio.url, 'POST', `/wopi/files/${locked.id}?access_token=${token}`, {
      headers: { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'L' },
    })
    assert.equal(lock.status, 200)
    const deleted = await h.api('DELETE', `/files/folder/${folderId}`, { immediately: true })
    assert.equal(deleted.status, 200, deleted.text)
    assert.equal((await h.api('GET', `/files/file/${locked.id}`)).status, 404)
    assert.equal((await call(h.folio.url, 'GET', `/wopi/files/${locked.id}?access_token=${token}`)).status, 404)
  })
})
