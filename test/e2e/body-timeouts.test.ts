import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { buildConfig } from '../../src/config/load.js'
import { startFolio } from '../../src/main.js'
import { ADMIN_PASSWORD, freePort, startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'
import { unfinishedWrites } from '../support/stored-blobs.js'

interface RawExchange {
  /** Everything the server sent before closing. */
  reply: string
  /** Milliseconds from the first byte sent to the close. */
  closedAfterMs: number
}

/**
 * Opens a raw connection, sends `head` and then `chunks` with `gapMs` between them, and
 * resolves once the server closes the connection.
 */
function slowRequest(url: string, head: string, chunks: string[], gapMs: number): Promise<RawExchange> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname)
    let reply = ''
    let closed = false
    const started = Date.now()
    socket.setEncoding('utf8')
    socket.on('data', (data) => (reply += data))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      closed = true
      resolve({ reply, closedAfterMs: Date.now() - started })
    })
    socket.on('connect', async () => {
      try {
        socket.write(head)
        for (const chunk of chunks) {
          if (closed) return
          socket.write(chunk)
          await sleep(gapMs)
        }
      } catch (error) {
        reject(error)
      }
    })
  })
}

describe('slow request bodies', () => {
  let server: TestServer
  let token: string

  before(async () => {
    server = await startTestServer({ FOLIO_BODY_TIMEOUT: '1s', FOLIO_UPLOAD_IDLE_TIMEOUT: '1s' })
    token = await signIn(server.url)
  })
  after(() => server.dispose())

  const jsonHead = (length: number) =>
    'POST /api/2.0/authentication.json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
    `Content-Length: ${length}\r\n\r\n`

  test('finding 3: 20 connections that send one byte of a 1,000-byte JSON body get 408 and are closed', async () => {
    const exchanges = await Promise.all(
      Array.from({ length: 20 }, () => slowRequest(server.url, jsonHead(1000), ['{'], 0)),
    )
    for (const exchange of exchanges) {
      assert.match(exchange.reply, /^HTTP\/1\.1 408 /, exchange.reply)
      assert.match(exchange.reply, /connection: close/i)
    }
    const slowest = Math.max(...exchanges.map((e) => e.closedAfterMs))
    console.log(`finding 3 figure: 20 stalled JSON bodies closed, slowest after ${slowest} ms (FOLIO_BODY_TIMEOUT=1s)`)
  })

  test('finding 3: a JSON body trickling a byte at a time hits the whole-body deadline', async () => {
    const chunks = Array.from({ length: 40 }, () => ' ')
    const exchange = await slowRequest(server.url, jsonHead(1000), chunks, 100)
    assert.match(exchange.reply, /^HTTP\/1\.1 408 /, exchange.reply)
  })

  test('finding 3: an upload that stalls gets 408, is closed, and nothing is stored', async () => {
    const head =
      'POST /api/2.0/files/@my/upload?title=Stalled.bin HTTP/1.1\r\nHost: x\r\n' +
      `Authorization: ${token}\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n`
    const exchange = await slowRequest(server.url, head, ['x'.repeat(5000)], 0)
    assert.match(exchange.reply, /^HTTP\/1\.1 408 /, exchange.reply)
    const listing = await call(server.url, 'GET', '/api/2.0/files/@my', { token })
    assert.equal(listing.json.response.total, 0, listing.text)
    // The 408 goes out as the connection is cut; the failed write removes its temporary
    // file as its stream unwinds, a moment later. Wait for that (bounded), not for time.
    let left = await unfinishedWrites(server)
    for (let i = 0; i < 100 && left.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      left = await unfinishedWrites(server)
    }
    assert.deepEqual(left, [])
  })

  test('finding 3: a portal request without a valid token gets 401 before its body is read', async () => {
    const upload =
      'POST /api/2.0/files/@my/upload?title=Anonymous.bin HTTP/1.1\r\nHost: x\r\n' +
      'Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n'
    const json =
      'POST /api/2.0/files/@my/file HTTP/1.1\r\nHost: x\r\nAuthorization: not-a-token-at-all-really\r\n' +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n'
    for (const head of [upload, json]) {
      // One byte of the body, then nothing: a server that read the body first would answer 408.
      const exchange = await slowRequest(server.url, head, ['x'], 0)
      assert.match(exchange.reply, /^HTTP\/1\.1 401 /, exchange.reply)
      assert.match(exchange.reply, /connection: close/i)
    }
  })

  test('finding 3: an upload whose bytes keep coming may take longer than the body deadline', async () => {
    const chunks = Array.from({ length: 8 }, () => 'y'.repeat(100))
    const head =
      'POST /api/2.0/files/@my/upload?title=Slow.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n' +
      `Authorization: ${token}\r\nContent-Type: application/octet-stream\r\nContent-Length: 800\r\n\r\n`
    // 8 chunks 250 ms apart: 2 s in all, never 1 s without a byte.
    const exchange = await slowRequest(server.url, head, chunks, 250)
    assert.match(exchange.reply, /^HTTP\/1\.1 201 /, exchange.reply)
  })
})

describe('a client that disconnects mid-upload', () => {
  test('finding 14: (uploads and portal JSON bodies) is logged once at info, without a stack, and nothing is kept', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'folio-disconnect-'))
    const entries: Array<Record<string, unknown>> = []
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        entries.push(JSON.parse(String(chunk)))
        callback()
      },
    })
    const folio = await startFolio(
      buildConfig({
        FOLIO_PORT: String(await freePort()),
        FOLIO_HOST: '127.0.0.1',
        FOLIO_DATA_DIR: dataDir,
        FOLIO_ADMIN_PASSWORD: ADMIN_PASSWORD,
      }),
      { logger: pino({ level: 'info' }, sink) },
    )
    try {
      const token = await signIn(folio.url)
      const { port } = new URL(folio.url)
      const uploads = [
        ['/api/2.0/files/@my/upload?title=Gone.bin', 'application/octet-stream', 'z'.repeat(20_000)],
        [
          '/api/2.0/files/@my/upload',
          'multipart/form-data; boundary=XX',
          '--XX\r\nContent-Disposition: form-data; name="file"; filename="Gone2.bin"\r\n\r\n' + 'z'.repeat(20_000),
        ],
        ['/api/2.0/files/@my/file?secret=query', 'application/json', '{"title": "Gone3'],
      ]
      for (const [path, type, part] of uploads) {
        const socket = connect(Number(port), '127.0.0.1')
        await new Promise((resolve) => socket.once('connect', resolve))
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${token}\r\n` +
            `Content-Type: ${type}\r\nContent-Length: 1000000\r\n\r\n${part}`,
        )
        await sleep(300)
        socket.destroy()
      }
      // The server notices the closes; wait until both are logged.
      for (let i = 0; i < 100 && entries.filter((e) => /closed the connection/.test(String(e.msg))).length < 3; i++) {
        await sleep(50)
      }
      const closes = entries.filter((e) => /closed the connection/.test(String(e.msg)))
      assert.equal(closes.length, 3, JSON.stringify(entries))
      assert.equal(JSON.stringify(entries).includes('secret=query'), false, 'no query string logged')
      for (const entry of closes) {
        assert.equal(entry.level, 30)
        assert.equal(JSON.stringify(entry).includes('stack'), false)
      }
      const loud = entries.filter((e) => Number(e.level) >= 40 && !/web interface is not built/.test(String(e.msg)))
      assert.deepEqual(loud, [], 'no warning or error for a routine disconnect')
      const listing = await call(folio.url, 'GET', '/api/2.0/files/@my', { token })
      assert.equal(listing.json.response.total, 0)
      assert.deepEqual(await readdir(join(dataDir, 'files', 'tmp')), [])
    } finally {
      await folio.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
