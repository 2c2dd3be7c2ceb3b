import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, rm, statfs, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, test } from 'node:test'
import { pino } from 'pino'
import { FakeClock, startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'
import { bytes, startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { testBlobsInS3 } from '../support/postgres.js'

/**
 * A data folder whose disk fills up, on a small real tmpfs: Folio keeps
 * FOLIO_MIN_FREE_SPACE free by refusing new file contents (507 with a message), so
 * sign-ins, renames, new folders and lock refreshes still work, deleting frees space and
 * uploads work again at once; a write that runs out of room part-way is 507 too, keeps
 * nothing and is logged at error. Mounting needs root (CI runs as root); elsewhere these
 * tests are skipped, and src/app/disk-space.test.ts holds the same rules over a blob store
 * double that raises ENOSPC.
 */
const run = promisify(execFile)
const isRoot = process.getuid?.() === 0
// With the contents in S3 (npm run test:scale) the data folder's disk holds no blobs.
const skip = testBlobsInS3()
  ? "the contents are in S3, not on the data folder's disk"
  : isRoot || process.env.CI === 'true'
    ? false
    : 'mounting a tmpfs needs root (see src/app/disk-space.test.ts)'
const MiB = 1024 * 1024

/** A tmpfs of `size` mounted on a fresh folder; unmount() removes it again. */
async function mountTmpfs(size: string): Promise<{ dir: string; unmount(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'folio-disk-full-'))
  await run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir])
  return {
    dir,
    unmount: async () => {
      await run('umount', [dir])
      await rm(dir, { recursive: true, force: true })
    },
  }
}

async function freeBytes(dir: string): Promise<number> {
  const figures = await statfs(dir)
  return figures.bavail * figures.bsize
}

/** Log lines at or above warn, as objects. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = []
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) })
  return { logger, lines }
}

/**
 * Uploads `size` bytes with node:http, writing as fast as the server reads, and resolves
 * with the answer as soon as it comes (the server may answer before reading it all).
 */
function uploadRaw(url: string, token: string, size: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { Authorization: token, 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) },
    })
    req.on('response', (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      response.on('error', reject)
    })
    // The server may close the connection once it has answered; that is no failure here.
    req.on('error', () => undefined)
    const chunk = Buffer.alloc(256 * 1024, 'f')
    let sent = 0
    const pump = () => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent))
        sent += piece.length
        if (!req.write(piece)) {
          req.once('drain', pump)
          return
        }
      }
      req.end()
    }
    pump()
  })
}

describe('a full disk does not lock the API', { skip }, () => {
  let mount: Awaited<ReturnType<typeof mountTmpfs>>
  let server: TestServer
  const { logger, lines } = capturingLogger()
  let token = ''
  let my = ''

  before(async () => {
    mount = await mountTmpfs('32m')
    server = await startTestServer({ FOLIO_MIN_FREE_SPACE: '8MiB' }, { dataDir: join(mount.dir, 'data'), logger })
    token = await signIn(server.url)
    my = (await api('GET', '/files/@my')).json.response.current.id
  })
  after(async () => {
    await server?.dispose()
    await mount?.unmount()
  })

  const api = (method: string, path: string, body?: unknown): Promise<ApiReply> =>
    call(server.url, method, `/api/2.0${path}`, { token, ...(body === undefined ? {} : { body }) })
  const upload = (title: string, bytes: Buffer | string) =>
    call(server.url, 'POST', `/api/2.0/files/${my}/upload?title=${encodeURIComponent(title)}`, {
      token,
      raw: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
      headers: { 'Content-Type': 'application/octet-stream' },
    })
  const wopi = (
    fileId: string,
    accessToken: string,
    override: string | undefined,
    headers: Record<string, string>,
    body?: string,
  ) =>
    call(
      server.url,
      'POST',
      `/wopi/files/${fileId}${override === undefined ? '/contents' : ''}?access_token=${encodeURIComponent(accessToken)}`,
      {
        headers: {
          ...headers,
          ...(override === undefined ? { 'X-WOPI-Override': 'PUT' } : { 'X-WOPI-Override': override }),
        },
        ...(body === undefined ? {} : { raw: body }),
      },
    )

  test('filled to its reserve, metadata, sign-in and locks work, contents are refused with 507, deletes free space', async () => {
    const report = await upload('Report.docx', 'old content')
    assert.equal(report.status, 201, report.text)
    const fileId: string = report.json.response.id
    const wopiToken = (await api('POST', `/files/file/${fileId}/wopi?mode=edit`)).json.response.accessToken
    const locked = await wopi(fileId, wopiToken, 'LOCK', { 'X-WOPI-Lock': 'lock-1' })
    assert.equal(locked.status, 200, locked.text)

    // Fill the disk with uploads until Folio refuses one.
    const fillers: string[] = []
    let refused: ApiReply | undefined
    for (let i = 0; i < 20 && refused === undefined; i++) {
      const reply = await upload(`fill-${i}.bin`, Buffer.alloc(2 * MiB, i))
      if (reply.status === 201) fillers.push(reply.json.response.id)
      else refused = reply
    }
    assert.ok(refused, 'an upload is refused before the disk is full')
    assert.equal(refused.status, 507, refused.text)
    assert.equal(refused.json.error.type, 'INSUFFICIENT_STORAGE')
    assert.match(refused.json.error.message, /disk space|no room/)
    assert.ok(fillers.length >= 5, `${fillers.length} uploads fitted`)
    assert.ok((await freeBytes(mount.dir)) > 4 * MiB, 'the reserve stays free')

    // Something else takes the rest of the disk but 1 MiB.
    await writeFile(join(mount.dir, 'other-program.bin'), Buffer.alloc(Math.max(0, (await freeBytes(mount.dir)) - MiB)))

    const ready = await call(server.url, 'GET', '/readyz')
    assert.equal(ready.status, 200, ready.text)
    assert.equal(ready.json.space.low, true)
    assert.equal(ready.json.space.reserveBytes, 8 * MiB)
    assert.ok(ready.json.space.freeBytes < 2 * MiB, ready.text)

    // Sign-in, rename, a new folder and RefreshLock all write metadata only: they work.
    assert.ok(await signIn(server.url))
    const renamed = await api('PUT', `/files/file/${fileId}`, { title: 'Renamed.docx' })
    assert.equal(renamed.status, 200, renamed.text)
    const folder = await api('POST', `/files/folder/${my}`, { title: 'New folder' })
    assert.equal(folder.status, 201, folder.text)
    const refreshed = await wopi(fileId, wopiToken, 'REFRESH_LOCK', { 'X-WOPI-Lock': 'lock-1' })
    assert.equal(refreshed.status, 200, refreshed.text)

    // New contents are refused with a message, and the old content stays.
    const small = await upload('small.txt', 'tiny')
    assert.equal(small.status, 507, small.text)
    assert.equal(small.json.error.type, 'INSUFFICIENT_STORAGE')
    const putFile = await wopi(fileId, wopiToken, undefined, { 'X-WOPI-Lock': 'lock-1' }, 'new content')
    assert.equal(putFile.status, 507, putFile.text)
    assert.match(putFile.text, /disk space/)
    const relative = await wopi(fileId, wopiToken, 'PUT_RELATIVE', { 'X-WOPI-SuggestedTarget': 'Copy.docx' }, 'a copy')
    assert.equal(relative.status, 507, relative.text)
    const content = await call(server.url, 'GET', `/api/2.0/files/file/${fileId}/download`, { token })
    assert.equal(content.text, 'old content')
    assert.equal(await readdir(join(server.dataDir, 'files', 'tmp')).then((names) => names.length), 0)

    // Deleting at once and emptying the trash work, and free space.
    const before = await freeBytes(mount.dir)
    const [first, ...rest] = fillers
    const deleted = await call(server.url, 'DELETE', `/api/2.0/files/file/${first}?immediately=true`, { token })
    assert.equal(deleted.status, 200, deleted.text)
    const trashed = await api('PUT', '/files/fileops/delete', { fileIds: rest })
    assert.equal(trashed.status, 200, trashed.text)
    const emptied = await api('PUT', '/files/fileops/emptytrash')
    assert.equal(emptied.status, 200, emptied.text)
    // The database's log keeps a little of it (it grows with the deletes' own rows).
    const freed = (await freeBytes(mount.dir)) - before
    assert.ok(
      freed >= fillers.length * 2 * MiB * 0.9,
      `the deleted files' space is free again (${freed} bytes freed for ${fillers.length} files, ${emptied.text})`,
    )

    // Without a restart, contents are accepted again.
    const again = await upload('after.bin', Buffer.alloc(2 * MiB, 7))
    assert.equal(again.status, 201, again.text)
    const saved = await wopi(fileId, wopiToken, undefined, { 'X-WOPI-Lock': 'lock-1' }, 'new content')
    assert.equal(saved.status, 200, saved.text)
    assert.equal(
      (await call(server.url, 'GET', `/api/2.0/files/file/${fileId}/download`, { token })).text,
      'new content',
    )
    assert.equal((await call(server.url, 'GET', '/readyz')).json.space.low, false)

    assert.ok(
      lines.some((line) => line.level === 40 && String(line.msg).includes('reserve')),
      'refusals are logged',
    )
    assert.equal(JSON.stringify(lines).includes(wopiToken), false, 'no token in the log')
  })
})

describe('a write that runs out of room part-way', { skip }, () => {
  let mount: Awaited<ReturnType<typeof mountTmpfs>>
  let server: TestServer
  const { logger, lines } = capturingLogger()

  before(async () => {
    mount = await mountTmpfs('16m')
    // No reserve: the upload meets the end of the disk itself.
    server = await startTestServer({ FOLIO_MIN_FREE_SPACE: '0' }, { dataDir: join(mount.dir, 'data'), logger })
  })
  after(async () => {
    await server?.dispose()
    await mount?.unmount()
  })

  test('is answered 507 with a message, keeps nothing, is logged at error, and the next upload works', async () => {
    const token = await signIn(server.url)
    const reply = await uploadRaw(`${server.url}/api/2.0/files/@my/upload?title=big.bin`, token, 24 * MiB)
    assert.equal(reply.status, 507, reply.body)
    assert.match(JSON.parse(reply.body).error.message, /no room/)
    assert.deepEqual(await readdir(join(server.dataDir, 'files', 'tmp')), [])
    const listing = await call(server.url, 'GET', '/api/2.0/files/@my', { token })
    assert.equal(listing.json.response.files.length, 0)
    const failure = lines.find((line) => line.level === 50)
    assert.ok(failure, 'logged at error')
    assert.match(JSON.stringify(failure), /ENOSPC/)
    assert.match(String(failure.operation), /blob put/)

    const small = await call(server.url, 'POST', '/api/2.0/files/@my/upload?title=small.txt', {
      token,
      raw: 'fits',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(small.status, 201, small.text)
  })
})

describe('an editor save on a disk down to its reserve', { skip }, () => {
  let mount: Awaited<ReturnType<typeof mountTmpfs>>
  let h: Harness
  const clock = new FakeClock()

  before(async () => {
    mount = await mountTmpfs('32m')
    h = await startHarness({ settings: { FOLIO_MIN_FREE_SPACE: '8MiB' }, dataDir: join(mount.dir, 'data'), clock })
  })
  after(async () => {
    await h?.close()
    await mount?.unmount()
  })

  test('is answered 507 with a message, so Docs keeps the document and retries; once space is freed the retry is stored', async () => {
    const file = await h.upload('Notes.docx', 'notes v1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('notes v2'))
    // Something else takes the disk down to 1 MiB.
    const filler = join(mount.dir, 'other-program.bin')
    await writeFile(filler, Buffer.alloc(Math.max(0, (await freeBytes(mount.dir)) - MiB)))
    // Folio reads the free space at most once a second: the save comes a second later.
    clock.advance(1000)
    const refusedFirst = h.sim
      .waitForCallback((c) => c.status === 2 && c.body.key === session.key && c.attempt === 1)
      .then(async (first) => {
        await rm(filler)
        return first
      })
    await session.disconnect()
    const first = await refusedFirst
    assert.equal(first.httpStatus, 507, first.reply)
    const reply = JSON.parse(first.reply)
    assert.equal(reply.error, 1)
    assert.match(reply.message, /disk space/)
    const attempts = h.sim.callbacks.filter((c) => c.status === 2 && c.body.key === session.key)
    assert.deepEqual(
      attempts.map((c) => c.httpStatus),
      [507, 200],
    )
    assert.equal(h.sim.forgotten.includes(session.key), false)
    assert.equal(await h.contents(file.id), 'notes v2')
  })
})
