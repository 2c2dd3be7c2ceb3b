import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { bytes, startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { OnlyofficeWopiClient } from '../support/onlyoffice-wopi-client.js'
import { rootFolder } from '../../src/app/roots.js'
import { newId } from '../../src/core/ids.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'

/**
 * Sharing with people through every door: the portal (share list, @share, people search,
 * per-access actions), ONLYOFFICE openedit (mode and permissions) and WOPI (CheckFileInfo
 * and writes), with revocation taking effect on the very next call.
 */
describe('sharing files with people', () => {
  let h: Harness
  let bob: { id: string; token: string }
  let carol: { id: string; token: string }

  const as = (token: string, method: string, path: string, body?: unknown): Promise<ApiReply> =>
    call(h.folio.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })
  const share = (fileId: string, entries: Array<[string, number]>, token = h.token) =>
    as(token, 'PUT', `/files/file/${fileId}/share`, {
      share: entries.map(([shareTo, access]) => ({ shareTo, access })),
      notify: false,
    })
  const wopiToken = async (token: string, fileId: string, mode: 'edit' | 'view' = 'edit') => {
    const reply = await as(token, 'POST', `/files/file/${fileId}/wopi?mode=${mode}`)
    assert.equal(reply.status, 200, reply.text)
    return String(reply.json.response.accessToken)
  }
  const wopi = (
    fileId: string,
    token: string,
    override?: string,
    headers: Record<string, string> = {},
    body?: string,
  ) =>
    call(
      h.folio.url,
      override === undefined ? 'GET' : 'POST',
      `/wopi/files/${fileId}${override === 'PUT' ? '/contents' : ''}?access_token=${encodeURIComponent(token)}`,
      {
        headers: override === undefined ? headers : { ...headers, 'X-WOPI-Override': override },
        ...(body === undefined ? {} : { raw: body }),
      },
    )

  before(async () => {
    h = await startHarness()
    const b = await h.createUser('bob')
    const c = await h.createUser('carol')
    bob = { id: b.id, token: await signIn(h.folio.url, 'bob', 'bob-password-1') }
    carol = { id: c.id, token: await signIn(h.folio.url, 'carol', 'carol-password-1') }
  })
  after(() => h.close())

  test('PUT/GET share: the owner first, then each person; None removes; only the owner changes it', async () => {
    const file = await h.upload('Shared.docx', 'hello')
    const put = await share(file.id, [
      [bob.id, 2],
      [carol.id, 6],
    ])
    assert.equal(put.status, 200, put.text)
    const list = put.json.response
    assert.deepEqual(list[0], {
      access: 1,
      sharedTo: { id: h.admin.id, displayName: h.admin.displayName },
      isOwner: true,
      isLocked: true,
    })
    assert.deepEqual(
      list
        .slice(1)
        .map((e: { sharedTo: { id: string; displayName: string }; access: number; isOwner: boolean }) => [
          e.sharedTo.displayName,
          e.access,
          e.isOwner,
        ])
        .sort(),
      [
        ['bob (display)', 2],
        ['carol (display)', 6],
      ].map(([n, a]) => [n, a, false]),
    )
    const got = await as(h.token, 'GET', `/files/file/${file.id}/share`)
    assert.deepEqual(got.json.response, list)

    // Bob can see the file but not its sharing; a stranger to the file sees nothing.
    assert.equal((await share(file.id, [[carol.id, 1]], bob.token)).status, 403)
    assert.equal((await as(bob.token, 'GET', `/files/file/${file.id}/share`)).status, 403)

    const removed = await share(file.id, [[carol.id, 0]])
    assert.deepEqual(
      removed.json.response.map((e: { sharedTo: { id: string } }) => e.sharedTo.id),
      [h.admin.id, bob.id],
    )
    assert.equal((await as(carol.token, 'GET', `/files/file/${file.id}`)).status, 404)
    assert.equal((await as(carol.token, 'GET', `/files/file/${file.id}/share`)).status, 404)
  })

  test('bad share input is a 400 that changes nothing', async () => {
    const file = await h.upload('Bad input.docx', 'x')
    await share(file.id, [[bob.id, 2]])
    const before = (await as(h.token, 'GET', `/files/file/${file.id}/share`)).json.response
    for (const entries of [
      [[bob.id, 4]],
      [
        [bob.id, 1],
        ['no-such-user', 2],
      ],
      [[h.admin.id, 2]],
    ] as Array<Array<[string, number]>>) {
      const reply = await share(file.id, entries)
      assert.equal(reply.status, 400, JSON.stringify(entries))
    }
    const garbled = await as(h.token, 'PUT', `/files/file/${file.id}/share`, { share: 'everyone' })
    assert.equal(garbled.status, 400)
    assert.deepEqual((await as(h.token, 'GET', `/files/file/${file.id}/share`)).json.response, before)
  })

  test('@share lists what others shared with the caller, with their access', async () => {
    const file = await h.upload('For Carol.docx', 'x')
    await share(file.id, [[carol.id, 5]])
    const reply = await as(carol.token, 'GET', '/files/@share')
    assert.equal(reply.status, 200)
    const entry = reply.json.response.files.find((f: { id: string }) => f.id === file.id)
    assert.equal(entry.access, 5)
    assert.equal(entry.folderId, '@share')
    assert.equal(entry.owner.id, h.admin.id)
    assert.equal(reply.json.response.current.id, '@share')
    // Not in Carol's own documents.
    const mine = await as(carol.token, 'GET', '/files/@my')
    assert.ok(!mine.json.response.files.some((f: { id: string }) => f.id === file.id))
  })

  test('the people search is for every signed-in user; e-mail of others only for admins', async () => {
    const byBob = await as(bob.token, 'GET', '/people/filter?filterValue=CAR')
    assert.equal(byBob.status, 200)
    assert.deepEqual(byBob.json.response, [{ id: carol.id, displayName: 'carol (display)' }])
    const everyone = await as(bob.token, 'GET', '/people/filter')
    assert.ok(everyone.json.response.length >= 3)
    const byAdmin = await as(h.token, 'GET', '/people/filter?filterValue=carol')
    assert.equal(typeof byAdmin.json.response[0].email, 'string')
    assert.equal((await call(h.folio.url, 'GET', '/api/2.0/people/filter')).status, 401)
    // The people list answers non-admins too, without others' e-mail addresses.
    const list = await as(bob.token, 'GET', '/people')
    assert.equal(list.status, 200)
    assert.ok(list.json.response.every((p: { id: string; email?: string }) => p.id === bob.id || p.email === undefined))
  })

  test('portal per access: Read views and downloads only; ReadWrite also renames; only the owner deletes', async () => {
    const file = await h.upload('Levels.docx', 'levels')
    await share(file.id, [
      [bob.id, 2],
      [carol.id, 1],
    ])
    assert.equal((await as(bob.token, 'GET', `/files/file/${file.id}`)).status, 200)
    const download = await call(h.folio.url, 'GET', `/api/2.0/files/file/${file.id}/download`, { token: bob.token })
    assert.equal(download.status, 200)
    assert.equal(download.text, 'levels')
    assert.equal((await as(bob.token, 'PUT', `/files/file/${file.id}`, { title: 'Bob.docx' })).status, 403)
    assert.equal((await as(bob.token, 'DELETE', `/files/file/${file.id}`)).status, 403)
    const renamed = await as(carol.token, 'PUT', `/files/file/${file.id}`, { title: 'Carol named it.docx' })
    assert.equal(renamed.status, 200, renamed.text)
    assert.equal((await as(carol.token, 'DELETE', `/files/file/${file.id}`)).status, 403)
    assert.equal((await h.file(file.id)).title, 'Carol named it.docx')
  })

  test('openedit per access: one key for all; ReadWrite edits, Comment/Review/FillForms only their own right, Read views', async () => {
    const file = await h.upload('Perms.docx', 'perms')
    const dave = await h.createUser('dave')
    const erin = await h.createUser('erin')
    const daveToken = await signIn(h.folio.url, 'dave', 'dave-password-1')
    const erinToken = await signIn(h.folio.url, 'erin', 'erin-password-1')
    await share(file.id, [
      [bob.id, 1],
      [carol.id, 6],
      [dave.id, 5],
      [erin.id, 2],
    ])
    const perms = async (token: string) => {
      const reply = await as(token, 'GET', `/files/file/${file.id}/openedit`)
      assert.equal(reply.status, 200, reply.text)
      const config = reply.json.response
      const p = config.document.permissions
      return {
        key: config.document.key,
        user: config.editorConfig.user.id,
        mode: config.editorConfig.mode,
        p: [p.edit, p.review, p.comment, p.fillForms],
      }
    }
    const owner = await perms(h.token)
    const rw = await perms(bob.token)
    const comment = await perms(carol.token)
    const review = await perms(daveToken)
    const read = await perms(erinToken)
    assert.deepEqual(new Set([owner.key, rw.key, comment.key, review.key, read.key]).size, 1)
    assert.deepEqual([owner.user, rw.user, comment.user], [h.admin.id, bob.id, carol.id])
    assert.deepEqual([owner.mode, owner.p], ['edit', [true, true, true, true]])
    assert.deepEqual([rw.mode, rw.p], ['edit', [true, true, true, true]])
    assert.deepEqual([comment.mode, comment.p], ['edit', [false, false, true, false]])
    assert.deepEqual([review.mode, review.p], ['edit', [false, true, true, false]])
    assert.deepEqual([read.mode, read.p], ['view', [false, false, false, false]])
  })

  test('WOPI per access: CheckFileInfo follows the caller; a Read user cannot write with any token', async () => {
    const file = await h.upload('Wopi levels.docx', 'wopi')
    await share(file.id, [
      [bob.id, 1],
      [carol.id, 2],
    ])
    const bobToken = await wopiToken(bob.token, file.id)
    const bobInfo = (await wopi(file.id, bobToken)).json
    assert.deepEqual(
      [
        bobInfo.UserId,
        bobInfo.UserFriendlyName,
        bobInfo.UserCanWrite,
        bobInfo.UserCanRename,
        bobInfo.ReadOnly,
        bobInfo.SupportsUpdate,
        bobInfo.OwnerId,
      ],
      [bob.id, 'bob (display)', true, true, false, true, h.admin.id],
    )
    // Carol may read: an edit token is refused, a view token reads and cannot write.
    assert.equal((await as(carol.token, 'POST', `/files/file/${file.id}/wopi?mode=edit`)).status, 403)
    const carolToken = await wopiToken(carol.token, file.id, 'view')
    const carolInfo = (await wopi(file.id, carolToken)).json
    assert.deepEqual(
      [
        carolInfo.UserId,
        carolInfo.UserCanWrite,
        carolInfo.UserCanRename,
        carolInfo.ReadOnly,
        carolInfo.SupportsUpdate,
        carolInfo.UserCanNotWriteRelative,
      ],
      [carol.id, false, false, true, false, true],
    )
    const contents = await call(
      h.folio.url,
      'GET',
      `/wopi/files/${file.id}/contents?access_token=${encodeURIComponent(carolToken)}`,
    )
    assert.equal(contents.text, 'wopi')
    assert.equal((await wopi(file.id, carolToken, 'LOCK', { 'X-WOPI-Lock': 'carol' })).status, 401)
    assert.equal((await wopi(file.id, carolToken, 'PUT', {}, 'carol wrote')).status, 401)
    // Bob writes with his own token.
    assert.equal((await wopi(file.id, bobToken, 'LOCK', { 'X-WOPI-Lock': 'bob' })).status, 200)
    assert.equal((await wopi(file.id, bobToken, 'PUT', { 'X-WOPI-Lock': 'bob' }, 'bob wrote')).status, 200)
    assert.equal(await h.contents(file.id), 'bob wrote')
  })

  test('revocation at once: the next WOPI call, portal call and openedit of a removed person are refused', async () => {
    const file = await h.upload('Revoked.docx', 'before')
    await share(file.id, [[bob.id, 1]])
    const token = await wopiToken(bob.token, file.id)
    assert.equal((await wopi(file.id, token)).status, 200)
    assert.equal((await wopi(file.id, token, 'LOCK', { 'X-WOPI-Lock': 'bob-lock' })).status, 200)
    assert.equal((await as(bob.token, 'GET', `/files/file/${file.id}/openedit`)).status, 200)

    await share(file.id, [[bob.id, 0]])
    assert.equal((await wopi(file.id, token)).status, 404)
    assert.equal((await wopi(file.id, token, 'PUT', { 'X-WOPI-Lock': 'bob-lock' }, 'after')).status, 404)
    assert.equal((await as(bob.token, 'GET', `/files/file/${file.id}`)).status, 404)
    assert.equal((await as(bob.token, 'GET', `/files/file/${file.id}/openedit`)).status, 404)
    assert.equal(await h.contents(file.id), 'before')

    // Downgraded to Read: the same edit token now reads but cannot write.
    await share(file.id, [[bob.id, 2]])
    const info = (await wopi(file.id, token)).json
    assert.equal(info.UserCanWrite, false)
    assert.equal((await wopi(file.id, token, 'PUT', { 'X-WOPI-Lock': 'bob-lock' }, 'after')).status, 401)
    assert.equal(await h.contents(file.id), 'before')
  })

  test('co-editing in ONLYOFFICE: two people, one key, each their own user, editors by name, save credited to the last author', async () => {
    const file = await h.upload('Together.docx', 'together v1')
    await share(file.id, [
      [bob.id, 1],
      [carol.id, 6],
    ])
    const openedit = async (token: string) => {
      const reply = await as(token, 'GET', `/files/file/${file.id}/openedit`)
      assert.equal(reply.status, 200, reply.text)
      return reply.json.response
    }
    const mine = await h.sim.openEditor(await openedit(h.token))
    const bobs = await h.sim.openEditor(await openedit(bob.token))
    const carols = await h.sim.openEditor(await openedit(carol.token))
    assert.equal(bobs.key, mine.key)
    assert.equal(carols.key, mine.key)
    assert.deepEqual([mine.user.id, bobs.user.id, carols.user.id], [h.admin.id, bob.id, carol.id])

    // Who is editing now, by display name, as Bob sees the file. Docs counts a session
    // with permissions.edit false (Carol comments) as a viewer, so it lists the two editors.
    const seenByBob = (await as(bob.token, 'GET', `/files/file/${file.id}`)).json.response
    assert.deepEqual(
      seenByBob.editors.map((e: { displayName: string }) => e.displayName).sort(),
      [h.admin.displayName, 'bob (display)'].sort(),
    )

    await carols.disconnect()
    mine.edit(bytes('together v2 by admin'))
    bobs.edit(bytes('together v3 by bob'))
    await mine.disconnect()
    await bobs.disconnect()
    const [latest] = await h.versions(file.id)
    assert.equal(latest?.author.id, bob.id)
    assert.equal(latest?.author.displayName, 'bob (display)')
    assert.equal(await h.contents(file.id), 'together v3 by bob')
    assert.deepEqual((await h.file(file.id)).editing, [])
  })

  test('co-editing over WOPI: each person has their own token, both sessions share one lock', async () => {
    const file = await h.upload('Wopi together.docx', 'wopi v1')
    await share(file.id, [[bob.id, 1]])
    const client = async (token: string) =>
      new OnlyofficeWopiClient({
        wopiSrc: `${h.folio.url}/wopi/files/${file.id}`,
        accessToken: await wopiToken(token, file.id),
        getFileRetryDelayMs: 10,
      })
    const mine = await client(h.token)
    const bobs = await client(bob.token)
    try {
      const a = await mine.openForEditing()
      const b = await bobs.openForEditing()
      if (a.mode !== 'edit' || b.mode !== 'edit') throw new Error(`both should edit: ${a.mode}, ${b.mode}`)
      assert.equal(a.lockId, b.lockId)
      assert.equal(a.fileInfo.UserId, h.admin.id)
      assert.equal(b.fileInfo.UserId, bob.id)
      const saved = await bobs.closeWithSave(bytes('wopi v2 by bob'), bob.id)
      assert.equal(saved.putFile?.status, 200)
      const [latest] = await h.versions(file.id)
      assert.equal(latest?.author.id, bob.id)
      assert.equal(await h.contents(file.id), 'wopi v2 by bob')
    } finally {
      mine.close()
      bobs.close()
    }
  })

  test('folder shares: PUT/GET /files/folder/{id}/share, @share lists the folder, files below open', async () => {
    const ctx = h.folio.ctx
    const now = Date.now()
    const my = await rootFolder(ctx, h.admin.id, 'my')
    const folderId = newId()
    await ctx.store.folders.create({
      id: folderId,
      ownerId: h.admin.id,
      parentId: my.id,
      title: 'Team folder',
      rootType: null,
      createdAt: now,
      createdBy: h.admin.id,
      updatedAt: now,
      updatedBy: h.admin.id,
      revision: 1,
      trashedAt: null,
      originFolderId: null,
    })
    const uploaded = await h.upload('In the folder.docx', 'inside')
    const record = await ctx.store.files.findById(uploaded.id)
    assert.ok(record)
    await ctx.store.files.update(record.id, record.revision, { folderId })
    assert.equal((await as(bob.token, 'GET', `/files/file/${uploaded.id}`)).status, 404)

    const put = await as(h.token, 'PUT', `/files/folder/${folderId}/share`, { share: [{ shareTo: bob.id, access: 2 }] })
    assert.equal(put.status, 200, put.text)
    assert.deepEqual(
      put.json.response.map((e: { sharedTo: { id: string }; access: number }) => [e.sharedTo.id, e.access]),
      [
        [h.admin.id, 1],
        [bob.id, 2],
      ],
    )
    assert.deepEqual((await as(h.token, 'GET', `/files/folder/${folderId}/share`)).json.response, put.json.response)
    assert.equal((await as(bob.token, 'GET', `/files/folder/${folderId}/share`)).status, 404)
    assert.equal(
      (await as(bob.token, 'PUT', `/files/folder/${folderId}/share`, { share: [{ shareTo: carol.id, access: 1 }] }))
        .status,
      404,
    )

    const shared = (await as(bob.token, 'GET', '/files/@share')).json.response
    assert.deepEqual(
      shared.folders.map((f: { id: string; access: number }) => [f.id, f.access]),
      [[folderId, 2]],
    )
    assert.equal((await as(bob.token, 'GET', `/files/file/${uploaded.id}`)).status, 200)
    assert.equal((await as(bob.token, 'PUT', `/files/file/${uploaded.id}`, { title: 'Nope.docx' })).status, 403)
    await as(h.token, 'PUT', `/files/folder/${folderId}/share`, { share: [{ shareTo: bob.id, access: 0 }] })
    assert.equal((await as(bob.token, 'GET', `/files/file/${uploaded.id}`)).status, 404)
  })
})
