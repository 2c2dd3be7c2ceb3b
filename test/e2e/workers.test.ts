/**
 * FOLIO_WORKERS=2: a real `folio serve` runs a primary and two worker processes on one
 * port over one data folder. Requests reach both workers; a WOPI lock taken through one
 * is honoured through the other; a worker killed with SIGKILL is replaced and the lock
 * it granted still holds; a metrics scrape through either worker reports both, and one
 * made while a worker is being replaced answers for those serving.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { Client } from 'undici'
import { serveFolio, serveFolioAt, type ServedFolio } from '../support/folio-command.js'
import { ADMIN_PASSWORD } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'

/** One connection, so every request on it reaches the same worker. */
interface Pinned {
  client: Client
  worker: number
}

async function workerOf(client: Client): Promise<number> {
  const reply = await client.request({ method: 'GET', path: '/healthz' })
  const body = (await reply.body.json()) as { worker?: unknown }
  assert.equal(typeof body.worker, 'number', `healthz without a worker number: ${JSON.stringify(body)}`)
  return Number(body.worker)
}

async function wopi(pinned: Pinned, path: string, override: string, lockId?: string) {
  const headers: Record<string, string> = { 'x-wopi-override': override }
  if (lockId !== undefined) headers['x-wopi-lock'] = lockId
  const reply = await pinned.client.request({ method: 'POST', path, headers })
  await reply.body.text()
  const lock = reply.headers['x-wopi-lock']
  return { status: reply.statusCode, lock: typeof lock === 'string' ? lock : undefined }
}

const METRICS_TOKEN = 'workers-metrics-token'

/** Sum of folio_http_requests_total for one route, in a scrape through `pinned`'s worker. */
async function requestsCounted(pinned: Pinned, route: string): Promise<number> {
  const reply = await pinned.client.request({
    method: 'GET',
    path: '/metrics',
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  })
  const text = await reply.body.text()
  assert.equal(reply.statusCode, 200, text)
  let total = 0
  for (const line of text.split('\n')) {
    if (line.startsWith('folio_http_requests_total{') && line.includes(`route="${route}"`)) {
      total += Number(line.slice(line.lastIndexOf(' ') + 1))
    }
  }
  return total
}

// The workers share the SQLite data folder; PostgreSQL and S3 runs cover the store elsewhere.
const skip = process.env.FOLIO_TEST_METADATA === 'postgres' ? 'covered by the SQLite run' : false

describe('FOLIO_WORKERS=2', { skip }, () => {
  let dataDir = ''
  let folio: ServedFolio | undefined
  let url = ''
  const clients: Client[] = []

  const logShows = (pattern: RegExp, what: string): Promise<RegExpExecArray> => {
    if (!folio) throw new Error('folio serve is not running')
    return folio.waitForLog(pattern, what)
  }

  /** Opens connections until one reaches each of the wanted workers. */
  async function pinTo(wanted: number[]): Promise<Map<number, Pinned>> {
    const pinned = new Map<number, Pinned>()
    for (let attempt = 0; attempt < 50 && pinned.size < wanted.length; attempt++) {
      const client = new Client(url, { pipelining: 1 })
      clients.push(client)
      const worker = await workerOf(client)
      if (wanted.includes(worker) && !pinned.has(worker)) pinned.set(worker, { client, worker })
    }
    assert.equal(pinned.size, wanted.length, `reached workers ${[...pinned.keys()].join(', ')} of ${wanted.join(', ')}`)
    return pinned
  }

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'folio-workers-'))
    const served = await serveFolioAt(dataDir, { FOLIO_WORKERS: '2', FOLIO_METRICS_TOKEN: METRICS_TOKEN })
    folio = served.folio
    url = served.url
  })

  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)))
    await folio?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  test('a metrics scrape through either worker counts the requests every worker answered', async () => {
    const workers = await pinTo([1, 2])
    const one = workers.get(1)
    const two = workers.get(2)
    assert.ok(one && two)
    const before = await requestsCounted(one, '/readyz')
    const ready = async (pinned: Pinned, times: number) => {
      for (let i = 0; i < times; i++) {
        const reply = await pinned.client.request({ method: 'GET', path: '/readyz' })
        await reply.body.text()
        assert.equal(reply.statusCode, 200)
      }
    }
    await ready(one, 5)
    await ready(two, 7)
    // Each worker answered only some of the 12; a scrape through either reports all of them.
    assert.equal(await requestsCounted(two, '/readyz'), before + 12)
    assert.equal(await requestsCounted(one, '/readyz'), before + 12)
  })

  test('both workers answer, a lock taken through one holds through the other, and a killed worker is replaced', async () => {
    const workers = await pinTo([1, 2])
    const one = workers.get(1)
    const two = workers.get(2)
    assert.ok(one && two)

    // The admin account was made once, by the primary; any worker signs it in.
    const token = await signIn(url, 'admin', ADMIN_PASSWORD)
    const upload = await call(url, 'POST', '/api/2.0/files/@my/upload?title=shared.docx', {
      token,
      raw: 'shared between workers',
      headers: { 'content-type': 'application/octet-stream' },
    })
    assert.equal(upload.status, 201, upload.text)
    const fileId: string = upload.json.response.id
    const access = await call(url, 'POST', `/api/2.0/files/file/${fileId}/wopi`, { token })
    assert.equal(access.status, 200, access.text)
    const path = `/wopi/files/${fileId}?access_token=${encodeURIComponent(access.json.response.accessToken)}`

    assert.equal((await wopi(one, path, 'LOCK', 'taken-on-one')).status, 200)
    const refused = await wopi(two, path, 'LOCK', 'wanted-on-two')
    assert.equal(refused.status, 409)
    assert.equal(refused.lock, 'taken-on-one')
    assert.equal((await wopi(two, path, 'REFRESH_LOCK', 'taken-on-one')).status, 200)

    // Kill worker 1 outright: the primary starts worker 3, and the lock is still there.
    const listening = await logShows(/"pid":(\d+)[^\n]*"worker":1,"msg":"Folio is listening"/, 'worker 1 listening')
    process.kill(Number(listening[1]), 'SIGKILL')
    await logShows(/"worker":1,[^\n]*"msg":"a worker stopped; starting another"/, 'the primary replacing worker 1')
    // A scrape while worker 3 starts answers with the workers that serve: worker 2's two
    // WOPI calls; worker 1's figures died with it, and worker 3 has none yet.
    assert.equal(await requestsCounted(two, '/wopi/files/:fileId'), 2)
    await logShows(/"worker":3,"msg":"Folio is listening"/, 'worker 3 replacing worker 1')
    const three = (await pinTo([3])).get(3)
    assert.ok(three)
    const held = await wopi(three, path, 'GET_LOCK')
    assert.equal(held.status, 200)
    assert.equal(held.lock, 'taken-on-one')
    assert.equal((await wopi(three, path, 'UNLOCK', 'taken-on-one')).status, 200)
    assert.equal((await wopi(two, path, 'GET_LOCK')).lock, '')
  })

  test('a port already taken: the workers cannot serve, and the primary exits non-zero', async () => {
    const squatter = createServer()
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve))
    const address = squatter.address()
    const port = typeof address === 'object' && address ? address.port : 0
    const dir = await mkdtemp(join(tmpdir(), 'folio-workers-taken-'))
    try {
      const failing = serveFolio({
        FOLIO_DATA_DIR: dir,
        FOLIO_PORT: String(port),
        FOLIO_HOST: '127.0.0.1',
        FOLIO_ADMIN_PASSWORD: ADMIN_PASSWORD,
        FOLIO_WORKERS: '2',
      })
      // A primary that waited forever would hang the suite: give up after a minute.
      const guard = setTimeout(() => failing.child.kill('SIGKILL'), 60_000)
      const { code } = await failing.ended()
      clearTimeout(guard)
      const output = failing.log()
      assert.equal(code, 1, output)
      assert.match(output, /EADDRINUSE/)
    } finally {
      squatter.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
