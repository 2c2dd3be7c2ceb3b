// Baseline: the ceiling of any Node.js HTTP server. A bare node:http server that
// reads each request and answers it with a fixed reply, whatever the path. The
// size of the reply body is `?bytes=N` (so it matches what Folio sends), else a
// small JSON. Run as a child process: PORT names the port.
import { createServer } from 'node:http'

const bodies = new Map<number, Buffer>()
const SMALL = Buffer.from('{"ok":true}')

function bodyOf(url: string): Buffer {
  const match = /[?&]bytes=(\d+)/.exec(url)
  if (!match?.[1]) return SMALL
  const size = Number(match[1])
  let body = bodies.get(size)
  if (!body) {
    body = Buffer.alloc(size, 120)
    bodies.set(size, body)
  }
  return body
}

const server = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    const body = bodyOf(request.url ?? '/')
    response.writeHead(200, {
      'content-type': body === SMALL ? 'application/json' : 'application/octet-stream',
      'content-length': String(body.length),
    })
    response.end(body)
  })
})
// Folio keeps idle connections as long; the contention scenario warms them up first.
server.keepAliveTimeout = 65_000
server.listen(Number(process.env.PORT), '127.0.0.1')
