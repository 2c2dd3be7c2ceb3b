// Baseline: the ceiling of an editor save (ONLYOFFICE status 2). A node:http server
// that, for POST /?url=<address>, downloads that address straight to a file on
// the same disk, fsyncs it and only then answers: no JSON, JWT, hashing or
// database. DELETE / removes the files. Run as a child process: PORT names the
// port, SAVE_DIR the folder.
import { createWriteStream } from 'node:fs'
import { mkdir, open, rm } from 'node:fs/promises'
import { createServer, get, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'

const dir = process.env.SAVE_DIR ?? ''
if (!dir) throw new Error('SAVE_DIR is required')
await mkdir(dir, { recursive: true })
let counter = 0

const server = createServer((request, response) => {
  request.resume()
  const answer = (status: number, text: string) => {
    response.writeHead(status, { 'content-type': 'application/json' })
    response.end(text)
  }
  if (request.method === 'GET') {
    request.resume()
    return answer(200, '{"ready":true}')
  }
  if (request.method === 'DELETE') {
    rm(dir, { recursive: true, force: true })
      .then(() => mkdir(dir, { recursive: true }))
      .then(
        () => answer(200, '{"deleted":true}'),
        (error: Error) => answer(500, error.message),
      )
    return
  }
  const source = new URL(request.url ?? '/', 'http://localhost').searchParams.get('url')
  if (!source) return answer(400, '{"error":"?url= is required"}')
  download(source, join(dir, `download-${++counter}`))
    .then((bytes) => answer(200, JSON.stringify({ bytes })))
    .catch((error: Error) => answer(500, JSON.stringify({ error: error.message })))
})
server.listen(Number(process.env.PORT), '127.0.0.1')

async function download(url: string, path: string): Promise<number> {
  const body = await new Promise<IncomingMessage>((resolve, reject) => {
    get(url, resolve).on('error', reject)
  })
  if (body.statusCode !== 200) {
    body.resume()
    throw new Error(`download answered ${body.statusCode}`)
  }
  const stream = createWriteStream(path)
  await pipeline(body, stream)
  // fsync through a second descriptor: Linux flushes the file's data whichever fd asks.
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
  return stream.bytesWritten
}
