import assert from 'node:assert/strict'
import { chmod, mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { buildConfig } from '../../src/config/load.js'
import { createLogger, openStorage, startFolio } from '../../src/main.js'
import { bytes, startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { freePort, startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { testBlobsInS3 } from '../support/postgres.js'

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789'

describe('health and readiness', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.dispose())

  test('/healthz answers while the process runs; /readyz checks database and blob store', async () => {
    const health = await call(server.url, 'GET', '/healthz')
    assert.equal(health.status, 200)
    assert.deepEqual(health.json, { status: 'ok' })
    const ready = await call(server.url, 'GET', '/readyz')
    assert.equal(ready.status, 200)
    const { space, ...rest } = ready.json
    const converter = { kind: server.converter.status().kind, detail: server.converter.status().detail }
    assert.deepEqual(rest, { status: 'ready', checks: { database: 'ok', blobs: 'ok' }, converter })
    if (testBlobsInS3()) {
      assert.equal(space, undefined)
    } else {
      // The data folder's disk, and the default reserve of 256 MiB.
      assert.equal(space.reserveBytes, 256 * 1024 * 1024)
      assert.ok(space.freeBytes > 0 && space.freeBytes <= space.totalBytes, ready.text)
      assert.equal(space.low, space.freeBytes < space.reserveBytes)
    }
  })

  // Makes the local blob folder unwritable; with the contents in S3 (npm run test:scale) there is none.
  const blobFolderSkip = testBlobsInS3() ? 'the contents are in S3, not in a blob folder' : false

  test(
    '/readyz is 503 while the data folder cannot be written, and 200 again after',
    { skip: blobFolderSkip },
    async () => {
      const tmp = join(server.dataDir, 'files', 'tmp')
      await chmod(tmp, 0o555)
      // root ignores permissions: then the folder blobs are written through is not a folder.
      const asRoot = process.getuid?.() === 0
      if (asRoot) {
        await rename(tmp, `${tmp}.away`)
        await writeFile(tmp, '')
      }
      try {
        const ready = await call(server.url, 'GET', '/readyz')
        assert.equal(ready.status, 503)
        const converter = { kind: server.converter.status().kind, detail: server.converter.status().detail }
        assert.deepEqual(
          { status: ready.json.status, checks: ready.json.checks, converter: ready.json.converter },
          { status: 'unavailable', checks: { database: 'ok', blobs: 'failed' }, converter },
        )
        // The process itself still answers.
        assert.equal((await call(server.url, 'GET', '/healthz')).status, 200)
      } finally {
        if (asRoot) {
          await rm(tmp)
          await rename(`${tmp}.away`, tmp)
        }
        await chmod(tmp, 0o755)
      }
      assert.equal((await call(server.url, 'GET', '/readyz')).status, 200)
    },
  )

  test('metrics are off by default: /metrics is 404', async () => {
    assert.equal((await call(server.url, 'GET', '/metrics')).status, 404)
  })
})

describe('metrics with a bearer token', () => {
  let h: Harness
  before(async () => {
    h = await startHarness({ settings: { FOLIO_METRICS_TOKEN: METRICS_TOKEN } })
  })
  after(() => h.close())

  const scrape = (token?: string) =>
    call(h.folio.url, 'GET', '/metrics', token ? { headers: { Authorization: `Bearer ${token}` } } : {})

  test('401 without the token or with a wrong one', async () => {
    const missing = await scrape()
    assert.equal(missing.status, 401)
    assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer/)
    assert.equal((await scrape('not-the-metrics-token')).status, 401)
    assert.equal(
      (await call(h.folio.url, 'GET', '/metrics', { headers: { Authorization: METRICS_TOKEN } })).status,
      401,
    )
  })

  test('after a WOPI cycle, a callback and sign-ins: names and labels are present', async () => {
    const file = await h.upload('Counted.docx', 'counted v1')
    const tokenReply = await h.api('POST', `/files/file/${file.id}/wopi`)
    const accessToken: string = tokenReply.json.response.accessToken
    const wopi = (path: string, method: string, headers: Record<string, string> = {}, raw?: string) =>
      call(h.folio.url, method, `/wopi/files/${file.id}${path}?access_token=${encodeURIComponent(accessToken)}`, {
        headers,
        ...(raw === undefined ? {} : { raw }),
      })
    assert.equal((await wopi('', 'GET')).status, 200)
    assert.equal((await wopi('/contents', 'GET')).status, 200)
    assert.equal((await wopi('', 'POST', { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'lock-a' })).status, 200)
    assert.equal((await wopi('', 'POST', { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'lock-b' })).status, 409)
    assert.ok((await scrape(METRICS_TOKEN)).text.includes('\nfolio_wopi_locks 1\n'), 'one file locked')
    assert.equal(
      (await wopi('/contents', 'POST', { 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'lock-a' }, 'v2')).status,
      200,
    )
    assert.equal((await wopi('', 'POST', { 'X-WOPI-Override': 'UNLOCK', 'X-WOPI-Lock': 'lock-a' })).status, 200)
    assert.equal((await call(h.folio.url, 'GET', `/wopi/files/${file.id}?access_token=forged`)).status, 401)

    const other = await h.upload('Edited.docx', 'edited v1')
    const session = await h.openEditor(other.id)
    session.edit(bytes('edited v2'))
    await session.disconnect()
    assert.equal(await h.contents(other.id), 'edited v2')

    await signIn(h.folio.url)
    const failed = await call(h.folio.url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'admin', password: 'wrong-password' },
    })
    assert.equal(failed.status, 401)

    const reply = await scrape(METRICS_TOKEN)
    assert.equal(reply.status, 200)
    assert.match(reply.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
    const text = reply.text
    const expected = [
      '# TYPE folio_http_requests_total counter',
      'folio_http_requests_total{method="GET",route="/wopi/files/:fileId",status="200"}',
      'folio_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/wopi/files/:fileId/contents",status="200"}',
      'folio_wopi_operations_total{operation="CheckFileInfo",status="200"} 1',
      'folio_wopi_operations_total{operation="CheckFileInfo",status="401"} 1',
      'folio_wopi_operations_total{operation="GetFile",status="200"} 1',
      'folio_wopi_operations_total{operation="LOCK",status="200"} 1',
      'folio_wopi_operations_total{operation="LOCK",status="409"} 1',
      'folio_wopi_operations_total{operation="PUT",status="200"} 1',
      'folio_wopi_operations_total{operation="UNLOCK",status="200"} 1',
      'folio_wopi_operation_duration_seconds_count{operation="PUT"} 1',
      'folio_onlyoffice_callbacks_total{callback_status="1",status="200"}',
      'folio_onlyoffice_callbacks_total{callback_status="2",status="200"} 1',
      'folio_onlyoffice_callback_duration_seconds_count{callback_status="2"} 1',
      'folio_sign_ins_total{route="/api/2.0/authentication.json",status="201",outcome="success"}',
      'folio_sign_ins_total{route="/api/2.0/authentication.json",status="401",outcome="failure"} 1',
      '\nfolio_wopi_locks 0\n',
      'folio_onlyoffice_saves_total{kind="exit"} 1',
      'folio_onlyoffice_save_bytes_sum{kind="exit"} 9',
      'folio_onlyoffice_save_bytes_bucket{le="1024",kind="exit"} 1',
      'folio_onlyoffice_save_duration_seconds_count{kind="exit"} 1',
      'folio_storage_errors_total{store="database"} 0',
      'folio_storage_errors_total{store="blob"} 0',
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]
    for (const line of expected)
      assert.ok(
        text.includes(line),
        `missing ${line}\n${text
          .split('\n')
          .filter((l) => l.startsWith('folio_onlyoffice'))
          .join('\n')}`,
      )
    if (!testBlobsInS3()) {
      // The data folder's disk: its free space and size, and the reserve kept on it.
      assert.ok(text.includes(`\nfolio_data_reserve_bytes ${256 * 1024 * 1024}\n`), 'the reserve')
      const free = Number(/\nfolio_data_free_bytes (\d+)\n/.exec(text)?.[1])
      const size = Number(/\nfolio_data_size_bytes (\d+)\n/.exec(text)?.[1])
      assert.ok(free > 0 && free <= size, `free ${free} of ${size}`)
    }
    assert.ok(!text.includes(accessToken), 'a WOPI token in the metrics')
    assert.ok(!text.includes(file.id), 'a file id in a label')
  })
})

describe('metrics on a separate listener', () => {
  let server: TestServer
  before(async () => {
    const port = await freePort()
    server = await startTestServer({ FOLIO_METRICS_ADDRESS: `127.0.0.1:${port}`, FOLIO_METRICS_TOKEN: METRICS_TOKEN })
  })
  after(() => server.dispose())

  test('/metrics is served only there, with the token', async () => {
    assert.ok(server.metricsUrl)
    assert.equal((await call(server.url, 'GET', '/metrics')).status, 404)
    assert.equal((await call(server.metricsUrl, 'GET', '/metrics')).status, 401)
    const auth = { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } }
    assert.equal((await call(server.metricsUrl, 'GET', '/healthz', auth)).status, 404)
    await call(server.url, 'GET', '/healthz')
    const reply = await call(server.metricsUrl, 'GET', '/metrics', auth)
    assert.equal(reply.status, 200)
    assert.ok(reply.text.includes('folio_http_requests_total{method="GET",route="/healthz",status="200"}'))
  })
})

describe('the generated admin password', () => {
  let dataDir: string
  let blocker: Server
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'folio-admin-'))
    blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  })
  after(async () => {
    blocker.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  test('a start that fails (port taken) creates no account; the next start shows the password', async () => {
    const address = blocker.address()
    const takenPort = typeof address === 'object' && address ? address.port : 0
    const lines: string[] = []
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString())
        done()
      },
    })
    const settings = { FOLIO_HOST: '127.0.0.1', FOLIO_DATA_DIR: dataDir, FOLIO_LOG_LEVEL: 'info' }
    const failing = buildConfig({ ...settings, FOLIO_PORT: String(takenPort) })
    await assert.rejects(startFolio(failing, { logger: createLogger(failing, sink) }), /EADDRINUSE/)
    const storage = await openStorage(failing)
    assert.deepEqual(await storage.store.users.list(), [])
    await storage.store.close()
    assert.ok(!lines.join('').includes('generatedPassword'))

    const working = buildConfig({ ...settings, FOLIO_PORT: String(await freePort()) })
    const folio = await startFolio(working, { logger: createLogger(working, sink) })
    try {
      const entry = lines.map((line) => JSON.parse(line)).find((record) => record.generatedPassword)
      assert.ok(entry, 'the password is logged once the server listens')
      assert.match(entry.msg, /folio user passwd/)
      await signIn(folio.url, 'admin', entry.generatedPassword)
    } finally {
      const closing = folio.close()
      folio.app.server.closeAllConnections()
      await closing
    }
  })
})
