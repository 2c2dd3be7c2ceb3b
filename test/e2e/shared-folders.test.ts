import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'

/**
 * A folder shared with someone, seen by them over HTTP: its listing, info and path (from
 * their '@share' section, not the owner's '@my'), each item with the caller's access,
 * uploads and new folders with ReadWrite, refusals with Read, and revocation at once.
 */
describe('folders shared with people', () => {
  let server: TestServer
  let owner: string
  let bob: { id: string; token: string }
  let carol: { id: string; token: string }

  before(async () => {
    server = await startTestServer()
    owner = await signIn(server.url)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    const b = await createUser(server.ctx, { userName: 'bob', password: 'bob-password-1' })
    const c = await createUser(server.ctx, { userName: 'carol', password: 'carol-password-1' })
    bob = { id: b.id, token: await signIn(server.url, 'bob', 'bob-password-1') }
    carol = { id: c.id, token: await signIn(server.url, 'carol', 'carol-password-1') }
  })
  after(() => server.dispose())

  const api = (token: string, method: string, path: string, body?: unknown): Promise<ApiReply> =>
    call(server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })

  async function newFolder(token: string, parent: string, title: string): Promise<string> {
    const reply = await api(token, 'POST', `/files/folder/${parent}`, { title })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  const upload = (token: string, folder: string, title: string, text: string) =>
    call(server.url, 'POST', `/api/2.0/files/${folder}/upload?title=${encodeURIComponent(title)}`, {
      token,
      raw: text,
      headers: { 'Content-Type': 'application/octet-stream' },
    })

  const shareFolder = (folderId: string, entries: Array<[string, number]>) =>
    api(owner, 'PUT', `/files/folder/${folderId}/share`, {
      share: entries.map(([shareTo, access]) => ({ shareTo, access })),
    })

  test('a sharee lists a shared folder and the folders below it, with their own access on each item', async () => {
    const my = (await api(owner, 'GET', '/files/@my')).json.response.current.id
    const outer = await newFolder(owner, my, 'Outer private')
    const team = await newFolder(owner, outer, 'Team')
    const inner = await newFolder(owner, team, 'Inner')
    const plan = (await upload(owner, team, 'Plan.docx', 'plan')).json.response.id
    const secret = (await upload(owner, team, 'Secret.docx', 'secret')).json.response.id
    await upload(owner, inner, 'Deep.txt', 'deep')
    assert.equal((await api(bob.token, 'GET', `/files/${team}`)).status, 404)

    assert.equal((await shareFolder(team, [[bob.id, 2]])).status, 200)
    // A more specific entry wins: Bob edits Plan, and Secret is hidden from him.
    assert.equal(
      (await api(owner, 'PUT', `/files/file/${plan}/share`, { share: [{ shareTo: bob.id, access: 1 }] })).status,
      200,
    )
    assert.equal(
      (await api(owner, 'PUT', `/files/file/${secret}/share`, { share: [{ shareTo: bob.id, access: 3 }] })).status,
      200,
    )

    const listing = await api(bob.token, 'GET', `/files/${team}?sortBy=AZ`)
    assert.equal(listing.status, 200, listing.text)
    const body = listing.json.response
    assert.deepEqual(body.pathParts, ['@share', team])
    assert.equal(body.current.id, team)
    assert.equal(body.current.rootFolderType, 6)
    assert.equal(body.current.access, 2)
    assert.deepEqual(
      body.folders.map((f: { id: string; access: number; rootFolderType: number }) => [
        f.id,
        f.access,
        f.rootFolderType,
      ]),
      [[inner, 2, 6]],
    )
    assert.deepEqual(
      body.files.map((f: { title: string; access: number; rootFolderType: number }) => [
        f.title,
        f.access,
        f.rootFolderType,
      ]),
      [
        ['Plan.docx', 1, 6],
        ['Secret.docx', 3, 6],
      ],
    )

    // One level down: the path still starts at @share, never at the owner's folders.
    const deeper = (await api(bob.token, 'GET', `/files/${inner}`)).json.response
    assert.deepEqual(deeper.pathParts, ['@share', team, inner])
    assert.deepEqual(
      deeper.files.map((f: { title: string; access: number }) => [f.title, f.access]),
      [['Deep.txt', 2]],
    )

    const info = await api(bob.token, 'GET', `/files/folder/${inner}`)
    assert.equal(info.status, 200, info.text)
    assert.deepEqual(
      [
        info.json.response.id,
        info.json.response.access,
        info.json.response.rootFolderType,
        info.json.response.filesCount,
      ],
      [inner, 2, 6, 1],
    )
    const path = await api(bob.token, 'GET', `/files/folder/${inner}/path`)
    assert.deepEqual(
      path.json.response.map((f: { id: string }) => f.id),
      ['@share', team, inner],
    )
    // The owner's own view is unchanged: from their @my, full access.
    const ownerView = (await api(owner, 'GET', `/files/${inner}`)).json.response
    assert.deepEqual(ownerView.pathParts, [my, outer, team, inner])
    assert.equal(ownerView.current.access, 0)
    assert.equal(ownerView.current.rootFolderType, 5)

    // The folder above the shared one, and a stranger, see nothing.
    assert.equal((await api(bob.token, 'GET', `/files/${outer}`)).status, 404)
    assert.equal((await api(bob.token, 'GET', `/files/folder/${outer}`)).status, 404)
    assert.equal((await api(carol.token, 'GET', `/files/${team}`)).status, 404)
    // A single file's record carries the caller's access too.
    assert.equal((await api(bob.token, 'GET', `/files/file/${plan}`)).json.response.access, 1)
    assert.equal((await api(bob.token, 'GET', `/files/file/${secret}`)).status, 404)
  })

  test("Read allows looking only; ReadWrite adds files and folders into the owner's tree; only the owner deletes and moves", async () => {
    const my = (await api(owner, 'GET', '/files/@my')).json.response.current.id
    const shared = await newFolder(owner, my, 'Shared work')
    await shareFolder(shared, [
      [bob.id, 2],
      [carol.id, 1],
    ])

    const refused = await upload(bob.token, shared, 'Bob.txt', 'bob')
    assert.equal(refused.status, 403, refused.text)
    assert.equal((await api(bob.token, 'POST', `/files/${shared}/file`, { title: 'Bob.docx' })).status, 403)
    assert.equal((await api(bob.token, 'POST', `/files/folder/${shared}`, { title: 'Bob folder' })).status, 403)
    assert.equal((await api(bob.token, 'PUT', `/files/folder/${shared}`, { title: 'Renamed by Bob' })).status, 403)

    const uploaded = await upload(carol.token, shared, 'Carol.txt', 'carol wrote this')
    assert.equal(uploaded.status, 201, uploaded.text)
    const file = uploaded.json.response
    assert.equal(file.folderId, shared)
    assert.equal(file.createdBy.id, carol.id)
    const sub = await newFolder(carol.token, shared, 'Carol folder')
    assert.equal((await api(carol.token, 'POST', `/files/${sub}/file`, { title: 'Notes.docx' })).status, 201)
    // What Carol added lies in the owner's tree: the owner sees it as their own.
    const ownerView = (await api(owner, 'GET', `/files/${shared}`)).json.response
    assert.deepEqual(
      ownerView.files.map((f: { title: string; access: number }) => [f.title, f.access]),
      [['Carol.txt', 0]],
    )
    assert.deepEqual(
      ownerView.folders.map((f: { title: string }) => f.title),
      ['Carol folder'],
    )
    // Bob reads what Carol added.
    const download = await call(server.url, 'GET', `/api/2.0/files/file/${file.id}/download`, { token: bob.token })
    assert.equal(download.text, 'carol wrote this')

    // Moving stays the owner's; full access deletes inside the shared folder (as ONLYOFFICE's
    // full access does), into the owner's trash, but never for good.
    const carolMy = (await api(carol.token, 'GET', '/files/@my')).json.response.current.id
    const move = await api(carol.token, 'PUT', '/files/fileops/move', {
      destFolderId: carolMy,
      folderIds: [sub],
      fileIds: [],
    })
    assert.equal(move.status, 403, move.text)
    const forGood = await api(carol.token, 'PUT', '/files/fileops/delete', {
      folderIds: [sub],
      fileIds: [],
      immediately: true,
    })
    assert.equal(forGood.status, 403, forGood.text)
    assert.equal((await api(carol.token, 'DELETE', `/files/folder/${sub}`)).status, 200)
    const ownerTrash = (await api(owner, 'GET', '/files/@trash')).json.response
    assert.ok(
      ownerTrash.folders.some((f: { id: string }) => f.id === sub),
      "in the owner's trash",
    )
    const restored = await api(owner, 'PUT', '/files/fileops/restore', { folderIds: [sub], fileIds: [] })
    assert.equal(restored.status, 200, restored.text)
    const intoShared = await api(carol.token, 'PUT', '/files/fileops/move', {
      destFolderId: shared,
      folderIds: [],
      fileIds: [(await upload(carol.token, carolMy, 'Mine.txt', 'mine')).json.response.id],
    })
    assert.equal(intoShared.status, 403, intoShared.text)
    // A copy out of the share is Carol's own.
    const copy = await api(carol.token, 'PUT', '/files/fileops/copy', {
      destFolderId: carolMy,
      folderIds: [sub],
      fileIds: [],
    })
    assert.equal(copy.status, 200, copy.text)
    const carolsCopy = (await api(carol.token, 'GET', `/files/${carolMy}`)).json.response.folders.find(
      (f: { title: string }) => f.title === 'Carol folder',
    )
    assert.equal(carolsCopy.access, 0)
    assert.equal(carolsCopy.rootFolderType, 5)
  })

  test("removing the folder's share refuses the next listing, upload and file read at once", async () => {
    const my = (await api(owner, 'GET', '/files/@my')).json.response.current.id
    const shared = await newFolder(owner, my, 'Soon private')
    const inside = (await upload(owner, shared, 'Inside.txt', 'inside')).json.response.id
    await shareFolder(shared, [[bob.id, 1]])
    assert.equal((await api(bob.token, 'GET', `/files/${shared}`)).status, 200)
    assert.equal((await upload(bob.token, shared, 'Before.txt', 'x')).status, 201)

    await shareFolder(shared, [[bob.id, 0]])
    assert.equal((await api(bob.token, 'GET', `/files/${shared}`)).status, 404)
    assert.equal((await api(bob.token, 'GET', `/files/folder/${shared}/path`)).status, 404)
    assert.equal((await upload(bob.token, shared, 'After.txt', 'x')).status, 404)
    assert.equal((await api(bob.token, 'GET', `/files/file/${inside}`)).status, 404)
    const titles = (await api(owner, 'GET', `/files/${shared}`)).json.response.files
      .map((f: { title: string }) => f.title)
      .sort()
    assert.deepEqual(titles, ['Before.txt', 'Inside.txt'])
  })

  test('@share pages, sorts and filters as other listings do, and its folders carry their counts', async () => {
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    const dana = await createUser(server.ctx, { userName: 'dana', password: 'dana-password-1' })
    const danaToken = await signIn(server.url, 'dana', 'dana-password-1')
    const my = (await api(owner, 'GET', '/files/@my')).json.response.current.id
    const alpha = await newFolder(owner, my, 'Alpha')
    const beta = await newFolder(owner, my, 'beta')
    await upload(owner, alpha, 'In alpha 1.txt', 'one')
    await upload(owner, alpha, 'In alpha 2.txt', 'two')
    await newFolder(owner, alpha, 'Below alpha')
    const files: Record<string, string> = {}
    const contents: Array<[string, string]> = [
      ['Gamma.docx', 'gamma'],
      ['delta.xlsx', 'delta, the longest'],
      ['Epsilon.pptx', 'e'],
    ]
    for (const [title, text] of contents) {
      files[title] = (await upload(owner, my, title, text)).json.response.id
    }
    await shareFolder(alpha, [[dana.id, 2]])
    await shareFolder(beta, [[dana.id, 1]])
    for (const id of Object.values(files)) {
      assert.equal(
        (await api(owner, 'PUT', `/files/file/${id}/share`, { share: [{ shareTo: dana.id, access: 2 }] })).status,
        200,
      )
    }

    const page = async (query: string) => {
      const reply = await api(danaToken, 'GET', `/files/@share?${query}`)
      assert.equal(reply.status, 200, reply.text)
      const body = reply.json.response
      return {
        body,
        titles: [...body.folders, ...body.files].map((item: { title: string }) => item.title),
      }
    }

    // Folders first, then files, each by name without regard to case.
    const byName = await page('sortBy=AZ')
    assert.deepEqual(byName.titles, ['Alpha', 'beta', 'delta.xlsx', 'Epsilon.pptx', 'Gamma.docx'])
    assert.equal(byName.body.total, 5)
    assert.deepEqual([byName.body.current.filesCount, byName.body.current.foldersCount], [3, 2])
    assert.deepEqual(
      byName.body.folders.map(
        (f: { title: string; filesCount: number; foldersCount: number; access: number; parentId: string }) => [
          f.title,
          f.filesCount,
          f.foldersCount,
          f.access,
          f.parentId,
        ],
      ),
      [
        ['Alpha', 2, 1, 2, '@share'],
        ['beta', 0, 0, 1, '@share'],
      ],
    )
    assert.deepEqual((await page('sortBy=AZ&sortOrder=descending')).titles, [
      'beta',
      'Alpha',
      'Gamma.docx',
      'Epsilon.pptx',
      'delta.xlsx',
    ])
    // Workspace's numbers work too: Size is 2.
    assert.deepEqual((await page('sortBy=2&sortOrder=ascending&filterType=FilesOnly')).titles, [
      'Epsilon.pptx',
      'Gamma.docx',
      'delta.xlsx',
    ])

    // Pages run across the folders into the files; the total stays the whole list's.
    const second = await page('sortBy=AZ&startIndex=1&count=2')
    assert.deepEqual(second.titles, ['beta', 'delta.xlsx'])
    assert.deepEqual([second.body.startIndex, second.body.count, second.body.total], [1, 2, 5])
    const last = await page('sortBy=AZ&startIndex=3&count=10')
    assert.deepEqual(last.titles, ['Epsilon.pptx', 'Gamma.docx'])
    assert.equal((await page('sortBy=AZ&startIndex=10')).titles.length, 0)

    // The name filter and the type filters, by name or number.
    const named = await page('sortBy=AZ&filterValue=TA')
    assert.deepEqual(named.titles, ['beta', 'delta.xlsx'])
    assert.equal(named.body.total, 2)
    assert.deepEqual((await page('sortBy=AZ&filterType=FoldersOnly')).titles, ['Alpha', 'beta'])
    assert.deepEqual((await page('sortBy=AZ&filterType=5')).titles, ['delta.xlsx'])
    assert.deepEqual((await page('sortBy=AZ&filterType=DocumentsOnly')).titles, ['Gamma.docx'])

    // Bad paging or sorting is refused in words, as for any folder.
    const bad: Array<[string, string]> = [
      ['sortBy=Colour', 'sortBy'],
      ['count=0', 'count'],
      ['startIndex=-1', 'startIndex'],
      ['filterType=Pictures', 'filterType'],
    ]
    for (const [query, field] of bad) {
      const refused = await api(danaToken, 'GET', `/files/@share?${query}`)
      assert.equal(refused.status, 400, query)
      assert.match(refused.json.error.message, new RegExp(field), query)
    }
  })

  test("@share sorts by Type (extension, then name) and by Author (creator's name, then name)", async () => {
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    const erin = await createUser(server.ctx, { userName: 'erin', password: 'erin-password-1' })
    const erinToken = await signIn(server.url, 'erin', 'erin-password-1')
    const ownerMy = (await api(owner, 'GET', '/files/@my')).json.response.current.id
    const bobMy = (await api(bob.token, 'GET', '/files/@my')).json.response.current.id
    const shareFile = async (token: string, folder: string, title: string) => {
      const id = (await upload(token, folder, title, 'x')).json.response.id
      const reply = await api(token, 'PUT', `/files/file/${id}/share`, { share: [{ shareTo: erin.id, access: 2 }] })
      assert.equal(reply.status, 200, reply.text)
    }
    const shareNewFolder = async (token: string, parent: string, title: string) => {
      const id = await newFolder(token, parent, title)
      const reply = await api(token, 'PUT', `/files/folder/${id}/share`, { share: [{ shareTo: erin.id, access: 2 }] })
      assert.equal(reply.status, 200, reply.text)
    }
    // The admin ("admin") sorts before Bob ("bob").
    await shareNewFolder(owner, ownerMy, 'Zed')
    await shareNewFolder(bob.token, bobMy, 'Bee')
    await shareFile(owner, ownerMy, 'zulu.txt')
    await shareFile(bob.token, bobMy, 'Apple.docx')
    await shareFile(bob.token, bobMy, 'mango')
    const titles = async (query: string) => {
      const reply = await api(erinToken, 'GET', `/files/@share?${query}`)
      assert.equal(reply.status, 200, reply.text)
      return [...reply.json.response.folders, ...reply.json.response.files].map((item: { title: string }) => item.title)
    }
    assert.deepEqual(await titles('sortBy=Type&sortOrder=ascending'), ['Bee', 'Zed', 'mango', 'Apple.docx', 'zulu.txt'])
    assert.deepEqual(await titles('sortBy=4&sortOrder=descending'), ['Zed', 'Bee', 'zulu.txt', 'Apple.docx', 'mango'])
    assert.deepEqual(await titles('sortBy=Author&sortOrder=ascending'), [
      'Zed',
      'Bee',
      'zulu.txt',
      'Apple.docx',
      'mango',
    ])
    assert.deepEqual(await titles('sortBy=3&sortOrder=descending'), ['Bee', 'Zed', 'mango', 'Apple.docx', 'zulu.txt'])
    assert.deepEqual(await titles('sortBy=Author&sortOrder=ascending&startIndex=2&count=2'), ['zulu.txt', 'Apple.docx'])
  })

  test("a shared folder moved to the owner's trash is gone for the sharee, over WOPI too", async () => {
    const my = (await api(owner, 'GET', '/files/@my')).json.response.current.id
    const shared = await newFolder(owner, my, 'Trashed later')
    const inside = (await upload(owner, shared, 'Inside.docx', 'inside')).json.response.id
    await shareFolder(shared, [[bob.id, 2]])
    assert.equal((await api(bob.token, 'GET', `/files/${shared}`)).status, 200)
    const launched = await api(bob.token, 'POST', `/files/file/${inside}/wopi?mode=view`)
    assert.equal(launched.status, 200, launched.text)
    const checkFileInfo = () =>
      call(
        server.url,
        'GET',
        `/wopi/files/${inside}?access_token=${encodeURIComponent(launched.json.response.accessToken)}`,
      )
    assert.equal((await checkFileInfo()).status, 200)
    assert.equal((await api(owner, 'DELETE', `/files/folder/${shared}`)).status, 200)
    assert.equal((await api(bob.token, 'GET', `/files/${shared}`)).status, 404)
    // The token Bob already holds is refused too: a trashed file is gone for editors.
    assert.equal((await checkFileInfo()).status, 404)
  })
})
