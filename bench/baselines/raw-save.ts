// Baseline: the ceiling of a save. A node:http server that streams each request
// body straight to a file on the same disk and fsyncs it before answering: no
// parsing, hashing, database or rename. DELETE / removes the saved files. Run as
// a child process: PORT names the port, SAVE_DIR the folder.
import { createWriteStream } from 'node:fs'
import { mkdir, open, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'

const dir = process.env.SAVE_DIR ?? ''
if (!dir) throw new Error('SAVE_DIR is required')
await mkdir(dir, { recursive: true })
let counter = 0

const server = createServer((request, response) => {
  const answer = (status: number, text: string) => {
    response.writeHead(status, { 'content-type': 'application/json' })
    response.end(text)
  }
  if (request.method === 'GET') {
    request.resume()
    return answer(200, '{"ready":true}')
  }
  if (request.method === 'DELETE') {
    request.resume()
    rm(dir, { recursive: true, force: true })
      .then(() => mkdir(dir, { recursive: true }))
      .then(
        () => answer(200, '{"deleted":true}'),
        (error: Error) => answer(500, error.message),
      )
    return
  }
  save(join(dir, `body-${++counter}`), request)
    .then((bytes) => answer(200, JSON.stringify({ bytes })))
    .catch((error: Error) => answer(500, JSON.stringify({ error: error.message })))
})
server.listen(Number(process.env.PORT), '127.0.0.1')

async function save(path: string, body: NodeJS.ReadableStream): Promise<number> {
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
