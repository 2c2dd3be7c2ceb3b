import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'
import { readZip } from '../support/zip.js'

/**
 * Downloading several files and folders as one zip archive (ONLYOFFICE's bulk download:
 * `PUT files/fileops/bulkdownload` finishes an operation whose url fetches the archive):
 * the folders' trees as they are, what a sharee may not read left out, refusals before
 * any byte, and a blob that cannot be read cutting the download short without harm.
 */
describe('bulk download of files and folders as a zip archive', () => {
  let server: TestServer
  let owner: string
  let bob: { id: string; token: string }
  let carol: string

  before(async () => {
    server = await startTestServer()
    owner = await signIn(server.url)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    const b = await createUser(server.ctx, { userName: 'bob', password: 'bob-password-1' })
    await createUser(server.ctx, { userName: 'carol', password: 'carol-password-1' })
    bob = { id: b.id, token: await signIn(server.url, 'bob', 'bob-password-1') }
    carol = await signIn(server.url, 'carol', 'carol-password-1')
  })
  after(() => server.dispose())

  const api = (token: string, method: string, path: string, body?: unknown): Promise<ApiReply> =>
    call(server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })

  async function newFolder(parent: string, title: string): Promise<string> {
    const reply = await api(owner, 'POST', `/files/folder/${parent}`, { title })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function upload(folder: string, title: string, bytes: Buffer | string): Promise<string> {
    const reply = await call(server.url, 'POST', `/api/2.0/files/${folder}/upload?title=${encodeURIComponent(title)}`, {
      token: owner,
      raw: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  /** Fetches an archive url with `token`; the body as bytes. */
  async function fetchArchive(url: string, token: string) {
    const response = await fetch(url, { headers: { Authorization: token } })
    const body = Buffer.from(await response.arrayBuffer())
    return { status: response.status, headers: response.headers, body }
  }

  let team = ''
  let loose = ''
  const big = Buffer.alloc(5 * 1024 * 1024 + 17, 'big-file ')

  test('the operation finishes at once with a url; the archive holds the folder tree and the file', async () => {
    const my = (await api(owner, 'GET', '/files/@my')).json.response.current.id
    team = await newFolder(my, 'Team')
    const inner = await newFolder(team, 'Inner')
    await newFolder(team, 'Empty')
    await upload(team, 'Plan.docx', 'the plan')
    await upload(team, 'Big.bin', big)
    await upload(inner, 'Deep.txt', 'deep down')
    loose = await upload(my, 'Loose.txt', 'on its own')

    const started = await api(owner, 'PUT', '/files/fileops/bulkdownload', { folderIds: [team], fileIds: [loose] })
    assert.equal(started.status, 200, started.text)
    const op = started.json.response.find((o: { operation: number }) => o.operation === 3)
    assert.ok(op, started.text)
    assert.equal(op.finished, true)
    assert.equal(op.progress, 100)
    assert.equal(op.error, '')
    assert.deepEqual(
      op.folders.map((f: { id: string }) => f.id),
      [team],
    )
    assert.deepEqual(
      op.files.map((f: { id: string }) => f.id),
      [loose],
    )
    assert.match(op.url, /^http:\/\/[^/]+\/api\/2\.0\/files\/fileops\/bulkdownload\?/)

    const archive = await fetchArchive(op.url, owner)
    assert.equal(archive.status, 200)
    assert.equal(archive.headers.get('content-type'), 'application/zip')
    assert.match(archive.headers.get('content-disposition') ?? '', /filename="?Documents\.zip"?$/)
    assert.equal(Number(archive.headers.get('content-length')), archive.body.length)
    const entries = await readZip(archive.body)
    assert.deepEqual([...entries.keys()].sort(), [
      'Loose.txt',
      'Team/',
      'Team/Big.bin',
      'Team/Empty/',
      'Team/Inner/',
      'Team/Inner/Deep.txt',
      'Team/Plan.docx',
    ])
    assert.equal(entries.get('Team/Plan.docx')?.toString(), 'the plan')
    assert.equal(entries.get('Team/Inner/Deep.txt')?.toString(), 'deep down')
    assert.equal(entries.get('Loose.txt')?.toString(), 'on its own')
    const sha = (bytes: Buffer | null | undefined) =>
      createHash('sha256')
        .update(bytes ?? Buffer.alloc(0))
        .digest('hex')
    assert.equal(sha(entries.get('Team/Big.bin')), sha(big))

    // The poll after the reply still finds it finished (ONLYOFFICE's apps look for it
    // there); the poll after that no more.
    const polled = await api(owner, 'GET', '/files/fileops')
    assert.equal(polled.json.response.find((o: { id: string }) => o.id === op.id)?.finished, true)
    const again = await api(owner, 'GET', '/files/fileops')
    assert.equal(
      again.json.response.some((o: { id: string }) => o.id === op.id),
      false,
    )
  })

  test('one folder alone is named after it', async () => {
    const archive = await fetchArchive(`${server.url}/api/2.0/files/fileops/bulkdownload?folderIds=${team}`, owner)
    assert.equal(archive.status, 200)
    assert.match(archive.headers.get('content-disposition') ?? '', /filename="?Team\.zip"?$/)
  })

  test('someone a folder is shared with gets only what they may read; anyone else nothing', async () => {
    const secret = await upload(team, 'Secret.docx', 'not for bob')
    const shared = await api(owner, 'PUT', `/files/folder/${team}/share`, { share: [{ shareTo: bob.id, access: 2 }] })
    assert.equal(shared.status, 200, shared.text)
    const restricted = await api(owner, 'PUT', `/files/file/${secret}/share`, {
      share: [{ shareTo: bob.id, access: 3 }],
    })
    assert.equal(restricted.status, 200, restricted.text)

    const archive = await fetchArchive(`${server.url}/api/2.0/files/fileops/bulkdownload?folderIds=${team}`, bob.token)
    assert.equal(archive.status, 200)
    const entries = await readZip(archive.body)
    assert.ok(entries.has('Team/Plan.docx'))
    assert.equal(entries.has('Team/Secret.docx'), false, 'a Restrict entry hides the file from the archive')

    // Carol has no access: the folder does not exist for her, and nothing is recorded.
    const refused = await api(carol, 'PUT', '/files/fileops/bulkdownload', { folderIds: [team] })
    assert.equal(refused.status, 404, refused.text)
    const direct = await fetchArchive(`${server.url}/api/2.0/files/fileops/bulkdownload?folderIds=${team}`, carol)
    assert.equal(direct.status, 404)
    // Bob may read the folder but not the loose file: the whole request is refused.
    const mixed = await api(bob.token, 'PUT', '/files/fileops/bulkdownload', { folderIds: [team], fileIds: [loose] })
    assert.equal(mixed.status, 404, mixed.text)
  })

  test('bad requests get a 400 with a message, before any byte of an archive', async () => {
    const empty = await api(owner, 'PUT', '/files/fileops/bulkdownload', { folderIds: [], fileIds: [] })
    assert.equal(empty.status, 400, empty.text)
    assert.match(empty.json.error.message, /at least one/)
    const convert = await api(owner, 'PUT', '/files/fileops/bulkdownload', {
      fileIds: [loose],
      fileConvertIds: [{ key: loose }],
    })
    assert.equal(convert.status, 400, convert.text)
    assert.match(convert.text, /fileConvertIds/)
    const none = await fetchArchive(`${server.url}/api/2.0/files/fileops/bulkdownload`, owner)
    assert.equal(none.status, 400)
    const unsigned = await fetchArchive(`${server.url}/api/2.0/files/fileops/bulkdownload?fileIds=${loose}`, '')
    assert.equal(unsigned.status, 401)
  })

  test('a file whose bytes cannot be read cuts the download short, and Folio keeps serving', async () => {
    const my = (await api(owner, 'GET', '/files/@my')).json.response.current.id
    const broken = await newFolder(my, 'Broken')
    await upload(broken, 'A.bin', Buffer.alloc(256 * 1024, 'a'))
    const lostId = await upload(broken, 'B.bin', Buffer.alloc(256 * 1024, 'b'))
    const lost = await server.ctx.store.files.findById(lostId)
    assert.ok(lost)
    await server.ctx.blobs.delete(lost.blobKey)

    const response = await fetch(`${server.url}/api/2.0/files/fileops/bulkdownload?folderIds=${broken}`, {
      headers: { Authorization: owner },
    })
    assert.equal(response.status, 200)
    const declared = Number(response.headers.get('content-length'))
    let received = 0
    let cut = false
    try {
      for await (const chunk of response.body ?? []) received += chunk.length
    } catch {
      cut = true
    }
    assert.ok(cut || received < declared, `the archive was cut short (${received} of ${declared} bytes)`)
    assert.equal((await call(server.url, 'GET', '/healthz')).status, 200)
  })
})

/**
 * A download of several files takes a while; a share removed while it runs must keep the
 * files the archive has not reached yet from the downloader (each file's access is asked
 * when its bytes are read, not only when the download starts).
 */
describe('bulk download while a share is removed', () => {
  let server: TestServer
  after(() => server?.dispose())

  test('files reached after the share is removed are not sent, and the download ends short', async () => {
    server = await startTestServer()
    const owner = await signIn(server.url)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    const bob = await createUser(server.ctx, { userName: 'bob', password: 'bob-password-1' })
    const bobToken = await signIn(server.url, 'bob', 'bob-password-1')
    const my = (await call(server.url, 'GET', '/api/2.0/files/@my', { token: owner })).json.response.current.id
    const made = await call(server.url, 'POST', `/api/2.0/files/folder/${my}`, {
      token: owner,
      body: { title: 'Many' },
    })
    const folder = made.json.response.id
    // 48 files of 1 MiB: far more than the socket buffers hold, so most are read after the revocation.
    const count = 48
    const names = Array.from({ length: count }, (_, i) => `File-${String(i).padStart(2, '0')}.bin`)
    for (const name of names) {
      const reply = await call(server.url, 'POST', `/api/2.0/files/${folder}/upload?title=${name}`, {
        token: owner,
        raw: new Uint8Array(Buffer.alloc(1024 * 1024, 'x')),
        headers: { 'Content-Type': 'application/octet-stream' },
      })
      assert.equal(reply.status, 201, reply.text)
    }
    const shared = await call(server.url, 'PUT', `/api/2.0/files/folder/${folder}/share`, {
      token: owner,
      body: { share: [{ shareTo: bob.id, access: 2 }] },
    })
    assert.equal(shared.status, 200, shared.text)

    // Bob starts the download and reads its first bytes, then stops reading (a slow reader).
    const { request } = await import('node:http')
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      request(
        `${server.url}/api/2.0/files/fileops/bulkdownload?folderIds=${folder}`,
        {
          headers: { Authorization: bobToken },
        },
        resolve,
      )
        .on('error', reject)
        .end()
    })
    assert.equal(response.statusCode, 200)
    const declared = Number(response.headers['content-length'])
    const received: Buffer[] = []
    const first = await new Promise<Buffer>((resolve) => response.once('data', resolve))
    received.push(first)
    response.pause()

    const removed = await call(server.url, 'PUT', `/api/2.0/files/folder/${folder}/share`, {
      token: owner,
      body: { share: [{ shareTo: bob.id, access: 0 }] },
    })
    assert.equal(removed.status, 200, removed.text)

    let cut = false
    try {
      for await (const chunk of response) received.push(chunk)
    } catch {
      cut = true
    }
    const body = Buffer.concat(received)
    const sentNames = names.filter((name) => body.includes(Buffer.from(`Many/${name}`)))
    assert.ok(cut || body.length < declared, `the download ends short (${body.length} of ${declared} bytes)`)
    assert.ok(
      sentNames.length < count / 2,
      `most files were reached after the revocation, yet ${sentNames.length} of ${count} were sent`,
    )
    assert.deepEqual(sentNames, names.slice(0, sentNames.length), 'the files sent are the first ones, in order')
    // Bob's next download is refused outright: the folder is no longer his to see.
    const again = await call(server.url, 'GET', `/api/2.0/files/fileops/bulkdownload?folderIds=${folder}`, {
      token: bobToken,
    })
    assert.equal(again.status, 404)
  })
})
