import { createHash } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { unzipSync } from 'fflate'
import { SignJWT, jwtVerify } from 'jose'
import {
  EditorOpenError,
  sleepUnlessAborted,
  startDocsSimulator,
  type DocsSimulator,
  type DocsSimulatorOptions,
  type EditorConfig,
  type SentCallback,
} from './docs-server-simulator.js'

const SECRET = 'simulator-test-secret'
const SECRET_KEY = new TextEncoder().encode(SECRET)
const ORIGINAL = new TextEncoder().encode('original document bytes')
const EDITED = new TextEncoder().encode('edited document bytes')
const ALICE = { id: 'u-alice', name: 'Alice' }
const BOB = { id: 'u-bob', name: 'Bob' }

interface Received {
  method: string
  path: string
  headers: IncomingHttpHeaders
  raw: string
}

/** A tiny stand-in for the integrator: serves document.url and answers callbacks. */
interface Receiver {
  url: string
  received: Received[]
  /** Decides the reply to a callback POST; default 200 {"error":0}. */
  respond: (body: Record<string, unknown>) => { status: number; body: string }
  close(): Promise<void>
}

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = []
  const receiver: Receiver = {
    url: '',
    received,
    respond: () => ({ status: 200, body: '{"error":0}' }),
    close: () => closeServer(server),
  }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const path = req.url ?? '/'
      received.push({ method: req.method ?? '', path, headers: req.headers, raw })
      if (req.method === 'GET' && path.startsWith('/files/')) {
        if (path.endsWith('/missing.docx')) {
          res.writeHead(404).end()
          return
        }
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(ORIGINAL)
        return
      }
      const parsed: unknown = raw ? JSON.parse(raw) : {}
      const answer = receiver.respond(isRecord(parsed) ? parsed : {})
      res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  receiver.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  return receiver
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The config as JWT claims (an interface has no index signature). */
function claimsOf(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value))
}

let counter = 0
function newKey(): string {
  counter += 1
  return `doc-${Date.now()}-${counter}`
}

async function buildConfig(
  receiver: Receiver,
  key: string,
  user: { id: string; name: string },
  options: { forcesave?: boolean; file?: string; sign?: boolean; omitCallbackInToken?: boolean } = {},
): Promise<EditorConfig> {
  const config = {
    documentType: 'word',
    document: {
      fileType: 'docx',
      key,
      title: 'Report.docx',
      url: `${receiver.url}/files/${options.file ?? 'report.docx'}`,
      permissions: { edit: true },
    },
    editorConfig: {
      callbackUrl: `${receiver.url}/callback?key=${key}`,
      mode: 'edit',
      user,
      customization: { forcesave: options.forcesave ?? false },
    },
  }
  if (options.sign === false) return config
  const claims = options.omitCallbackInToken
    ? { ...config, editorConfig: { ...config.editorConfig, callbackUrl: undefined } }
    : config
  const token = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(SECRET_KEY)
  return { ...config, token }
}

function callbacksFor(receiver: Receiver, key: string): Received[] {
  return receiver.received.filter((r) => r.method === 'POST' && r.path === `/callback?key=${key}`)
}

function parse(received: Received | undefined): Record<string, unknown> {
  assert.ok(received, 'expected a callback')
  const body: unknown = JSON.parse(received.raw)
  assert.ok(isRecord(body))
  return body
}

function withoutToken(body: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...body }
  delete copy.token
  return copy
}

function dropTimes(claims: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...claims }
  delete copy.iat
  delete copy.exp
  return copy
}

function bearer(headers: IncomingHttpHeaders, name = 'authorization'): string {
  const value = headers[name]
  assert.equal(typeof value, 'string')
  assert.ok(typeof value === 'string' && value.startsWith('Bearer '))
  return value.slice('Bearer '.length)
}

async function postCommand(
  sim: DocsSimulator,
  body: Record<string, unknown>,
  sign = true,
): Promise<Record<string, unknown>> {
  const payload = sign ? { token: await new SignJWT(body).setProtectedHeader({ alg: 'HS256' }).sign(SECRET_KEY) } : body
  const res = await fetch(`${sim.url}/command`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(payload),
  })
  assert.equal(res.status, 200)
  const answer: unknown = await res.json()
  assert.ok(isRecord(answer))
  return answer
}

describe('docs-server simulator (JWT on)', () => {
  let receiver: Receiver
  let sim: DocsSimulator
  let clockOffset = 0
  // Set by a test to hold the simulator's next delay until it releases it.
  let holdNextDelay: ((delay: { ms: number; release: () => void }) => void) | undefined
  const options: DocsSimulatorOptions = {
    jwtSecret: SECRET,
    saveDelayMs: 30,
    retryBaseMs: 20,
    downloadRetryMs: 10,
    now: () => Date.now() + clockOffset,
    wait: (ms, signal) => {
      const hold = holdNextDelay
      holdNextDelay = undefined
      if (hold === undefined) return sleepUnlessAborted(ms, signal)
      return new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve(), { once: true })
        hold({ ms, release: resolve })
      })
    },
  }

  before(async () => {
    receiver = await startReceiver()
    sim = await startDocsSimulator(options)
  })
  after(async () => {
    await sim.close()
    await receiver.close()
  })

  test('opening downloads document.url with a {payload:{url}} JWT, then posts status 1', async () => {
    const key = newKey()
    const config = await buildConfig(receiver, key, ALICE)
    const session = await sim.openEditor(config, ALICE)

    assert.deepEqual(session.downloaded, ORIGINAL)
    const get = receiver.received.find((r) => r.method === 'GET' && r.path === '/files/report.docx')
    assert.ok(get)
    assert.equal(get.headers['user-agent'], 'Node.js/6.13')
    const { payload: download } = await jwtVerify(bearer(get.headers), SECRET_KEY)
    assert.deepEqual(download.payload, { url: `${receiver.url}/files/report.docx` })

    const [joined] = callbacksFor(receiver, key)
    assert.ok(joined)
    assert.equal(joined.headers['content-type'], 'application/json')
    assert.equal(joined.headers['user-agent'], 'Node.js/6.13')
    assert.equal(joined.headers.connection, 'Keep-Alive')
    assert.equal(joined.headers.accept, 'application/json, text/plain, */*')
    const body = parse(joined)
    assert.deepEqual(Object.keys(body), ['key', 'status', 'users', 'actions', 'token'])
    assert.deepEqual(withoutToken(body), {
      key,
      status: 1,
      users: [ALICE.id],
      actions: [{ type: 1, userid: ALICE.id }],
    })
    await session.disconnect()
  })

  test('status 2 after the last editor leaves: A2 field order, both JWTs, working cache links', async () => {
    const key = newKey()
    const session = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
    session.edit(EDITED)
    const delayAsked = new Promise<{ ms: number; release: () => void }>((resolve) => {
      holdNextDelay = resolve
    })
    const leaving = session.disconnect()
    const delay = await delayAsked
    assert.equal(delay.ms, 30, 'the save waits saveDelayMs')
    const status2 = () => callbacksFor(receiver, key).filter((r) => parse(r).status === 2)
    assert.deepEqual(status2(), [], 'no status 2 while the delay runs')
    delay.release()
    await leaving

    const saved = callbacksFor(receiver, key).at(-1)
    const body = parse(saved)
    assert.deepEqual(Object.keys(body), [
      'key',
      'status',
      'url',
      'changesurl',
      'history',
      'users',
      'actions',
      'lastsave',
      'notmodified',
      'token',
      'filetype',
    ])
    assert.equal(body.status, 2)
    assert.deepEqual(body.users, [ALICE.id])
    assert.deepEqual(body.actions, [{ type: 0, userid: ALICE.id }])
    assert.equal(body.notmodified, false)
    assert.equal(body.filetype, 'docx')

    assert.equal(typeof body.token, 'string')
    const bodyToken = await jwtVerify(String(body.token), SECRET_KEY)
    assert.deepEqual(dropTimes(bodyToken.payload), withoutToken(body))
    assert.equal(Number(bodyToken.payload.exp) - Number(bodyToken.payload.iat), 300)
    assert.ok(saved)
    const headerToken = await jwtVerify(bearer(saved.headers), SECRET_KEY)
    assert.deepEqual(headerToken.payload.payload, withoutToken(body))

    assert.ok(isRecord(body.history))
    assert.equal(body.history.serverVersion, '8.3.0')
    assert.ok(Array.isArray(body.history.changes))
    const [change] = body.history.changes
    assert.ok(isRecord(change))
    assert.match(String(change.created), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    assert.deepEqual(change.user, ALICE)
    assert.equal(change.documentSha256, createHash('sha256').update(ORIGINAL).digest('hex'))

    const url = String(body.url)
    const link = `/cache/files/data/${key}_\\d+/output\\.docx/output\\.docx`
    const query = `\\?md5=[\\w-]+&expires=\\d+&shardkey=${key}&filename=output\\.docx`
    assert.match(url, new RegExp(`^${sim.url}${link}${query}$`))
    const file = await fetch(url)
    assert.equal(file.status, 200)
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), EDITED)
    const zip = await fetch(String(body.changesurl))
    assert.equal(zip.status, 200)
    const entries = unzipSync(new Uint8Array(await zip.arrayBuffer()))
    assert.deepEqual(Object.keys(entries), ['changes0.json'])

    const tampered = url.replace(/md5=([\w-])/, (_, c: string) => `md5=${c === 'A' ? 'B' : 'A'}`)
    assert.equal((await fetch(tampered)).status, 403)
    clockOffset = 902_000
    try {
      assert.equal((await fetch(url)).status, 410, 'nginx answers 410 once expires has passed')
    } finally {
      clockOffset = 0
    }

    await assert.rejects(
      sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE),
      (err: unknown) => err instanceof EditorOpenError && err.code === 'VERSION_CHANGED',
    )
  })

  test('HTTP 500 on status 2: retries after 1, 2, 4 × base, then the key is forgotten', async () => {
    const key = newKey()
    receiver.respond = (body) =>
      body.status === 2 ? { status: 500, body: 'oops' } : { status: 200, body: '{"error":0}' }
    try {
      const session = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
      session.edit(EDITED)
      await session.disconnect()
    } finally {
      receiver.respond = () => ({ status: 200, body: '{"error":0}' })
    }
    const tries = sim.callbacks.filter((c) => c.body.key === key && c.status === 2)
    assert.deepEqual(
      tries.map((c) => [c.attempt, c.httpStatus, c.ok]),
      [
        [1, 500, false],
        [2, 500, false],
        [3, 500, false],
        [4, 500, false],
      ],
    )
    const gaps = tries.slice(1).map((c, i) => c.sentAt - (tries[i]?.sentAt ?? 0))
    gaps.forEach((gap, i) => assert.ok(gap >= 20 * 2 ** i - 2, `gap ${i} was ${gap} ms`))
    assert.ok(sim.forgotten.includes(key))

    const forgotten = await postCommand(sim, { c: 'getForgotten', key })
    assert.equal(forgotten.error, 0)
    const file = await fetch(String(forgotten.url))
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), EDITED)

    const gets = receiver.received.filter((r) => r.method === 'GET').length
    const reopened = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
    assert.deepEqual(reopened.downloaded, EDITED, 'reopening loads the forgotten file')
    assert.deepEqual(reopened.warnings, ['File not assembled'])
    assert.equal(receiver.received.filter((r) => r.method === 'GET').length, gets)
    await reopened.disconnect({ explicitClose: true })
    const resaved = sim.callbacks.filter((c) => c.body.key === key && c.status === 2).at(-1)
    assert.ok(resaved?.ok)
    assert.deepEqual(resaved.body.history, {}, 'a save from a forgotten file has empty history')
  })

  test('replies other than 200/204 with error == 0 fail without retry', async () => {
    const cases: Array<[number, string, boolean]> = [
      [200, '{"error":"0"}', true],
      [204, '', false],
      [200, '', false],
      [200, '{"error":1}', false],
      [404, '{"error":0}', false],
      [201, '{"error":0}', false],
    ]
    for (const [status, reply, ok] of cases) {
      const key = newKey()
      receiver.respond = (body) => (body.status === 2 ? { status, body: reply } : { status: 200, body: '{"error":0}' })
      try {
        const session = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
        session.edit(EDITED)
        await session.disconnect()
      } finally {
        receiver.respond = () => ({ status: 200, body: '{"error":0}' })
      }
      const tries = sim.callbacks.filter((c) => c.body.key === key && c.status === 2)
      assert.equal(tries.length, 1, `${status} ${reply}`)
      assert.equal(tries[0]?.ok, ok, `${status} ${reply}`)
      assert.equal(sim.forgotten.includes(key), !ok, `${status} ${reply}`)
    }
  })

  test('status 4 when the last editor leaves without changes; the key stays usable', async () => {
    const key = newKey()
    const session = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
    await session.disconnect()
    const body = parse(callbacksFor(receiver, key).at(-1))
    assert.deepEqual(withoutToken(body), { key, status: 4, actions: [{ type: 0, userid: ALICE.id }] })
    const again = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
    assert.deepEqual(again.downloaded, ORIGINAL)
    await again.disconnect()
  })

  test('co-editing: status 1 with the full users list on each join and leave', async () => {
    const key = newKey()
    const alice = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
    const bob = await sim.openEditor(await buildConfig(receiver, key, BOB), BOB)
    bob.edit(EDITED)
    await bob.disconnect()
    await alice.disconnect()
    const bodies = callbacksFor(receiver, key).map((r) => withoutToken(parse(r)))
    assert.deepEqual(bodies.slice(0, 3), [
      { key, status: 1, users: [ALICE.id], actions: [{ type: 1, userid: ALICE.id }] },
      { key, status: 1, users: [ALICE.id, BOB.id], actions: [{ type: 1, userid: BOB.id }] },
      { key, status: 1, users: [ALICE.id], actions: [{ type: 0, userid: BOB.id }] },
    ])
    const saved = bodies[3]
    assert.ok(saved)
    assert.equal(saved.status, 2)
    assert.deepEqual(saved.users, [BOB.id], 'users holds the last author')
    assert.deepEqual(saved.actions, [{ type: 0, userid: ALICE.id }], 'actions holds the last leaver')
  })

  test('an editor coming back during the save delay cancels status 2', async () => {
    const key = newKey()
    const first = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
    first.edit(EDITED)
    const leaving = first.disconnect()
    const second = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
    await leaving
    assert.equal(sim.callbacks.filter((c) => c.body.key === key && c.status === 2).length, 0)
    await second.disconnect({ explicitClose: true })
    assert.equal(sim.callbacks.filter((c) => c.body.key === key && c.status === 2).length, 1)
  })

  test('command forcesave: {error:0}, then status 6 forcesavetype 0 with the same key', async () => {
    const key = newKey()
    const session = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
    assert.deepEqual(await postCommand(sim, { c: 'forcesave', key }), { key, error: 4 })
    session.edit(EDITED)
    assert.deepEqual(await postCommand(sim, { c: 'forcesave', key, userdata: 'mine' }), { key, error: 0 })
    const forced = await sim.waitForCallback((c) => c.body.key === key && c.status === 6)
    assert.ok(forced.ok)
    assert.deepEqual(Object.keys(forced.body), [
      'key',
      'status',
      'url',
      'changesurl',
      'history',
      'users',
      'userdata',
      'lastsave',
      'forcesavetype',
      'token',
      'filetype',
    ])
    assert.equal(forced.body.forcesavetype, 0)
    assert.equal(forced.body.userdata, 'mine')
    assert.deepEqual(forced.body.users, [ALICE.id])
    const file = await fetch(String(forced.body.url))
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), EDITED)
    assert.equal(session.key, key)

    assert.deepEqual(await postCommand(sim, { c: 'forcesave', key }), { key, error: 4 })
    await session.disconnect()
    const saved = sim.callbacks.filter((c) => c.body.key === key && c.status === 2).at(-1)
    assert.equal(saved?.body.notmodified, true)
  })

  test('command service: info, version, unknown key, bad token, unknown command', async () => {
    const key = newKey()
    const session = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
    assert.deepEqual(await postCommand(sim, { c: 'info', key, userdata: 'x' }), {
      key,
      error: 0,
      users: [ALICE.id],
    })
    const info = sim.callbacks.at(-1)
    assert.deepEqual(info && withoutToken(info.body), { key, status: 1, users: [ALICE.id], userdata: 'x' })
    assert.deepEqual(await postCommand(sim, { c: 'version' }), { error: 0, version: '8.3.0.1' })
    assert.deepEqual(await postCommand(sim, { c: 'info', key: 'never-opened' }), {
      key: 'never-opened',
      error: 1,
    })
    assert.deepEqual(await postCommand(sim, { c: 'forcesave', key }, false), { key, error: 6 })
    assert.deepEqual(await postCommand(sim, { c: 'dance', key }), { key, error: 5 })
    assert.deepEqual(await postCommand(sim, { c: 'meta', key }), { key, error: 5 })
    assert.equal(sim.commands.at(-1)?.c, 'meta')
    await session.disconnect()
  })

  test('Save button: status 6 forcesavetype 1 with action type 2, sent to the clicker', async () => {
    const key = newKey()
    const session = await sim.openEditor(await buildConfig(receiver, key, ALICE, { forcesave: true }), ALICE)
    assert.equal(await session.clickSave(), undefined, 'nothing to save yet')
    session.edit(EDITED)
    const sent = await session.clickSave()
    assert.ok(sent)
    assert.equal(sent.status, 6)
    assert.equal(sent.body.forcesavetype, 1)
    assert.deepEqual(sent.body.actions, [{ type: 2, userid: ALICE.id }])
    await session.disconnect({ explicitClose: true })
  })

  test('failNextSave: status 3 keeps url only when corrupted; status 7 for a forcesave', async () => {
    for (const kind of ['corrupted', 'conversion'] as const) {
      const key = newKey()
      const session = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE)
      session.edit(EDITED)
      session.failNextSave(kind)
      await session.disconnect({ explicitClose: true })
      const sent = sim.callbacks.filter((c) => c.body.key === key).at(-1)
      assert.equal(sent?.status, 3)
      assert.equal('url' in (sent?.body ?? {}), kind === 'corrupted')
    }
    const key = newKey()
    const session = await sim.openEditor(await buildConfig(receiver, key, ALICE, { forcesave: true }), ALICE)
    session.edit(EDITED)
    session.failNextSave('conversion')
    const sent: SentCallback | undefined = await session.clickSave()
    assert.equal(sent?.status, 7)
    assert.equal(sent && 'url' in sent.body, false)
    await session.disconnect({ explicitClose: true })
  })

  test('serve modes make the cache link misbehave', async () => {
    const key = newKey()
    const session = await sim.openEditor(await buildConfig(receiver, key, ALICE), ALICE, {
      serveMode: 'redirect-elsewhere',
    })
    session.edit(EDITED)
    await session.disconnect({ explicitClose: true })
    const url = String(sim.callbacks.filter((c) => c.body.key === key).at(-1)?.body.url)
    const redirected = await fetch(url, { redirect: 'manual' })
    assert.equal(redirected.status, 302)
    assert.ok(redirected.headers.get('location')?.startsWith(sim.elsewhereUrl))
    session.setServeMode('http500')
    assert.equal((await fetch(url)).status, 500)
  })

  test('refuses what DS refuses: missing token params, bad key, wrong secret, download errors', async () => {
    const refused = async (config: EditorConfig, code: string): Promise<void> => {
      await assert.rejects(
        sim.openEditor(config, ALICE),
        (err: unknown) => err instanceof EditorOpenError && err.code === code,
      )
    }
    await refused(await buildConfig(receiver, newKey(), ALICE, { omitCallbackInToken: true }), 'JWT_ERROR')
    await refused(await buildConfig(receiver, 'bad/key', ALICE), 'INVALID_CONFIG')
    await refused(await buildConfig(receiver, newKey(), ALICE, { sign: false }), 'JWT_ERROR')
    const forged = await buildConfig(receiver, newKey(), ALICE, { sign: false })
    const wrong = new TextEncoder().encode('not-the-secret')
    await refused(
      {
        ...forged,
        token: await new SignJWT(claimsOf(forged)).setProtectedHeader({ alg: 'HS256' }).sign(wrong),
      },
      'JWT_ERROR',
    )
    const withUrl = { ...claimsOf(forged), url: 'http://elsewhere.invalid/' }
    await refused(
      { ...forged, token: await new SignJWT(withUrl).setProtectedHeader({ alg: 'HS256' }).sign(SECRET_KEY) },
      'ACCESS_DENIED',
    )

    const key = newKey()
    const before = sim.downloads.length
    await refused(await buildConfig(receiver, key, ALICE, { file: 'missing.docx' }), 'DOWNLOAD_FAILED')
    const attempts = sim.downloads.slice(before)
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.httpStatus]),
      [
        [1, 404],
        [2, 404],
        [3, 404],
      ],
    )
    assert.equal(callbacksFor(receiver, key).length, 0, 'no status 1 after a failed download')
  })

  test('sendCallback forges bodies signed with a wrong secret', async () => {
    const sent = await sim.sendCallback(`${receiver.url}/forged`, { key: 'k', status: 2 }, { sign: 'wrong-secret' })
    assert.equal(sent.httpStatus, 200)
    await assert.rejects(jwtVerify(String(sent.body.token), SECRET_KEY), {
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    })
    const forged = receiver.received.at(-1)
    assert.ok(forged)
    await assert.rejects(jwtVerify(bearer(forged.headers), SECRET_KEY), {
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    })
  })
})

describe('docs-server simulator (JWT off, custom header name)', () => {
  test('no tokens anywhere; the JWT header name is configurable', async () => {
    const receiver = await startReceiver()
    const plain = await startDocsSimulator({ saveDelayMs: 10 })
    const signed = await startDocsSimulator({ jwtSecret: SECRET, jwtHeader: 'AuthorizationJwt' })
    try {
      const key = newKey()
      const session = await plain.openEditor(await buildConfig(receiver, key, ALICE, { sign: false }), ALICE)
      await session.disconnect()
      const [joined, closed] = callbacksFor(receiver, key)
      assert.ok(joined && closed)
      assert.equal(joined.headers.authorization, undefined)
      assert.deepEqual(parse(closed), { key, status: 4, actions: [{ type: 0, userid: ALICE.id }] })

      const other = newKey()
      const tab = await signed.openEditor(await buildConfig(receiver, other, ALICE), ALICE)
      const [join] = callbacksFor(receiver, other)
      assert.ok(join)
      assert.equal(join.headers.authorization, undefined)
      await jwtVerify(bearer(join.headers, 'authorizationjwt'), SECRET_KEY)
      await tab.disconnect()
    } finally {
      await plain.close()
      await signed.close()
      await receiver.close()
    }
  })
})
