import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, describe, test } from 'node:test'
import { lazyMount, type LazyMount, type ReadyHandler } from './lazy-mount.js'

/** A node:http server whose every request goes to `mount`. */
async function serve(
  mount: LazyMount,
  arrived: () => void = () => undefined,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    arrived()
    mount.handle(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, server }
}

const answerPath: ReadyHandler = (req, res) => res.end(`built answers ${req.url ?? ''}`)

describe('lazyMount', () => {
  const servers: Server[] = []
  after(() => {
    for (const server of servers) server.close()
  })

  test('concurrent first requests share one build, and every request is answered by it', async () => {
    let builds = 0
    let closed = 0
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    const mount = lazyMount(
      '/api',
      async () => {
        builds++
        await gate
        return { handler: answerPath, close: async () => void closed++ }
      },
      () => assert.fail('no build fails here'),
    )
    let inFlight = 0
    let allIn: () => void = () => undefined
    const threeIn = new Promise<void>((resolve) => (allIn = resolve))
    const { url, server } = await serve(mount, () => {
      if (++inFlight === 3) allIn()
    })
    servers.push(server)
    const first = Promise.all(['/api/a', '/api/b', '/api/c'].map((path) => fetch(url + path).then((r) => r.text())))
    // The build is held until all three requests have reached the mount.
    await threeIn
    release()
    assert.deepEqual(await first, ['built answers /api/a', 'built answers /api/b', 'built answers /api/c'])
    assert.equal(await (await fetch(`${url}/api/d`)).text(), 'built answers /api/d')
    assert.equal(builds, 1)
    await mount.close()
    assert.equal(closed, 1)
  })

  test('a failed build answers 500 and the next request builds again', async () => {
    let builds = 0
    const errors: unknown[] = []
    const mount = lazyMount(
      '/api',
      async () => {
        builds++
        if (builds === 1) throw new Error('first build fails')
        return { handler: answerPath, close: async () => undefined }
      },
      (error) => errors.push(error),
    )
    const { url, server } = await serve(mount)
    servers.push(server)
    const failed = await fetch(`${url}/api/x`)
    assert.equal(failed.status, 500)
    assert.equal(errors.length, 1)
    assert.equal(await (await fetch(`${url}/api/y`)).text(), 'built answers /api/y')
    assert.equal(builds, 2)
  })

  test('closing a mount that never served builds nothing', async () => {
    let builds = 0
    const mount = lazyMount(
      '/api',
      async () => {
        builds++
        return { handler: answerPath, close: async () => undefined }
      },
      () => undefined,
    )
    await mount.close()
    assert.equal(builds, 0)
  })
})
