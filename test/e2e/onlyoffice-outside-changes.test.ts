import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { call } from '../support/portal-client.js'
import { bytes, startHarness, waitFor, type Harness, type VersionJson } from '../support/onlyoffice-harness.js'
import type { EditorSession } from '../support/docs-server-simulator.js'

// A file changes from outside while an ONLYOFFICE session is open on it: the editors are
// dropped (so they reload), and the stale session's save is kept as a new version that
// the history marks as made from an older base, beside the outside change.
describe('ONLYOFFICE: data is never silently superseded', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(async () => {
    await h.close()
  })

  /** Opens an editor and waits until Folio has recorded it as editing. */
  async function openAndJoin(fileId: string): Promise<EditorSession> {
    const session = await h.openEditor(fileId)
    await waitFor(() => h.sim.callbacks.find((c) => c.status === 1 && c.body.key === session.key && c.ok))
    return session
  }

  async function wopiPut(fileId: string, text: string): Promise<number> {
    const grant = await h.api('POST', `/files/file/${fileId}/wopi?mode=edit`)
    const token = encodeURIComponent(grant.json.response.accessToken)
    const wopi = (path: string, headers: Record<string, string>, raw?: string) =>
      call(h.folio.url, 'POST', `/wopi/files/${fileId}${path}?access_token=${token}`, {
        headers,
        ...(raw === undefined ? {} : { raw }),
      })
    const lock = { 'X-WOPI-Lock': 'other-client' }
    assert.equal((await wopi('', { 'X-WOPI-Override': 'LOCK', ...lock })).status, 200)
    const put = await wopi('/contents', { 'X-WOPI-Override': 'PUT', ...lock }, text)
    assert.equal((await wopi('', { 'X-WOPI-Override': 'UNLOCK', ...lock })).status, 200)
    return put.status
  }

  async function versionText(fileId: string, version: number): Promise<string> {
    const reply = await h.api('GET', `/files/file/${fileId}/version/${version}/download`)
    assert.equal(reply.status, 200)
    return reply.text
  }

  test('a WOPI PutFile from another client drops the editors; the stale save becomes a marked version', async () => {
    const file = await h.upload('Shared.docx', 'first')
    const session = await openAndJoin(file.id)
    session.edit(bytes('typed in the editor'))

    assert.equal(await wopiPut(file.id, 'written by a WOPI client'), 200)
    await waitFor(() => h.sim.commands.find((c) => c.c === 'drop' && c.key === session.key))
    assert.ok(session.warnings.includes('drop'))

    const saved = await waitFor(async () => {
      const versions: VersionJson[] = await h.versions(file.id)
      return versions.length === 3 ? versions : undefined
    })
    const [stale, outside] = saved
    assert.equal(stale?.source, 'exit-save')
    assert.equal(stale?.meta.conflict, true)
    assert.equal(stale?.meta.baseVersion, 1)
    assert.deepEqual(stale?.meta.conflictsWith, [2])
    assert.equal(await versionText(file.id, 3), 'typed in the editor')
    assert.equal(outside?.version, 2)
    assert.equal(outside?.meta.conflict, undefined)
    assert.equal(await versionText(file.id, 2), 'written by a WOPI client')
  })

  test('a restore drops the editors; the stale save is kept, marked, after the restored version', async () => {
    const file = await h.upload('Restored.docx', 'one')
    const first = await openAndJoin(file.id)
    first.edit(bytes('two'))
    await first.disconnect({ explicitClose: true })
    await waitFor(async () => ((await h.versions(file.id)).length === 2 ? true : undefined))

    const session = await openAndJoin(file.id)
    session.edit(bytes('three, from version two'))
    const restore = await h.api('POST', `/files/file/${file.id}/restore`, { version: 1 })
    assert.equal(restore.status, 200, restore.text)
    await waitFor(() => h.sim.commands.find((c) => c.c === 'drop' && c.key === session.key))

    const versions: VersionJson[] = await waitFor(async () => {
      const list: VersionJson[] = await h.versions(file.id)
      return list.length === 4 ? list : undefined
    })
    assert.deepEqual(
      versions.map((v) => v.source),
      ['exit-save', 'restore', 'exit-save', 'upload'],
    )
    assert.equal(versions[0]?.meta.conflict, true)
    assert.equal(versions[0]?.meta.baseVersion, 2)
    assert.deepEqual(versions[0]?.meta.conflictsWith, [3])
    assert.equal(await versionText(file.id, 3), 'one')
    assert.equal(await versionText(file.id, 4), 'three, from version two')
    // A save of a session nobody interfered with carries no mark.
    assert.equal(versions[2]?.meta.conflict, undefined)
  })

  test('an editor save with nothing in between is not marked, and nobody is dropped', async () => {
    const file = await h.upload('Quiet.docx', 'quiet')
    const session = await openAndJoin(file.id)
    session.edit(bytes('quiet, edited'))
    await session.disconnect({ explicitClose: true })
    const versions: VersionJson[] = await waitFor(async () => {
      const list: VersionJson[] = await h.versions(file.id)
      return list.length === 2 ? list : undefined
    })
    assert.equal(versions[0]?.meta.conflict, undefined)
    // A marker: a WOPI PutFile under another open editor, made after the save; once its
    // drop has arrived, a drop decided by the save (before it) would have arrived too.
    const marker = await h.upload('Quiet marker.docx', 'marker')
    const markerSession = await openAndJoin(marker.id)
    assert.equal(await wopiPut(marker.id, 'written by a WOPI client'), 200)
    await waitFor(() => h.sim.commands.find((c) => c.c === 'drop' && c.key === markerSession.key))
    assert.equal(
      h.sim.commands.some((c) => c.c === 'drop' && c.key === session.key),
      false,
    )
    await markerSession.disconnect({ explicitClose: true })
    await h.sim.idle()
  })
})
