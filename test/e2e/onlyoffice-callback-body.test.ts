import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { startHarness, type Harness } from '../support/onlyoffice-harness.js'

interface Exchange {
  /** Everything the server sent before closing. */
  reply: string
  /** Whether the server closed the connection before the client had sent all it meant to. */
  cutShort: boolean
}

/**
 * Sends `head` then `chunks` (`gapMs` apart) over a raw connection and resolves when the
 * server closes it, saying whether that happened before the last chunk went out.
 */
function rawRequest(url: string, head: string, chunks: string[], gapMs: number): Promise<Exchange> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    let reply = ''
    let sentAll = false
    let closed = false
    socket.setEncoding('utf8')
    socket.on('data', (data) => (reply += data))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      closed = true
      resolve({ reply, cutShort: !sentAll })
    })
    socket.on('connect', async () => {
      socket.write(head)
      for (const chunk of chunks) {
        if (closed) return
        socket.write(chunk)
        await sleep(gapMs)
      }
      sentAll = true
    })
  })
}

function callbackHead(url: string, type: string, length: number): string {
  const { pathname, search } = new URL(url)
  return `POST ${pathname}${search} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`
}

// The callback route is open to anyone who can reach Folio: nothing is read before its
// URL token is checked, and what is read is bounded in size and time.
describe('ONLYOFFICE callback bodies', () => {
  let h: Harness

  before(async () => {
    h = await startHarness({ settings: { FOLIO_BODY_TIMEOUT: '1s', FOLIO_UPLOAD_IDLE_TIMEOUT: '1s' } })
  })
  after(() => h.close())

  test('a callback with a bad URL token is refused before its body is read', async () => {
    const file = await h.upload('Guarded.docx', 'guarded')
    const good = await h.callbackUrl(file.id)
    const forged = [
      `${h.folio.url}/onlyoffice/callback/${file.id}?token=forged`,
      `${h.folio.url}/onlyoffice/callback/anything`,
      good.replace(file.id, 'another-file-id'),
    ]
    for (const url of forged) {
      for (const type of ['application/json', 'application/octet-stream']) {
        // 16 MiB announced, 1 KiB sent, then nothing: a server that read the body first
        // would wait for the rest and answer 408.
        const exchange = await rawRequest(url, callbackHead(url, type, 16 * 1024 * 1024), ['x'.repeat(1024)], 0)
        assert.match(exchange.reply, /^HTTP\/1\.1 403 /, `${url} ${type}: ${exchange.reply}`)
        assert.match(exchange.reply, /connection: close/i)
        assert.match(exchange.reply, /"error":1/)
      }
    }
  })

  test('a non-JSON body trickling in is cut at the body deadline, as a JSON one is', async () => {
    const file = await h.upload('Trickle.docx', 'trickle')
    const url = await h.callbackUrl(file.id)
    // A byte every 100 ms never trips the idle timeout; only a whole-body deadline ends it.
    const chunks = Array.from({ length: 150 }, () => ' ')
    for (const type of ['application/octet-stream', 'application/json']) {
      const exchange = await rawRequest(url, callbackHead(url, type, 1000), chunks, 100)
      assert.match(exchange.reply, /^HTTP\/1\.1 408 /, `${type}: ${exchange.reply}`)
      assert.equal(exchange.cutShort, true, `${type}: the server waited for the whole trickle`)
    }
    assert.equal((await h.file(file.id)).version, 1)
  })
})
