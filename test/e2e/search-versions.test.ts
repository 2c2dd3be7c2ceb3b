import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { bytes, lastCallback, startHarness, type Harness } from '../support/onlyoffice-harness.js'

/** Polls `check` until it holds: indexing runs in the background. */
async function until(what: string, check: () => Promise<boolean>, tries = 300): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}

/**
 * Every door that makes a new version has it indexed: an ONLYOFFICE editor save, a
 * restore of an older version and a copy, each replacing (or adding) the words found; and a
 * rename has the title's words indexed again.
 */
describe('search sees every new version', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  const found = async (text: string): Promise<string[]> => {
    const reply = await h.api('GET', `/files/@search/${encodeURIComponent(text)}`)
    assert.equal(reply.status, 200, reply.text)
    return reply.json.response.map((item: { id: string }) => item.id).sort()
  }
  const holds = (text: string, ids: string[]) => async () =>
    JSON.stringify(await found(text)) === JSON.stringify([...ids].sort())

  test('an editor save, a restore and a copy', async () => {
    const file = await h.upload('Notes.txt', 'first words: albatrossword')
    await until('the upload is indexed', holds('albatrossword', [file.id]))

    const session = await h.sim.openEditor(await h.openConfig(file.id))
    session.edit(bytes('edited words: cormorantword'))
    await session.disconnect()
    assert.equal(lastCallback(h.sim, 2).ok, true)
    await until('the editor save is indexed', holds('cormorantword', [file.id]))
    assert.deepEqual(await found('albatrossword'), [])

    const restored = await h.api('POST', `/files/file/${file.id}/restore`, { version: 1 })
    assert.equal(restored.status, 200, restored.text)
    await until('the restore is indexed', holds('albatrossword', [file.id]))
    assert.deepEqual(await found('cormorantword'), [])

    const copied = await h.api('PUT', '/files/fileops/copy', {
      destFolderId: '@my',
      folderIds: [],
      fileIds: [file.id],
      conflictResolveType: 2,
    })
    assert.equal(copied.status, 200, copied.text)
    await until('the copy is indexed', async () => (await found('albatrossword')).length === 2)

    // A rename: the title's words are indexed again.
    const renamed = await h.api('PUT', `/files/file/${file.id}`, { title: 'Pelican report.txt' })
    assert.equal(renamed.status, 200, renamed.text)
    await until('the new title is indexed', holds('pelican', [file.id]))
  })
})
