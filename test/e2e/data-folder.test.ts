import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { after, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { pino } from 'pino'
import { buildConfig } from '../../src/config/load.js'
import { startFolio } from '../../src/main.js'
import { FOLIO_BIN } from '../support/folio-command.js'
import { ADMIN_PASSWORD, freePort, startTestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { testBlobsInS3, testMetadata } from '../support/postgres.js'

const run = promisify(execFile)
const roots: string[] = []

async function freshRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'folio-data-'))
  roots.push(root)
  return root
}

const modeOf = async (path: string): Promise<string> => ((await stat(path)).mode & 0o777).toString(8)

/** Places a blob no version references, and a temporary file, both two hours old. */
async function plantGarbage(dataDir: string): Promise<{ blob: string; temp: string }> {
  const key = randomBytes(18).toString('base64url')
  const shard = join(dataDir, 'files', 'blobs', key.slice(0, 2))
  await mkdir(shard, { recursive: true })
  await mkdir(join(dataDir, 'files', 'tmp'), { recursive: true })
  const blob = join(shard, key)
  const temp = join(dataDir, 'files', 'tmp', `${randomBytes(8).toString('hex')}.tmp`)
  await writeFile(blob, randomBytes(4096))
  await writeFile(temp, randomBytes(1024))
  const old = new Date(Date.now() - 2 * 60 * 60 * 1000)
  await utimes(blob, old, old)
  await utimes(temp, old, old)
  return { blob, temp }
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  )

after(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))))

// These checks read the blob folder itself; with the contents in S3 (npm run test:scale)
// there is none, and the S3 driver has its own contract suite.
const blobFolderSkip = testBlobsInS3() ? 'the contents are in S3, not in a blob folder' : false

describe('the data folder', { skip: blobFolderSkip }, () => {
  test('finding 5: under umask 022 the folder, database, WAL and blobs are private (0700/0600)', async () => {
    const previous = process.umask(0o022)
    try {
      const dataDir = join(await freshRoot(), 'new', 'data')
      const metadata = testMetadata()
      // With the metadata in PostgreSQL (npm run test:postgres) there is no database file.
      const sqlite = metadata.settings.FOLIO_DATABASE_URL === undefined
      const server = await startTestServer({}, { dataDir, metadata })
      try {
        const token = await signIn(server.url)
        const upload = await call(server.url, 'POST', '/api/2.0/files/@my/upload?title=Secret.txt', {
          token,
          raw: 'private words',
          headers: { 'Content-Type': 'application/octet-stream' },
        })
        assert.equal(upload.status, 201, upload.text)
        assert.equal(await modeOf(dataDir), '700')
        for (const name of sqlite ? ['folio.db', 'folio.db-wal', 'folio.db-shm'] : []) {
          assert.equal(await modeOf(join(dataDir, name)), '600', name)
        }
        const blobs = join(dataDir, 'files', 'blobs')
        assert.equal(await modeOf(join(dataDir, 'files')), '700')
        for (const shard of await readdir(blobs)) {
          assert.equal(await modeOf(join(blobs, shard)), '700')
          for (const blob of await readdir(join(blobs, shard))) {
            assert.equal(await modeOf(join(blobs, shard, blob)), '600')
          }
        }
      } finally {
        await server.dispose()
      }
    } finally {
      process.umask(previous)
    }
  })

  test('finding 5: an existing folder open to others is reported at start-up', async () => {
    const dataDir = await freshRoot()
    await chmod(dataDir, 0o755)
    const lines: string[] = []
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk))
        callback()
      },
    })
    const config = buildConfig({
      FOLIO_PORT: String(await freePort()),
      FOLIO_HOST: '127.0.0.1',
      FOLIO_DATA_DIR: dataDir,
      FOLIO_ADMIN_PASSWORD: ADMIN_PASSWORD,
    })
    const folio = await startFolio(config, { logger: pino({ level: 'warn' }, sink) })
    await folio.close()
    const warning = lines.map((line) => JSON.parse(line)).find((entry) => /data folder/.test(entry.msg))
    assert.ok(warning, lines.join('\n'))
    assert.equal(warning.mode, '0755')
  })

  test('finding 4: start-up collects an unreferenced blob and a temporary file left by a crash', async () => {
    const server = await startTestServer({})
    const token = await signIn(server.url)
    const upload = await call(server.url, 'POST', '/api/2.0/files/@my/upload?title=Kept.txt', {
      token,
      raw: 'kept',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(upload.status, 201)
    await server.stop()
    const garbage = await plantGarbage(server.dataDir)
    const restarted = await server.restart()
    // stop() waits for the start-up collection under way.
    await restarted.stop()
    assert.equal(await exists(garbage.blob), false)
    assert.equal(await exists(garbage.temp), false)
    const again = await server.restart()
    try {
      const token2 = await signIn(again.url)
      const download = await call(again.url, 'GET', `/api/2.0/files/file/${upload.json.response.id}/download`, {
        token: token2,
      })
      assert.equal(download.text, 'kept', 'a referenced blob survives the collection')
    } finally {
      await again.dispose()
    }
  })

  test('finding 4: `folio gc` reports what it freed', async () => {
    const dataDir = await freshRoot()
    const env = { PATH: process.env.PATH ?? '', FOLIO_DATA_DIR: dataDir, FOLIO_LOG_LEVEL: 'warn' }
    // Only a server start makes an install; `folio gc` then works on it.
    await (await startTestServer({}, { dataDir, metadata: { settings: {}, dispose: async () => undefined } })).stop()
    const garbage = await plantGarbage(dataDir)
    const { stdout } = await run(process.execPath, [FOLIO_BIN, 'gc', '--json'], { env })
    const report = JSON.parse(stdout)
    assert.equal(report.blobsRemoved, 1)
    assert.equal(report.blobBytesFreed, 4096)
    assert.equal(report.tempFilesRemoved, 1)
    assert.equal(report.tempBytesFreed, 1024)
    assert.equal(await exists(garbage.blob), false)
    const text = await run(process.execPath, [FOLIO_BIN, 'gc'], { env })
    assert.match(text.stdout, /removed 0 unreferenced blobs/)
  })
})
