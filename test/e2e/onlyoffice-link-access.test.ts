import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { UserRecord } from '../../src/core/entities.js'
import { call, signIn } from '../support/portal-client.js'
import { startHarness, type Harness } from '../support/onlyoffice-harness.js'

/**
 * The links Folio hands to ONLYOFFICE Docs (document.url and the history pane's links)
 * live an hour, but each use is checked against the access and the file as they are now:
 * a removed share, a password change, a removed user or a trashed file ends them at once.
 */
describe('ONLYOFFICE download links follow the current access', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  /** A user the admin shares `fileId` with (ReadWrite), signed in through the portal. */
  async function sharee(name: string, fileId: string): Promise<{ user: UserRecord; token: string }> {
    const user = await h.createUser(name)
    const shared = await h.api('PUT', `/files/file/${fileId}/share`, {
      share: [{ shareTo: user.id, access: 1 }],
      notify: false,
    })
    assert.equal(shared.status, 200, shared.text)
    return { user, token: await signIn(h.folio.url, name, `${name}-password-1`) }
  }

  /** document.url and the history link of version 1, as `token`'s user gets them. */
  async function linksOf(fileId: string, token: string): Promise<string[]> {
    const api = (path: string) => call(h.folio.url, 'GET', `/api/2.0${path}`, { token })
    const config = await api(`/files/file/${fileId}/openedit`)
    assert.equal(config.status, 200, config.text)
    const history = await api(`/files/file/${fileId}/edit-history/1/data`)
    assert.equal(history.status, 200, history.text)
    const links = [String(config.json.response.document.url), String(history.json.response.url)]
    for (const link of links) assert.equal((await call(link, 'GET', '')).text, 'secret bytes')
    return links
  }

  async function statuses(links: string[]): Promise<number[]> {
    return Promise.all(links.map(async (link) => (await call(link, 'GET', '')).status))
  }

  test("a removed share ends the sharee's links", async () => {
    const file = await h.upload('Unshared.docx', 'secret bytes')
    const bob = await sharee('bob-unshared', file.id)
    const links = await linksOf(file.id, bob.token)
    const removed = await h.api('PUT', `/files/file/${file.id}/share`, {
      share: [{ shareTo: bob.user.id, access: 0 }],
      notify: false,
    })
    assert.equal(removed.status, 200, removed.text)
    assert.deepEqual(await statuses(links), [403, 403])
  })

  test("a password change ends the user's links", async () => {
    const file = await h.upload('Password.docx', 'secret bytes')
    const bob = await sharee('bob-password', file.id)
    const links = await linksOf(file.id, bob.token)
    const changed = await h.api('PUT', `/people/${bob.user.id}/password`, { password: 'a-new-password-2' })
    assert.equal(changed.status, 200, changed.text)
    assert.deepEqual(await statuses(links), [403, 403])
  })

  test("a removed user's links end", async () => {
    const file = await h.upload('Removed.docx', 'secret bytes')
    const bob = await sharee('bob-removed', file.id)
    const links = await linksOf(file.id, bob.token)
    const removed = await h.api('DELETE', `/people/${bob.user.id}`)
    assert.equal(removed.status, 200, removed.text)
    assert.deepEqual(await statuses(links), [403, 403])
  })

  test("a trashed file's links end, the owner's too", async () => {
    const file = await h.upload('Trashed.docx', 'secret bytes')
    const bob = await sharee('bob-trashed', file.id)
    const links = [...(await linksOf(file.id, h.token)), ...(await linksOf(file.id, bob.token))]
    const trashed = await h.api('DELETE', `/files/file/${file.id}`)
    assert.equal(trashed.status, 200, trashed.text)
    assert.equal(trashed.json.response.trashed, true)
    assert.deepEqual(await statuses(links), [404, 404, 404, 404])
  })
})
