import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { bytes, startHarness, waitFor, type Harness } from '../support/onlyoffice-harness.js'

/**
 * A rename or a delete through WOPI tells open ONLYOFFICE editors exactly as the portal
 * does (meta with the new title, drop of the editors), since both doors go through the
 * same application use case.
 */
describe('open ONLYOFFICE editors and changes through WOPI', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  async function wopiToken(fileId: string): Promise<string> {
    const minted = await h.api('POST', `/files/file/${fileId}/wopi`)
    assert.equal(minted.status, 200)
    const token: unknown = minted.json.response.accessToken
    assert.equal(typeof token, 'string')
    return String(token)
  }

  async function wopiPost(fileId: string, token: string, headers: Record<string, string>) {
    return fetch(`${h.folio.url}/wopi/files/${fileId}?access_token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers,
    })
  }

  test('RenameFile sends meta with the new title; DeleteFile sends drop', async () => {
    const file = await h.upload('Wopi live.docx', 'wopi live v1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('wopi live v2'))
    await session.clickSave()
    const token = await wopiToken(file.id)

    const renamed = await wopiPost(file.id, token, {
      'X-WOPI-Override': 'RENAME_FILE',
      'X-WOPI-RequestedName': 'Wopi renamed',
    })
    assert.equal(renamed.status, 200)
    assert.deepEqual(await renamed.json(), { Name: 'Wopi renamed' })
    const meta = await waitFor(() => h.sim.commands.find((c) => c.c === 'meta' && c.key === session.key))
    assert.equal(meta.error, 0)
    assert.equal((await h.file(file.id)).title, 'Wopi renamed.docx')

    const deleted = await wopiPost(file.id, token, { 'X-WOPI-Override': 'DELETE' })
    assert.equal(deleted.status, 200)
    const drop = await waitFor(() => h.sim.commands.find((c) => c.c === 'drop' && c.key === session.key))
    assert.equal(drop.error, 0)
    assert.equal((await h.api('GET', `/files/file/${file.id}`)).status, 404)
    await h.sim.idle()
  })

  test('a WOPI rename of a file nobody edits sends no command', async () => {
    const file = await h.upload('Wopi quiet.docx', 'quiet')
    const token = await wopiToken(file.id)
    const before = h.sim.commands.length
    const renamed = await wopiPost(file.id, token, {
      'X-WOPI-Override': 'RENAME_FILE',
      'X-WOPI-RequestedName': 'Wopi quieter',
    })
    assert.equal(renamed.status, 200)
    // A marker: a WOPI rename of a file that is open, made after it; once its meta has
    // arrived, a command for the quiet file (decided before it) would have arrived too.
    const marker = await h.upload('Wopi marker.docx', 'marker')
    const session = await h.openEditor(marker.id)
    const markerRenamed = await wopiPost(marker.id, await wopiToken(marker.id), {
      'X-WOPI-Override': 'RENAME_FILE',
      'X-WOPI-RequestedName': 'Wopi marker renamed',
    })
    assert.equal(markerRenamed.status, 200)
    await waitFor(() => h.sim.commands.find((c) => c.c === 'meta' && c.key === session.key))
    assert.deepEqual(
      h.sim.commands.slice(before).map((c) => [c.c, c.key]),
      [['meta', session.key]],
    )
    await session.disconnect()
    await h.sim.idle()
  })
})
