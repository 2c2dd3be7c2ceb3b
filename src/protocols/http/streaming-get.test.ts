import assert from 'node:assert/strict'
import { createServer, type RequestListener, type Server } from 'node:http'
import { test } from 'node:test'
import { text } from 'node:stream/consumers'

import { createStreamingGetter } from './streaming-get.js'

async function serve(handler: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { url: `http://127.0.0.1:${port}`, server }
}

test('a GET streams the body and reuses the connection for the next one', async (t) => {
  const sockets = new Set<unknown>()
  const { url, server } = await serve((request, response) => {
    sockets.add(request.socket)
    response.writeHead(200, { 'content-length': '5' })
    response.end('hello')
  })
  const getter = createStreamingGetter()
  t.after(() => {
    getter.close()
    server.close()
  })
  for (let i = 0; i < 2; i++) {
    const answer = await getter.get(`${url}/file`, 5000)
    assert.equal(answer.statusCode, 200)
    assert.equal(answer.headers['content-length'], '5')
    assert.equal(await text(answer.body), 'hello')
  }
  assert.equal(sockets.size, 1)
})

test('a redirect is answered as it is, not followed', async (t) => {
  let calls = 0
  const { url, server } = await serve((_request, response) => {
    calls++
    response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' })
    response.end()
  })
  const getter = createStreamingGetter()
  t.after(() => {
    getter.close()
    server.close()
  })
  const answer = await getter.get(`${url}/file`, 5000)
  assert.equal(answer.statusCode, 302)
  answer.body.resume()
  assert.equal(calls, 1)
})

test('a body cut short by the server fails instead of ending cleanly', async (t) => {
  const { url, server } = await serve((request, response) => {
    response.writeHead(200, { 'content-length': '1000' })
    response.write('only part')
    setTimeout(() => request.socket.destroy(), 20)
  })
  const getter = createStreamingGetter()
  t.after(() => {
    getter.close()
    server.close()
  })
  const answer = await getter.get(`${url}/file`, 5000)
  await assert.rejects(text(answer.body), { code: 'ECONNRESET' })
})

test('the timeout covers the body: a stalled body fails once it passes', async (t) => {
  const { url, server } = await serve((_request, response) => {
    response.writeHead(200, { 'content-length': '1000' })
    response.write('slow')
  })
  const getter = createStreamingGetter()
  t.after(() => {
    getter.close()
    server.closeAllConnections()
    server.close()
  })
  const answer = await getter.get(`${url}/file`, 200)
  await assert.rejects(text(answer.body), /within 200 ms/)
})

test('a server that never answers fails the GET after the timeout', async (t) => {
  const { url, server } = await serve(() => undefined)
  const getter = createStreamingGetter()
  t.after(() => {
    getter.close()
    server.closeAllConnections()
    server.close()
  })
  await assert.rejects(getter.get(`${url}/file`, 200), /within 200 ms/)
})

test('an address nobody listens on fails the GET', async (t) => {
  const { url, server } = await serve(() => undefined)
  await new Promise((resolve) => server.close(resolve))
  const getter = createStreamingGetter()
  t.after(() => getter.close())
  await assert.rejects(getter.get(`${url}/file`, 5000), { code: 'ECONNREFUSED' })
})
