/**
 * The WOPI host's route table on node:http (src/protocols/http/raw-routes.ts): what it owns
 * and what it leaves to Fastify, HEAD, and the body timeouts it applies itself (a stalled
 * PutFile body, a trickling PutUserInfo body).
 */
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { encodeUtf7 } from '../../src/core/names/utf7.js'
import { call } from '../support/portal-client.js'
import { contentOf, recordOf, startWopiHarness, type WopiHarness } from './wopi-support.js'

/** Sends `head`, then `chunks` `gapMs` apart; resolves with what came back once the server closes. */
function slowRequest(url: string, head: string, chunks: string[], gapMs: number): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname)
    let reply = ''
    let closed = false
    socket.setEncoding('utf8')
    socket.on('data', (data) => (reply += data))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      closed = true
      resolve(reply)
    })
    socket.on('connect', async () => {
      socket.write(head)
      for (const chunk of chunks) {
        if (closed) return
        socket.write(chunk)
        await sleep(gapMs)
      }
    })
  })
}

/** A HEAD request: status, headers and how many body bytes arrived. */
function head(url: string): Promise<{ status: number; headers: Record<string, unknown>; bodyBytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'HEAD' }, (res) => {
      let bodyBytes = 0
      res.on('data', (chunk: Buffer) => (bodyBytes += chunk.length))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bodyBytes }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('the WOPI route table', () => {
  let h: WopiHarness
  let fileId: string
  let token: string

  before(async () => {
    h = await startWopiHarness({ FOLIO_BODY_TIMEOUT: '1s', FOLIO_UPLOAD_IDLE_TIMEOUT: '1s' })
    fileId = await h.createFile('Routes.docx', 'original')
    token = await h.tokenFor(fileId)
  })
  after(() => h.server.dispose())

  test('owns /wopi and below, answering 404 for what it does not serve; /wopi-host stays with the web UI', async () => {
    for (const [method, path] of [
      ['GET', '/wopi'],
      ['GET', '/wopi/files'],
      ['GET', `/wopi/files/${fileId}/contents/extra`],
      ['PUT', `/wopi/files/${fileId}`],
      ['DELETE', `/wopi/files/${fileId}/contents`],
    ] as const) {
      const reply = await call(h.server.url, method, `${path}?access_token=${encodeURIComponent(token)}`)
      assert.equal(reply.status, 404, `${method} ${path}`)
      assert.equal(reply.text, 'no such WOPI endpoint')
    }
    const hostPage = await call(h.server.url, 'GET', `/wopi-host/${fileId}`)
    assert.notEqual(hostPage.text, 'no such WOPI endpoint')
  })

  test('text replies say charset=utf-8, so a UTF-8 name in an error reads right', async () => {
    const source = await h.createFile('Исходник.docx', 'x')
    await h.createFile('Отчёт.docx', 'taken')
    const taken = await h.wopi(source, {
      override: 'PUT_RELATIVE',
      headers: { 'X-WOPI-RelativeTarget': encodeUtf7('Отчёт.docx'), 'X-WOPI-Size': '3' },
      body: 'new',
    })
    assert.equal(taken.status, 409)
    assert.equal(taken.headers.get('content-type'), 'text/plain; charset=utf-8')
    assert.match(taken.text, /Отчёт\.docx/)
    const unknown = await call(h.server.url, 'GET', `/wopi/nothing?access_token=${encodeURIComponent(token)}`)
    assert.equal(unknown.status, 404)
    assert.equal(unknown.headers.get('content-type'), 'text/plain; charset=utf-8')
    const range = await h.wopi(fileId, { method: 'GET', contents: true, token, headers: { Range: 'bytes=500-600' } })
    assert.equal(range.status, 416)
    assert.equal(range.headers.get('content-type'), 'text/plain; charset=utf-8')
  })

  test('HEAD of CheckFileInfo and GetFile: the GET headers, no body', async () => {
    const q = `?access_token=${encodeURIComponent(token)}`
    const info = await head(`${h.server.url}/wopi/files/${fileId}${q}`)
    assert.equal(info.status, 200)
    assert.equal(info.headers['content-type'], 'application/json; charset=utf-8')
    assert.ok(Number(info.headers['content-length']) > 100)
    assert.equal(info.bodyBytes, 0)
    const contents = await head(`${h.server.url}/wopi/files/${fileId}/contents${q}`)
    assert.equal(contents.status, 200)
    assert.equal(contents.headers['content-length'], String('original'.length))
    assert.equal(contents.headers['x-wopi-itemversion'], 'v1')
    assert.equal(contents.bodyBytes, 0)
  })

  test('a PutFile body that stalls gets 408, the connection closes, and nothing is stored', async () => {
    const lock = await h.wopi(fileId, { override: 'LOCK', headers: { 'X-WOPI-Lock': 'L-stall' } })
    assert.equal(lock.status, 200)
    const headText =
      `POST /wopi/files/${fileId}/contents?access_token=${encodeURIComponent(token)} HTTP/1.1\r\nHost: x\r\n` +
      'X-WOPI-Override: PUT\r\nX-WOPI-Lock: L-stall\r\nContent-Type: application/octet-stream\r\n' +
      'Content-Length: 100000\r\n\r\n'
    const reply = await slowRequest(h.server.url, headText, ['x'.repeat(5000)], 0)
    assert.match(reply, /^HTTP\/1\.1 408 /, reply)
    assert.match(reply, /connection: close/i)
    assert.equal(await contentOf(h, fileId), 'original')
    assert.equal((await recordOf(h, fileId)).version, 1)
    const unlock = await h.wopi(fileId, { override: 'UNLOCK', headers: { 'X-WOPI-Lock': 'L-stall' } })
    assert.equal(unlock.status, 200)
  })

  test('a PutUserInfo body trickling a byte at a time hits the small-body deadline', async () => {
    const headText =
      `POST /wopi/files/${fileId}?access_token=${encodeURIComponent(token)} HTTP/1.1\r\nHost: x\r\n` +
      'X-WOPI-Override: PUT_USER_INFO\r\nContent-Length: 1000\r\n\r\n'
    const reply = await slowRequest(
      h.server.url,
      headText,
      Array.from({ length: 40 }, () => 'a'),
      100,
    )
    assert.match(reply, /^HTTP\/1\.1 408 /, reply)
  })

  test('a PutFile whose bytes keep coming may take longer than the small-body deadline, whatever its type', async () => {
    const lock = await h.wopi(fileId, { override: 'LOCK', headers: { 'X-WOPI-Lock': 'L-slow' } })
    assert.equal(lock.status, 200)
    const headText =
      `POST /wopi/files/${fileId}/contents?access_token=${encodeURIComponent(token)} HTTP/1.1\r\nHost: x\r\n` +
      'Connection: close\r\nX-WOPI-Override: PUT\r\nX-WOPI-Lock: L-slow\r\nContent-Type: text/plain\r\n' +
      'Content-Length: 800\r\n\r\n'
    // 8 chunks 250 ms apart: 2 s in all, never 1 s without a byte.
    const reply = await slowRequest(
      h.server.url,
      headText,
      Array.from({ length: 8 }, () => 'y'.repeat(100)),
      250,
    )
    assert.match(reply, /^HTTP\/1\.1 200 /, reply)
    assert.equal(await contentOf(h, fileId), 'y'.repeat(800))
    const unlock = await h.wopi(fileId, { override: 'UNLOCK', headers: { 'X-WOPI-Lock': 'L-slow' } })
    assert.equal(unlock.status, 200)
  })
})
