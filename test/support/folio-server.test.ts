import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { test } from 'node:test'
import { startTestServer, type TestServer } from './folio-server.js'

/**
 * Opens a connection that is busy (half a request sent), so the server cannot call it
 * idle, and that the client never closes itself: only the server can end it.
 */
async function openBusyConnection(server: TestServer): Promise<{ socket: Socket; closed: Promise<unknown> }> {
  const { hostname, port } = new URL(server.url)
  const accepted = once(server.app.server, 'connection')
  const socket = connect(Number(port), hostname)
  socket.on('error', () => undefined)
  // The server's cut may reach the client as a reset (an 'error' first): only the close counts.
  const closed = new Promise<unknown>((resolve) => socket.once('close', resolve))
  await once(socket, 'connect')
  socket.write(`GET /api/2.0/capabilities HTTP/1.1\r\nHost: ${hostname}\r\n`)
  await accepted
  return { socket, closed }
}

// A stop that waited for the client would never end (the client never closes): the
// test would time out instead of passing.
for (const how of ['stop', 'restart', 'dispose'] as const) {
  test(`${how} does not wait for a client's open connection: it cuts it`, { timeout: 60_000 }, async () => {
    const server = await startTestServer()
    const { socket, closed } = await openBusyConnection(server)
    try {
      if (how === 'restart') {
        const again = await server.restart()
        await closed
        await again.dispose()
      } else {
        await server[how]()
        await closed
        await server.dispose()
      }
      assert.equal(socket.destroyed, true)
    } finally {
      socket.destroy()
    }
  })
}
