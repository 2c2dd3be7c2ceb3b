import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import { startTestServer } from './folio-server.js'

/** Opens a connection that is busy (half a request sent), so the server cannot call it idle. */
async function openBusyConnection(url: string): Promise<() => void> {
  const { hostname, port } = new URL(url)
  const socket = connect(Number(port), hostname)
  socket.on('error', () => undefined)
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  socket.write(`GET /api/2.0/capabilities HTTP/1.1\r\nHost: ${hostname}\r\n`)
  // Let the server read the partial request before the test stops it.
  await new Promise((resolve) => setTimeout(resolve, 50))
  return () => socket.destroy()
}

for (const how of ['stop', 'restart', 'dispose'] as const) {
  test(`${how} does not wait for a client's open connection`, async () => {
    const server = await startTestServer()
    const close = await openBusyConnection(server.url)
    const started = Date.now()
    try {
      if (how === 'restart') {
        const again = await server.restart()
        assert.ok(Date.now() - started < 5000, `${how} took ${Date.now() - started} ms`)
        await again.dispose()
      } else {
        await server[how]()
        assert.ok(Date.now() - started < 5000, `${how} took ${Date.now() - started} ms`)
        await server.dispose()
      }
    } finally {
      close()
    }
  })
}
