import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import { FakeClock, startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'

describe('folders, trash and file operations API', () => {
  let server: TestServer
  let token: string
  let bobToken: string
  const clock = new FakeClock()

  before(async () => {
    server = await startTestServer({ FOLIO_TRASH_RETENTION: '7d' }, { clock })
    token = await signIn(server.url)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(server.ctx, { userName: 'bob', password: 'bob-password-1' })
    bobToken = await signIn(server.url, 'bob', 'bob-password-1')
  })
  after(() => server.dispose())

  const api = (method: string, path: string, body?: unknown, as = token) =>
    call(server.url, method, `/api/2.0${path}`, { token: as, ...(body === undefined ? {} : { body }) })

  async function newFolder(parent: string, title: string): Promise<string> {
    const reply = await api('POST', `/files/folder/${parent}`, { title })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function newFile(folder: string, title: string): Promise<string> {
    const reply = await api('POST', `/files/${folder}/file`, { title })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function upload(folder: string, title: string, text: string) {
    return call(server.url, 'POST', `/api/2.0/files/${folder}/upload?title=${encodeURIComponent(title)}`, {
      token,
      raw: text,
      headers: { 'Content-Type': 'application/octet-stream' },
    })
  }

  test('@root lists the my, share and trash sections with real ids and folder types', async () => {
    const reply = await api('GET', '/files/@root')
    assert.equal(reply.status, 200)
    const sections = reply.json.response
    assert.equal(sections.length, 3)
    assert.deepEqual(
      sections.map((s: { current: { rootFolderType: number } }) => s.current.rootFolderType),
      [5, 6, 3],
    )
    const my = await api('GET', '/files/@my.json')
    assert.equal(my.json.response.current.id, sections[0].current.id)
    assert.deepEqual(my.json.response.pathParts, [sections[0].current.id])
    const byId = await api('GET', `/files/${sections[2].current.id}`)
    assert.equal(byId.json.response.current.rootFolderType, 3)
    for (const key of ['files', 'folders', 'current', 'pathParts', 'startIndex', 'count', 'total']) {
      assert.ok(key in my.json.response, key)
    }
  })

  test('folders: create, info, path, rename, names unique per folder without regard to case', async () => {
    const projects = await newFolder('@my', 'Projects')
    const inner = await newFolder(projects, 'Q3: plans?')
    const info = await api('GET', `/files/folder/${inner}`)
    assert.equal(info.status, 200)
    assert.equal(info.json.response.title, 'Q3_ plans_', 'illegal characters are replaced on creation')
    assert.equal(info.json.response.parentId, projects)
    assert.equal(info.json.response.rootFolderType, 5)
    assert.equal(info.json.response.access, 0)
    const path = await api('GET', `/files/folder/${inner}/path`)
    assert.deepEqual(
      path.json.response.map((f: { title: string }) => f.title),
      ['My documents', 'Projects', 'Q3_ plans_'],
    )
    const clash = await api('POST', '/files/folder/@my', { title: 'PROJECTS' })
    assert.equal(clash.status, 409)
    const badRename = await api('PUT', `/files/folder/${inner}`, { title: 'a|b' })
    assert.equal(badRename.status, 400)
    assert.match(badRename.json.error.message, /< > : " \| \? \*/)
    const renamed = await api('PUT', `/files/folder/${inner}`, { title: 'Plans' })
    assert.equal(renamed.json.response.title, 'Plans')
    const others = await api('GET', `/files/folder/${inner}`, undefined, bobToken)
    assert.equal(others.status, 404, "another user's folder is not found")
    const listing = await api('GET', `/files/${projects}`)
    assert.equal(listing.json.response.folders[0].title, 'Plans')
    assert.equal(listing.json.response.current.foldersCount, 1)
  })

  test('upload and create into a folder; the same name may live in two folders', async () => {
    const a = await newFolder('@my', 'Folder A')
    const b = await newFolder('@my', 'Folder B')
    const first = await upload(a, 'notes.txt', 'one')
    const second = await upload(b, 'notes.txt', 'two')
    assert.equal(first.status, 201)
    assert.equal(second.status, 201)
    assert.equal(first.json.response.folderId, a)
    assert.equal(second.json.response.title, 'notes.txt')
    const again = await upload(a, 'NOTES.txt', 'three')
    assert.equal(again.json.response.title, 'NOTES (2).txt')
    const created = await api('POST', `/files/${b}/file`, { title: 'Report.docx' })
    assert.equal(created.json.response.folderId, b)
    assert.equal(created.json.response.fileType, 7)
    const missing = await upload('no-such-folder-id-000', 'x.txt', 'x')
    assert.equal(missing.status, 404)
  })

  test('listing: folders first, paging across both, sorting, filterType and filterValue', async () => {
    const box = await newFolder('@my', 'Listing box')
    for (const title of ['b-folder', 'a-folder']) await newFolder(box, title)
    for (const title of ['c.docx', 'a.xlsx', 'b.pptx', 'd.txt']) await newFile(box, title)
    const all = await api('GET', `/files/${box}?sortBy=AZ&sortOrder=ascending`)
    const titles = (r: { json: { response: { folders: { title: string }[]; files: { title: string }[] } } }) =>
      [...r.json.response.folders, ...r.json.response.files].map((i) => i.title)
    assert.deepEqual(titles(all), ['a-folder', 'b-folder', 'a.xlsx', 'b.pptx', 'c.docx', 'd.txt'])
    assert.equal(all.json.response.total, 6)
    const page2 = await api('GET', `/files/${box}?sortBy=1&startIndex=1&count=2`)
    assert.deepEqual(titles(page2), ['b-folder', 'a.xlsx'])
    assert.equal(page2.json.response.total, 6)
    const page3 = await api('GET', `/files/${box}?sortBy=az&startIndex=4&count=5`)
    assert.deepEqual(titles(page3), ['c.docx', 'd.txt'])
    const descending = await api('GET', `/files/${box}?sortBy=AZ&sortOrder=descending`)
    assert.deepEqual(titles(descending), ['b-folder', 'a-folder', 'd.txt', 'c.docx', 'b.pptx', 'a.xlsx'])
    const filters: [string, string[]][] = [
      ['FilesOnly', ['a.xlsx', 'b.pptx', 'c.docx', 'd.txt']],
      ['2', ['a-folder', 'b-folder']],
      ['DocumentsOnly', ['c.docx', 'd.txt']],
      ['4', ['b.pptx']],
      ['SpreadsheetsOnly', ['a.xlsx']],
    ]
    for (const [filterType, expected] of filters) {
      const reply = await api('GET', `/files/${box}?sortBy=AZ&filterType=${filterType}`)
      assert.deepEqual(titles(reply), expected, filterType)
      assert.equal(reply.json.response.total, expected.length, filterType)
    }
    const byValue = await api('GET', `/files/${box}?sortBy=AZ&filterValue=B`)
    assert.deepEqual(titles(byValue), ['b-folder', 'b.pptx'])
    const bad = await api('GET', `/files/${box}?sortBy=Nonsense`)
    assert.equal(bad.status, 400)
    const badFilter = await api('GET', `/files/${box}?filterType=99`)
    assert.equal(badFilter.status, 400)
  })

  test("listing by Type (extension, then name) and by Author (creator's name, then name), folders first", async () => {
    const box = await newFolder('@my', 'Sorted box')
    const shared = await api('PUT', `/files/folder/${box}/share`, {
      share: [{ shareTo: (await api('GET', '/people/@self', undefined, bobToken)).json.response.id, access: 1 }],
    })
    assert.equal(shared.status, 200, shared.text)
    await newFolder(box, 'z-folder')
    const bobFolder = await api('POST', `/files/folder/${box}`, { title: 'A-folder' }, bobToken)
    assert.equal(bobFolder.status, 201, bobFolder.text)
    for (const title of ['notes', 'c.xlsx', 'b.docx']) assert.equal((await upload(box, title, 'x')).status, 201)
    for (const title of ['a.xlsx', 'README.md']) {
      const reply = await call(server.url, 'POST', `/api/2.0/files/${box}/upload?title=${encodeURIComponent(title)}`, {
        token: bobToken,
        raw: 'y',
        headers: { 'Content-Type': 'application/octet-stream' },
      })
      assert.equal(reply.status, 201, reply.text)
    }
    const titles = async (query: string) => {
      const reply = await api('GET', `/files/${box}?${query}`)
      assert.equal(reply.status, 200, reply.text)
      return [...reply.json.response.folders, ...reply.json.response.files].map((i: { title: string }) => i.title)
    }
    // A title without a dot has no extension and comes first.
    assert.deepEqual(await titles('sortBy=Type&sortOrder=ascending'), [
      'A-folder',
      'z-folder',
      'notes',
      'b.docx',
      'README.md',
      'a.xlsx',
      'c.xlsx',
    ])
    assert.deepEqual(await titles('sortBy=4&sortOrder=descending'), [
      'z-folder',
      'A-folder',
      'c.xlsx',
      'a.xlsx',
      'README.md',
      'b.docx',
      'notes',
    ])
    assert.deepEqual(await titles('sortBy=Type&sortOrder=ascending&startIndex=3&count=2'), ['b.docx', 'README.md'])
    // The admin ("admin") sorts before Bob ("bob"), whatever the titles say.
    assert.deepEqual(await titles('sortBy=Author&sortOrder=ascending'), [
      'z-folder',
      'A-folder',
      'b.docx',
      'c.xlsx',
      'notes',
      'a.xlsx',
      'README.md',
    ])
    assert.deepEqual(await titles('sortBy=3&sortOrder=descending'), [
      'A-folder',
      'z-folder',
      'README.md',
      'a.xlsx',
      'notes',
      'c.xlsx',
      'b.docx',
    ])
    assert.deepEqual(await titles('sortBy=Author&sortOrder=ascending&filterType=FilesOnly&startIndex=2&count=2'), [
      'notes',
      'a.xlsx',
    ])
  })

  test('trash lifecycle: delete to trash, origin kept, restore, delete for good, editors refused', async () => {
    const home = await newFolder('@my', 'Trash test')
    const fileId = await newFile(home, 'Doomed.docx')
    const deletedFrom = clock.now()
    const deleted = await api('DELETE', `/files/file/${fileId}`)
    const deletedBy = clock.now()
    assert.equal(deleted.status, 200)
    const trash = await api('GET', '/files/@trash')
    const trashed = trash.json.response.files.find((f: { id: string }) => f.id === fileId)
    assert.ok(trashed, 'the file is in the trash')
    assert.equal(trashed.originId, home)
    assert.equal(trashed.originTitle, 'Trash test')
    assert.equal(trashed.rootFolderType, 3)
    // The day the trash retention (FOLIO_TRASH_RETENTION, 7 days here) deletes it for good.
    const autoDelete = Date.parse(trashed.autoDelete) - 7 * 24 * 3_600_000
    assert.ok(autoDelete >= deletedFrom && autoDelete <= deletedBy, trashed.autoDelete)
    const open = await api('GET', `/files/file/${fileId}/openedit`)
    assert.equal(open.status, 400, 'a trashed file cannot be opened in the editor')
    const restored = await api('PUT', '/files/fileops/restore', { fileIds: [fileId], folderIds: [] })
    assert.equal(restored.status, 200)
    const back = await api('GET', `/files/file/${fileId}`)
    assert.equal(back.json.response.folderId, home)
    assert.equal(back.json.response.rootFolderType, 5)
    assert.equal(back.json.response.originId, undefined)

    const folderId = await newFolder(home, 'Old stuff')
    const inner = await newFile(folderId, 'Inner.docx')
    const delFolder = await api('DELETE', `/files/folder/${folderId}`)
    assert.equal(delFolder.status, 200)
    assert.equal(delFolder.json.response.at(-1).operation, 2)
    assert.equal(delFolder.json.response.at(-1).finished, true)
    const innerInfo = await api('GET', `/files/file/${inner}`)
    assert.equal(innerInfo.json.response.rootFolderType, 3, "the folder's content followed it into the trash")
    // Moving back out of the trash with fileops/move restores too.
    const moved = await api('PUT', '/files/fileops/move', { destFolderId: home, folderIds: [folderId], fileIds: [] })
    assert.equal(moved.status, 200)
    assert.equal((await api('GET', `/files/file/${inner}`)).json.response.rootFolderType, 5)

    await api('PUT', '/files/fileops/delete', { folderIds: [folderId], fileIds: [fileId] })
    const empty = await api('PUT', '/files/fileops/emptytrash')
    assert.equal(empty.status, 200)
    assert.equal((await api('GET', `/files/file/${fileId}`)).status, 404)
    assert.equal((await api('GET', `/files/file/${inner}`)).status, 404)
    assert.equal((await api('GET', `/files/folder/${folderId}`)).status, 404)
    assert.equal((await api('GET', '/files/@trash')).json.response.total, 0)
  })

  test('deleting immediately skips the trash', async () => {
    const fileId = await newFile('@my', 'Gone now.docx')
    const reply = await call(server.url, 'DELETE', `/api/2.0/files/file/${fileId}?immediately=true`, { token })
    assert.equal(reply.status, 200)
    assert.equal((await api('GET', `/files/file/${fileId}`)).status, 404)
  })

  test('move and copy with Skip, Overwrite and Duplicate', async () => {
    const src = await newFolder('@my', 'Source')
    const dst = await newFolder('@my', 'Target')
    const original = await upload(src, 'same.txt', 'from source')
    await upload(dst, 'same.txt', 'already there')
    const srcId = original.json.response.id

    const skipped = await api('PUT', '/files/fileops/copy', {
      destFolderId: dst,
      fileIds: [srcId],
      conflictResolveType: 0,
    })
    assert.equal(skipped.status, 200)
    assert.equal(skipped.json.response.at(-1).operation, 1)
    assert.equal(skipped.json.response.at(-1).files.length, 0)

    const duplicated = await api('PUT', '/files/fileops/copy', {
      destFolderId: dst,
      fileIds: [srcId],
      conflictResolveType: 2,
    })
    const copy = duplicated.json.response.at(-1).files[0]
    assert.equal(copy.title, 'same (2).txt')
    assert.notEqual(copy.id, srcId)
    const copyBytes = await call(server.url, 'GET', `/api/2.0/files/file/${copy.id}/download`, { token })
    assert.equal(copyBytes.text, 'from source')

    const overwritten = await api('PUT', '/files/fileops/copy', {
      destFolderId: dst,
      fileIds: [srcId],
      conflictResolveType: 1,
    })
    const replaced = overwritten.json.response.at(-1).files[0]
    assert.equal(replaced.title, 'same.txt')
    const listing = await api('GET', `/files/${dst}?sortBy=AZ`)
    assert.deepEqual(
      listing.json.response.files.map((f: { title: string }) => f.title),
      ['same (2).txt', 'same.txt'],
    )
    assert.equal(
      (await call(server.url, 'GET', `/api/2.0/files/file/${replaced.id}/download`, { token })).text,
      'from source',
    )

    // Deleting the original for good never removes the copies' bytes.
    await call(server.url, 'DELETE', `/api/2.0/files/file/${srcId}?immediately=true`, { token })
    assert.equal(
      (await call(server.url, 'GET', `/api/2.0/files/file/${copy.id}/download`, { token })).text,
      'from source',
    )

    // Move: Skip leaves it, Duplicate renames, the id stays.
    const mover = (await upload(src, 'same.txt', 'mover')).json.response.id
    const skipMove = await api('PUT', '/files/fileops/move', {
      destFolderId: dst,
      fileIds: [mover],
      conflictResolveType: 0,
    })
    assert.equal(skipMove.json.response.at(-1).files.length, 0)
    assert.equal((await api('GET', `/files/file/${mover}`)).json.response.folderId, src)
    const dupMove = await api('PUT', '/files/fileops/move', {
      destFolderId: dst,
      fileIds: [mover],
      conflictResolveType: 2,
    })
    assert.equal(dupMove.json.response.at(-1).operation, 0)
    const movedFile = dupMove.json.response.at(-1).files[0]
    assert.equal(movedFile.id, mover)
    assert.equal(movedFile.folderId, dst)
    assert.equal(movedFile.title, 'same (3).txt')
    const overMove = await api('PUT', '/files/fileops/move', {
      destFolderId: src,
      fileIds: [mover],
      conflictResolveType: 1,
    })
    assert.equal(overMove.json.response.at(-1).files[0].folderId, src)

    const ops = await api('GET', '/files/fileops')
    assert.equal(ops.status, 200)
    assert.ok(Array.isArray(ops.json.response))
  })

  test('a folder cannot move into itself; a move keeps lock and id', async () => {
    const outer = await newFolder('@my', 'Outer')
    const inner = await newFolder(outer, 'Inner')
    const cycle = await api('PUT', '/files/fileops/move', { destFolderId: inner, folderIds: [outer] })
    assert.equal(cycle.status, 400)
    const fileId = await newFile('@my', 'Locked.docx')
    const file = await server.ctx.store.files.findById(fileId)
    assert.ok(file)
    const lock = { lockId: 'wopi-lock-1', expiresAt: clock.now() + 60_000 }
    await server.ctx.store.files.update(fileId, file.revision, { lock })
    const moved = await api('PUT', '/files/fileops/move', { destFolderId: inner, fileIds: [fileId] })
    assert.equal(moved.status, 200)
    const after = await server.ctx.store.files.findById(fileId)
    assert.equal(after?.folderId, inner)
    assert.deepEqual(after?.lock, lock)
  })

  test('bad operation bodies are 400 and change nothing', async () => {
    for (const body of [{}, { destFolderId: '@my', fileIds: 'x' }, { destFolderId: '@my', conflictResolveType: 9 }]) {
      const reply = await api('PUT', '/files/fileops/move', body)
      assert.equal(reply.status, 400, JSON.stringify(body))
    }
    const other = await newFile('@my', 'Mine.docx')
    const stolen = await api('PUT', '/files/fileops/move', { destFolderId: '@my', fileIds: [other] }, bobToken)
    assert.equal(stolen.status, 404)
  })

  test('the housekeeping empties what has been in the trash longer than FOLIO_TRASH_RETENTION', async () => {
    const fileId = await newFile('@my', 'Old trash.docx')
    await api('DELETE', `/files/file/${fileId}`)
    const { runHousekeeping } = await import('../../src/app/maintenance/garbage-collection.js')
    await runHousekeeping(server.ctx)
    assert.equal((await api('GET', `/files/file/${fileId}`)).status, 200, 'kept within the retention')
    clock.advance(8 * 24 * 3_600_000)
    token = await signIn(server.url)
    const report = await runHousekeeping(server.ctx)
    assert.ok(report.trashedFilesPurged >= 1)
    assert.equal((await api('GET', `/files/file/${fileId}`)).status, 404)
  })

  test('ONLYOFFICE client endpoints', async () => {
    for (const path of ['/capabilities', '/capabilities.json']) {
      const reply = await call(server.url, 'GET', `/api/2.0${path}`)
      assert.equal(reply.status, 200)
      assert.deepEqual(reply.json.response, {
        ldapEnabled: false,
        oauthEnabled: false,
        providers: [],
        ssoLabel: '',
        ssoUrl: '',
      })
    }
    const build = await api('GET', '/settings/version/build.json')
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'))
    // The Workspace API version the apps need (see PORTAL_API_VERSION); Folio's own beside it.
    assert.equal(build.json.response.communityServer, '11.5.0.1')
    assert.equal(build.json.response.folio, version)
    assert.equal(build.json.response.documentServer, '')
    const settings = await api('GET', '/settings')
    assert.equal(settings.json.response.personal, false)
    assert.equal((await call(server.url, 'GET', '/api/2.0/settings')).status, 401)
  })
})
