import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createUser } from '../../src/app/accounts/accounts.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'

/**
 * Copies, moves and merges by someone a folder is shared with: each destination folder
 * they write into is checked when it is reached, and the conflict check lists only what
 * the caller may see.
 */
describe('folder operations decide access on every folder they write into', () => {
  let server: TestServer
  let alice: string
  let bob: { id: string; token: string }

  before(async () => {
    server = await startTestServer()
    alice = await signIn(server.url)
    const user = await createUser(server.ctx, { userName: 'bob', password: 'bob-password-1' })
    bob = { id: user.id, token: await signIn(server.url, 'bob', 'bob-password-1') }
  })
  after(() => server.dispose())

  const api = (token: string, method: string, path: string, body?: unknown): Promise<ApiReply> =>
    call(server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })

  async function folder(token: string, parent: string, title: string): Promise<string> {
    const reply = await api(token, 'POST', `/files/folder/${parent}`, { title })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function file(token: string, folderId: string, title: string, text: string): Promise<string> {
    const reply = await call(
      server.url,
      'POST',
      `/api/2.0/files/${folderId}/upload?title=${encodeURIComponent(title)}`,
      {
        token,
        raw: text,
        headers: { 'Content-Type': 'application/octet-stream' },
      },
    )
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function shareWithBob(kind: 'file' | 'folder', id: string, access: number): Promise<void> {
    const reply = await api(alice, 'PUT', `/files/${kind}/${id}/share`, { share: [{ shareTo: bob.id, access }] })
    assert.equal(reply.status, 200, reply.text)
  }

  const titlesIn = async (folderId: string): Promise<string[]> => {
    const listing = (await api(alice, 'GET', `/files/${folderId}`)).json.response
    return [...listing.folders, ...listing.files].map((item: { title: string }) => item.title).sort()
  }

  test('a copy with Overwrite does not write into a sub-folder marked Restrict or Read for the sharee', async () => {
    const team = await folder(alice, '@my', 'Team')
    const hidden = await folder(alice, team, 'Sub')
    await file(alice, hidden, 'secret.txt', 'secret')
    const readOnly = await folder(alice, team, 'ReadSub')
    await file(alice, readOnly, 'r.txt', 'r')
    await shareWithBob('folder', team, 1)
    await shareWithBob('folder', hidden, 3)
    await shareWithBob('folder', readOnly, 2)

    const pack = await folder(bob.token, '@my', 'Pack')
    const bobSub = await folder(bob.token, pack, 'Sub')
    await file(bob.token, bobSub, 'planted.txt', 'planted')
    const bobReadSub = await folder(bob.token, pack, 'ReadSub')
    await file(bob.token, bobReadSub, 'planted.txt', 'planted')

    const reply = await api(bob.token, 'PUT', '/files/fileops/copy', {
      destFolderId: team,
      folderIds: [bobSub, bobReadSub],
      fileIds: [],
      conflictResolveType: 1,
    })
    assert.equal(reply.status, 200, reply.text)
    assert.deepEqual(await titlesIn(hidden), ['secret.txt'])
    assert.deepEqual(await titlesIn(readOnly), ['r.txt'])
    assert.equal(reply.text.includes(hidden), false, "the hidden folder's id is not in the reply")
    assert.equal(reply.text.includes(readOnly), false)
  })

  test('the conflict check answers the same for a name inside a folder hidden from the caller as for a free one', async () => {
    const team = await folder(alice, '@my', 'Probe team')
    const hidden = await folder(alice, team, 'Vault')
    await file(alice, hidden, 'plans.txt', 'plans')
    const hiddenFile = await file(alice, team, 'hidden.docx', 'hidden')
    await shareWithBob('folder', team, 1)
    await shareWithBob('folder', hidden, 3)
    await shareWithBob('file', hiddenFile, 3)

    const mine = await folder(bob.token, '@my', 'Probe')
    const vault = await folder(bob.token, mine, 'Vault')
    await file(bob.token, vault, 'plans.txt', 'guess')
    const guess = await folder(bob.token, mine, 'Guess')
    const other = await folder(bob.token, guess, 'Vault')
    await file(bob.token, other, 'nothing-like-it.txt', 'guess')
    const ownFile = await file(bob.token, mine, 'hidden.docx', 'guess')
    const freeFile = await file(bob.token, mine, 'free.docx', 'guess')

    const check = (query: string) => api(bob.token, 'GET', `/files/fileops/move?destFolderId=${team}&${query}`)
    const existing = await check(`folderIds=${vault}`)
    const free = await check(`folderIds=${other}`)
    assert.equal(existing.status, 200, existing.text)
    assert.deepEqual(existing.json.response, [])
    assert.equal(free.status, existing.status)
    assert.deepEqual(free.json.response, existing.json.response)
    const takenFile = await check(`fileIds=${ownFile}`)
    const freeName = await check(`fileIds=${freeFile}`)
    assert.equal(takenFile.status, 200, takenFile.text)
    assert.deepEqual(takenFile.json.response, freeName.json.response)
  })

  test('a copy cut short by a revoked share says it stopped and what it did, not progress 100 and no error', async () => {
    const big = await folder(alice, '@my', 'Big')
    for (let i = 0; i < 12; i++) await file(alice, big, `f${String(i).padStart(2, '0')}.txt`, `file ${i}`)
    await shareWithBob('folder', big, 2)
    // Alice removes the share once two copies are made: the copy is then mid-way.
    const files = server.ctx.store.files
    const create = files.create.bind(files)
    let made = 0
    files.create = async (...args: Parameters<typeof create>) => {
      const created = await create(...args)
      made++
      if (made === 2) await shareWithBob('folder', big, 0)
      return created
    }
    let reply: ApiReply
    try {
      reply = await api(bob.token, 'PUT', '/files/fileops/copy', {
        destFolderId: '@my',
        folderIds: [big],
        fileIds: [],
        conflictResolveType: 2,
      })
    } finally {
      files.create = create
    }
    // The refusal that stopped it answers the call, with what was done before.
    assert.equal(reply.status, 404, reply.text)
    assert.match(reply.json.error.message, /stopped after 2 files and 1 folder/)
    const ops = (await api(bob.token, 'GET', '/files/fileops')).json.response
    // Oldest first: an earlier test's copy may still be listed once (a call's own operation
    // stays for the poll after its reply), so this copy is the last one.
    const copy = ops.filter((op: { operation: number }) => op.operation === 1).at(-1)
    assert.ok(copy, JSON.stringify(ops))
    assert.equal(copy.finished, true)
    assert.notEqual(copy.error, '', 'it says it stopped')
    assert.match(copy.error, /stopped/)
    assert.match(copy.error, /2 files/)
    const mine = (await api(bob.token, 'GET', '/files/@my')).json.response
    const copied = mine.folders.find((f: { title: string }) => f.title === 'Big')
    assert.ok(copied)
    assert.equal((await api(bob.token, 'GET', `/files/${copied.id}`)).json.response.files.length, 2)
  })
})
