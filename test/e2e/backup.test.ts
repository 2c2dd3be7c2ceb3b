import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { runFolio } from '../support/folio-command.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { testBlobsInS3 } from '../support/postgres.js'
import { call, signIn } from '../support/portal-client.js'

/** Runs the real `folio` command against a data folder. */
const folio = (args: string[], dataDir: string, env: Record<string, string> = {}) =>
  runFolio(args, { FOLIO_DATA_DIR: dataDir, ...env })

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

// folio backup copies a single-machine install (the SQLite file and the blob folder);
// with the metadata in PostgreSQL or the contents in S3 (npm run test:postgres,
// npm run test:scale) those are backed up with their own tools, as docs/operations.md says.
const singleMachineOnly =
  process.env.FOLIO_TEST_METADATA === 'postgres' || testBlobsInS3()
    ? 'folio backup covers the single-machine storage only'
    : false

describe('backup and restore', { skip: singleMachineOnly }, () => {
  let server: TestServer
  let token: string
  let workDir: string
  /** SHA-256 of the bytes of every version ever uploaded, by file title and version. */
  const uploaded = new Map<string, Map<number, string>>()
  const deleted = new Set<string>()

  async function upload(title: string, bytes: Uint8Array): Promise<string> {
    const reply = await call(server.url, 'POST', `/api/2.0/files/@my/upload?title=${encodeURIComponent(title)}`, {
      token,
      raw: Buffer.from(bytes),
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(reply.status, 201, reply.text)
    uploaded.set(title, new Map([[1, sha256(bytes)]]))
    return reply.json.response.id
  }

  /** A new version through WOPI (Lock, PutFile, Unlock). */
  async function putVersion(fileId: string, title: string, bytes: Uint8Array): Promise<void> {
    const tokenReply = await call(server.url, 'POST', `/api/2.0/files/file/${fileId}/wopi`, { token })
    const q = `?access_token=${encodeURIComponent(tokenReply.json.response.accessToken)}`
    const lock = { 'X-WOPI-Lock': `lock-${title}` }
    await call(server.url, 'POST', `/wopi/files/${fileId}${q}`, { headers: { ...lock, 'X-WOPI-Override': 'LOCK' } })
    const put = await call(server.url, 'POST', `/wopi/files/${fileId}/contents${q}`, {
      headers: { ...lock, 'X-WOPI-Override': 'PUT' },
      raw: Buffer.from(bytes),
    })
    assert.equal(put.status, 200, put.text)
    const version = Number((put.headers.get('x-wopi-itemversion') ?? '').slice(1))
    uploaded.get(title)?.set(version, sha256(bytes))
    await call(server.url, 'POST', `/wopi/files/${fileId}${q}`, { headers: { ...lock, 'X-WOPI-Override': 'UNLOCK' } })
  }

  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'folio-backup-'))
    server = await startTestServer()
    token = await signIn(server.url)
  })
  after(async () => {
    await server.dispose()
    await rm(workDir, { recursive: true, force: true })
  })

  test('a backup taken during writes restores into a fresh folder with every byte intact', async () => {
    const stable: string[] = []
    for (let i = 0; i < 12; i++) {
      const title = `Before ${i}.bin`
      const id = await upload(title, randomBytes(1000 + i * 40_000))
      if (i % 3 === 0) await putVersion(id, title, randomBytes(5000 + i))
      if (i % 4 === 1) {
        await call(server.url, 'DELETE', `/api/2.0/files/file/${id}`, { token })
        deleted.add(title)
      } else {
        stable.push(title)
      }
    }

    // Writes go on all through the backup: uploads, new versions and deletes.
    let writing = true
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        const title = `During ${n}.bin`
        const id = await upload(title, randomBytes(2000 + (n % 7) * 30_000))
        if (n % 2 === 0) await putVersion(id, title, randomBytes(3000 + n))
        if (n % 5 === 4) {
          await call(server.url, 'DELETE', `/api/2.0/files/file/${id}`, { token })
          deleted.add(title)
        }
      }
    })()
    const backupDir = join(workDir, 'backup')
    const backup = await folio(['backup', backupDir], server.dataDir)
    writing = false
    await writer
    assert.equal(backup.code, 0, backup.stderr)
    assert.match(backup.stdout, /\d+ blobs, \d+ bytes, every one checked against its SHA-256/)
    assert.ok(
      [...uploaded.keys()].some((title) => title.startsWith('During')),
      'writes ran during the backup',
    )

    // A backup goes only into a new or empty folder; a restore only into an empty data folder.
    assert.notEqual((await folio(['backup', backupDir], server.dataDir)).code, 0)
    const refused = await folio(['restore', backupDir], server.dataDir)
    assert.notEqual(refused.code, 0)
    assert.match(refused.stderr, /is not empty/)
    const notABackup = join(workDir, 'not-a-backup')
    await rm(notABackup, { recursive: true, force: true })
    await writeFile(join(workDir, 'stray.txt'), 'x')
    assert.match((await folio(['restore', workDir], join(workDir, 'fresh-1'))).stderr, /no finished Folio backup/)

    await server.stop()
    const restoredDir = join(workDir, 'restored')
    const restore = await folio(['restore', backupDir], restoredDir)
    assert.equal(restore.code, 0, restore.stderr)

    const restored = await startTestServer({}, { dataDir: restoredDir })
    try {
      const restoredToken = await signIn(restored.url)
      const list = await call(restored.url, 'GET', '/api/2.0/files/@my?count=1000', { token: restoredToken })
      assert.equal(list.status, 200)
      const files: { id: string; title: string; version: number }[] = list.json.response.files ?? list.json.response
      const titles = new Set(files.map((f) => f.title))
      for (const title of stable) assert.ok(titles.has(title), `${title} is missing`)
      let checked = 0
      for (const file of files) {
        const expected = uploaded.get(file.title)
        assert.ok(expected, `${file.title} was never uploaded`)
        const history = await call(restored.url, 'GET', `/api/2.0/files/file/${file.id}/history`, {
          token: restoredToken,
        })
        for (const version of history.json.response as { version: number }[]) {
          const download = await fetch(
            `${restored.url}/api/2.0/files/file/${file.id}/version/${version.version}/download`,
            {
              headers: { Authorization: restoredToken },
            },
          )
          assert.equal(download.status, 200)
          const digest = sha256(new Uint8Array(await download.arrayBuffer()))
          assert.equal(digest, expected.get(version.version), `${file.title} v${version.version}`)
          checked++
        }
      }
      assert.ok(checked >= stable.length)
      assert.equal((await call(restored.url, 'GET', '/readyz')).status, 200)
    } finally {
      await restored.dispose()
    }
  })

  test('with PostgreSQL or S3 configured, backup refuses and says what to back up instead', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'folio-backup-pg-'))
    const target = join(dataDir, 'copy')
    const settings: Record<string, string>[] = [
      { FOLIO_DATABASE_URL: 'postgres://folio@127.0.0.1:1/folio' },
      { FOLIO_S3_BUCKET: 'folio-files' },
    ]
    for (const env of settings) {
      const result = await folio(['backup', target], dataDir, env)
      assert.notEqual(result.code, 0)
      assert.match(result.stderr, /pg_dump/)
    }
    assert.equal(existsSync(target), false, 'nothing was written')
  })
})
