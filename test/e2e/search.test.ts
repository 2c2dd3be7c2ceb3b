import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'

const FIXTURES = new URL('../fixtures/search/', import.meta.url)

/** Polls `check` until it holds: indexing runs in the background. Fails after `tries` polls. */
async function until<T>(what: string, check: () => Promise<T | undefined>, tries = 300): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}

/**
 * Search through the portal API: `GET files/@search/{text}` and folder listings with
 * `withsubfolders` and `searchInContent`, over documents of every format Folio reads,
 * nested and shared folders, the trash, new versions and hostile queries.
 */
describe('search', () => {
  let server: TestServer
  let owner: string
  let bob: { id: string; token: string }
  let carol: { id: string; token: string }
  let my: string

  before(async () => {
    server = await startTestServer()
    owner = await signIn(server.url)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    const b = await createUser(server.ctx, { userName: 'bob', password: 'bob-password-1' })
    const c = await createUser(server.ctx, { userName: 'carol', password: 'carol-password-1' })
    bob = { id: b.id, token: await signIn(server.url, 'bob', 'bob-password-1') }
    carol = { id: c.id, token: await signIn(server.url, 'carol', 'carol-password-1') }
    my = (await api(owner, 'GET', '/files/@my')).json.response.current.id
  })
  after(() => server.dispose())

  const api = (token: string, method: string, path: string, body?: unknown): Promise<ApiReply> =>
    call(server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })

  async function newFolder(token: string, parent: string, title: string): Promise<string> {
    const reply = await api(token, 'POST', `/files/folder/${parent}`, { title })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function upload(token: string, folder: string, title: string, bytes: Uint8Array | string): Promise<string> {
    const reply = await call(server.url, 'POST', `/api/2.0/files/${folder}/upload?title=${encodeURIComponent(title)}`, {
      token,
      raw: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function search(token: string, text: string): Promise<ApiReply> {
    return api(token, 'GET', `/files/@search/${encodeURIComponent(text)}`)
  }

  /** The ids @search answers for `text`. */
  async function found(token: string, text: string): Promise<string[]> {
    const reply = await search(token, text)
    assert.equal(reply.status, 200, reply.text)
    return reply.json.response.map((item: { id: string }) => item.id)
  }

  /** Waits until `fileId` is indexed at its current version, by searching for a word of it. */
  const foundEventually = (token: string, text: string, fileId: string) =>
    until(`${text} finds ${fileId}`, async () => ((await found(token, text)).includes(fileId) ? true : undefined))

  test('every format: the words inside are found, with a snippet', async () => {
    const folder = await newFolder(owner, my, 'Formats')
    const cases: Array<[string, Uint8Array | string, string]> = [
      ['report.docx', readFileSync(new URL('source-text.docx', FIXTURES)), 'wordprocessorword'],
      ['report.odt', readFileSync(new URL('source-text.odt', FIXTURES)), 'marmalade'],
      ['report.pdf', readFileSync(new URL('source-text.pdf', FIXTURES)), 'brûlée'],
      ['ledger.xlsx', readFileSync(new URL('source-sheet.xlsx', FIXTURES)), 'spreadsheetword'],
      ['ledger.ods', readFileSync(new URL('source-sheet.ods', FIXTURES)), 'spreadsheetword'],
      ['deck.pptx', readFileSync(new URL('source-slides.pptx', FIXTURES)), 'slideword'],
      ['deck.odp', readFileSync(new URL('source-slides.odp', FIXTURES)), 'slideword'],
      ['notes.txt', 'plain notes with textfileword inside', 'textfileword'],
      ['table.csv', 'name;value\ncsvcellword;1\n', 'csvcellword'],
      ['readme.md', '# Heading\n\nmarkdownword here', 'markdownword'],
      ['page.html', '<html><body><p>Caf&eacute; htmlword</p><script>scriptword()</script></body></html>', 'htmlword'],
    ]
    const ids = new Map<string, string>()
    for (const [title, bytes] of cases) ids.set(title, await upload(owner, folder, title, bytes))
    for (const [title, , word] of cases) {
      const id = ids.get(title) ?? ''
      await foundEventually(owner, word, id)
      const reply = await search(owner, word)
      const item = reply.json.response.find((entry: { id: string }) => entry.id === id)
      assert.equal(item.title, title)
      assert.equal(typeof item.snippet, 'string', `${title} has a snippet`)
    }
    // Both the docx and the odt hold the same words; the pdf too.
    const both = await found(owner, 'Zanzibar office')
    for (const title of ['report.docx', 'report.odt', 'report.pdf'])
      assert.ok(both.includes(ids.get(title) ?? ''), title)
    // Script content of a page is not its text.
    assert.deepEqual(await found(owner, 'scriptword'), [])
    // Case and accents do not matter.
    assert.ok((await found(owner, 'CAFE HTMLWORD')).includes(ids.get('page.html') ?? ''))
  })

  test('nested folders: a document two folders down is found by name and by content', async () => {
    const outer = await newFolder(owner, my, 'Outer')
    const inner = await newFolder(owner, outer, 'Inner quasar')
    const deep = await upload(owner, inner, 'Deep nebula.txt', 'the pulsarword lives here')
    await foundEventually(owner, 'pulsarword', deep)
    // Names, immediately, from any folder above.
    const byName = await api(owner, 'GET', `/files/${outer}?withsubfolders=true&filterValue=nebula`)
    assert.equal(byName.status, 200, byName.text)
    assert.deepEqual(
      byName.json.response.files.map((f: { id: string }) => f.id),
      [deep],
    )
    assert.deepEqual(byName.json.response.folders, [])
    assert.equal(byName.json.response.current.id, outer)
    const folderByName = await api(owner, 'GET', `/files/@my?withsubfolders=true&filterValue=quasar`)
    assert.deepEqual(
      folderByName.json.response.folders.map((f: { id: string }) => f.id),
      [inner],
    )
    // Content only with searchInContent.
    const byWords = await api(owner, 'GET', `/files/${outer}?withsubfolders=true&filterValue=pulsarword`)
    assert.deepEqual(byWords.json.response.files, [])
    const inContent = await api(
      owner,
      'GET',
      `/files/${outer}?withsubfolders=true&searchInContent=true&filterValue=pulsarword`,
    )
    assert.deepEqual(
      inContent.json.response.files.map((f: { id: string }) => f.id),
      [deep],
    )
    assert.match(inContent.json.response.files[0].snippet, /pulsarword/)
    // Without withsubfolders the folder's own listing filters as before.
    const plain = await api(owner, 'GET', `/files/${outer}?filterValue=nebula`)
    assert.deepEqual(plain.json.response.files, [])
  })

  test('name matches come first', async () => {
    const folder = await newFolder(owner, my, 'Ranking')
    const byWords = await upload(owner, folder, 'first.txt', 'orchidword is mentioned here')
    const byName = await upload(owner, folder, 'orchidword.txt', 'nothing of note')
    // Both indexed (their jobs may run in either order), then the name match ranks first.
    await foundEventually(owner, 'orchidword', byWords)
    await foundEventually(owner, 'orchidword', byName)
    const ids = await found(owner, 'orchidword')
    assert.deepEqual(ids, [byName, byWords])
  })

  test('shared folders: a sharee finds what is shared, nobody else does, and a removed share hides it at once', async () => {
    const team = await newFolder(owner, my, 'Team')
    const sub = await newFolder(owner, team, 'Sub')
    const doc = await upload(owner, sub, 'minutes.txt', 'the galleonword decision')
    const single = await upload(owner, my, 'single.txt', 'galleonword alone')
    await foundEventually(owner, 'galleonword', doc)
    await foundEventually(owner, 'galleonword', single)
    assert.deepEqual(await found(bob.token, 'galleonword'), [])

    const share = await api(owner, 'PUT', `/files/folder/${team}/share`, { share: [{ shareTo: bob.id, access: 2 }] })
    assert.equal(share.status, 200, share.text)
    const shareFile = await api(owner, 'PUT', `/files/file/${single}/share`, {
      share: [{ shareTo: carol.id, access: 2 }],
    })
    assert.equal(shareFile.status, 200, shareFile.text)
    assert.deepEqual(await found(bob.token, 'galleonword'), [doc])
    assert.deepEqual(await found(carol.token, 'galleonword'), [single])
    const item = (await search(bob.token, 'galleonword')).json.response[0]
    assert.equal(item.rootFolderType, 6)
    // By name in the shared folder's subtree.
    const listing = await api(bob.token, 'GET', `/files/${team}?withsubfolders=true&filterValue=minutes`)
    assert.deepEqual(
      listing.json.response.files.map((f: { id: string }) => f.id),
      [doc],
    )

    const removed = await api(owner, 'PUT', `/files/folder/${team}/share`, { share: [{ shareTo: bob.id, access: 0 }] })
    assert.equal(removed.status, 200, removed.text)
    assert.deepEqual(await found(bob.token, 'galleonword'), [])
    assert.equal((await api(bob.token, 'GET', `/files/${team}?withsubfolders=true&filterValue=minutes`)).status, 404)
  })

  test('trash: found only when searching the trash, and only by its owner', async () => {
    const doc = await upload(owner, my, 'old plans.txt', 'the trebuchetword design')
    await foundEventually(owner, 'trebuchetword', doc)
    const shared = await api(owner, 'PUT', `/files/file/${doc}/share`, { share: [{ shareTo: bob.id, access: 2 }] })
    assert.equal(shared.status, 200)
    assert.deepEqual(await found(bob.token, 'trebuchetword'), [doc])
    const deleted = await api(owner, 'PUT', '/files/fileops/delete', { fileIds: [doc], folderIds: [] })
    assert.equal(deleted.status, 200, deleted.text)
    await until('the delete ended', async () => ((await found(owner, 'trebuchetword')).length === 0 ? true : undefined))
    assert.deepEqual(await found(bob.token, 'trebuchetword'), [])
    const inTrash = await api(
      owner,
      'GET',
      '/files/@trash?withsubfolders=true&searchInContent=true&filterValue=trebuchetword',
    )
    assert.equal(inTrash.status, 200, inTrash.text)
    assert.deepEqual(
      inTrash.json.response.files.map((f: { id: string }) => f.id),
      [doc],
    )
    const byName = await api(owner, 'GET', '/files/@trash?withsubfolders=true&filterValue=old plans')
    assert.deepEqual(
      byName.json.response.files.map((f: { id: string }) => f.id),
      [doc],
    )
  })

  test("a new version's words replace the old version's", async () => {
    const doc = await upload(owner, my, 'evolving.txt', 'first draft mentions zeppelinword')
    await foundEventually(owner, 'zeppelinword', doc)
    const token = (await api(owner, 'POST', `/files/file/${doc}/wopi?mode=edit`)).json.response.accessToken
    const wopi = (override: string, headers: Record<string, string>, body?: string) =>
      call(
        server.url,
        'POST',
        `/wopi/files/${doc}${body === undefined ? '' : '/contents'}?access_token=${encodeURIComponent(token)}`,
        {
          headers: { 'X-WOPI-Override': override, ...headers },
          ...(body === undefined ? {} : { raw: body }),
        },
      )
    assert.equal((await wopi('LOCK', { 'X-WOPI-Lock': 'L1' })).status, 200)
    assert.equal((await wopi('PUT', { 'X-WOPI-Lock': 'L1' }, 'second draft mentions dirigibleword')).status, 200)
    await foundEventually(owner, 'dirigibleword', doc)
    assert.deepEqual(await found(owner, 'zeppelinword'), [])
  })

  test('a file deleted for good takes its words with it', async () => {
    const doc = await upload(owner, my, 'shortlived.txt', 'ephemeralword')
    await foundEventually(owner, 'ephemeralword', doc)
    const deleted = await api(owner, 'PUT', '/files/fileops/delete', {
      fileIds: [doc],
      folderIds: [],
      immediately: true,
    })
    assert.equal(deleted.status, 200, deleted.text)
    await until('the delete ended', async () => ((await found(owner, 'ephemeralword')).length === 0 ? true : undefined))
    assert.equal(await server.ctx.store.search.indexedVersion(doc), undefined)
    const inTrash = await api(
      owner,
      'GET',
      '/files/@trash?withsubfolders=true&searchInContent=true&filterValue=ephemeralword',
    )
    assert.deepEqual(inTrash.json.response.files, [])
  })

  test("hostile queries are data: never a 500, never another user's documents", async () => {
    const secret = await upload(carol.token, '@my', 'carol secret.txt', 'carolsecretword % _ * " \\')
    await foundEventually(carol.token, 'carolsecretword', secret)
    const hostile = [
      '"',
      "'",
      '*',
      '%',
      '_',
      '\\',
      '"carolsecretword"',
      'carolsecretword*',
      'carolsecretword OR x',
      'NEAR(a b)',
      "'; DROP TABLE files; --",
      'x:*',
      '(',
      ')',
      '&',
      '|',
      '!',
      '\u0000',
      '\u0000carolsecretword',
      '\uFFFF',
      'a'.repeat(2048),
      '.json',
      ' ',
      '%%',
      'é'.repeat(600),
    ]
    for (const text of hostile) {
      const reply = await search(owner, text)
      assert.ok(
        reply.status === 200 || reply.status === 400,
        `${JSON.stringify(text.slice(0, 20))}: ${reply.status} ${reply.text.slice(0, 200)}`,
      )
      if (reply.status === 200)
        assert.ok(!reply.json.response.some((i: { id: string }) => i.id === secret), text.slice(0, 20))
      const listing = await api(
        owner,
        'GET',
        `/files/@my?withsubfolders=true&searchInContent=true&filterValue=${encodeURIComponent(text)}`,
      )
      assert.ok(
        listing.status === 200 || listing.status === 400,
        `listing ${JSON.stringify(text.slice(0, 20))}: ${listing.status}`,
      )
    }
    // Bytes that are not UTF-8 in the path.
    for (const raw of ['%FF', '%C3', '%ED%A0%80', '%00']) {
      const reply = await call(server.url, 'GET', `/api/2.0/files/@search/${raw}`, { token: owner })
      assert.ok(reply.status === 200 || reply.status === 400, `${raw}: ${reply.status} ${reply.text.slice(0, 200)}`)
    }
    // Carol's own search still works with the same words.
    assert.deepEqual(await found(carol.token, '"carolsecretword"'), [secret])
    // No words: nothing found.
    assert.deepEqual(await found(owner, ''), [])
  })

  test('without a sign-in there is no search', async () => {
    const reply = await call(server.url, 'GET', '/api/2.0/files/@search/anything')
    assert.equal(reply.status, 401)
  })
})
