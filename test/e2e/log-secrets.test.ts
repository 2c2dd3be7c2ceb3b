import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { createLogger } from '../../src/main.js'
import { bytes, startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { ADMIN_PASSWORD } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'

/** Every credential the flow handles, to look for in the log afterwards. */
const issued = new Set<string>()

function remember(value: unknown): void {
  if (typeof value === 'string' && value.length >= 8) issued.add(value)
}

/** The values of token-like query parameters of a URL. */
function rememberUrlTokens(url: unknown): void {
  if (typeof url !== 'string') return
  for (const [name, value] of new URL(url).searchParams) {
    if (/token|doc/i.test(name)) remember(value)
  }
}

describe('no credential in any log line', () => {
  const lines: string[] = []
  let h: Harness

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(
          ...chunk
            .toString()
            .split('\n')
            .filter((line) => line !== ''),
        )
        done()
      },
    })
    // debug: the most a log can hold short of trace.
    const logger = createLogger({ logLevel: 'debug', logFormat: 'json' }, sink)
    h = await startHarness({ logger })
  })
  after(() => h.close())

  test('a WOPI, portal and ONLYOFFICE flow leaves every token it issued out of the log', async () => {
    remember(h.token)
    remember(ADMIN_PASSWORD)
    const url = h.folio.url

    // Portal: sign in (also through the web interface), a failed sign-in, files.
    remember(await signIn(url))
    const cookieReply = await call(url, 'POST', '/ui/session', {
      body: { userName: 'admin', password: ADMIN_PASSWORD },
    })
    for (const cookie of cookieReply.headers.getSetCookie()) remember(/^[^=]+=([^;]+)/.exec(cookie)?.[1])
    await call(url, 'POST', '/api/2.0/authentication.json', {
      body: { userName: 'admin', password: 'wrong-password-xyz' },
    })
    remember('wrong-password-xyz')
    const file = await h.upload('Secret.docx', 'v1')
    await h.api('GET', `/files/file/${file.id}`)

    // WOPI: token in the query and in the header, a forged token, a missing route with a token.
    const wopiReply = await h.api('POST', `/files/file/${file.id}/wopi`)
    const accessToken: string = wopiReply.json.response.accessToken
    remember(accessToken)
    const q = `?access_token=${encodeURIComponent(accessToken)}`
    await call(url, 'GET', `/wopi/files/${file.id}${q}`)
    await call(url, 'GET', `/wopi/files/${file.id}/contents`, { headers: { Authorization: `Bearer ${accessToken}` } })
    await call(url, 'POST', `/wopi/files/${file.id}${q}`, {
      headers: { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'L1' },
    })
    await call(url, 'POST', `/wopi/files/${file.id}/contents${q}`, {
      headers: { 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'L1' },
      raw: 'v2',
    })
    await call(url, 'POST', `/wopi/files/${file.id}${q}`, {
      headers: { 'X-WOPI-Override': 'UNLOCK', 'X-WOPI-Lock': 'L1' },
    })
    await call(url, 'GET', `/wopi/files/${file.id}?access_token=forged-token-value-123`)
    remember('forged-token-value-123')
    await call(url, 'GET', `/no/such/page${q}`)
    await call(url, 'GET', `/api/2.0/no/such/method${q}`)

    // ONLYOFFICE: config (signed links), an edit with a force save and an exit save, history,
    // a forged callback with a stolen token on another file.
    const config = await h.openConfig(file.id)
    remember(config.token)
    rememberUrlTokens(config.document?.url)
    rememberUrlTokens(config.editorConfig?.callbackUrl)
    const session = await h.sim.openEditor(config)
    session.edit(bytes('v3'))
    await session.clickSave()
    session.edit(bytes('v4'))
    await session.disconnect()
    const history = await h.api('GET', `/files/file/${file.id}/edit-history/2/data`)
    remember(history.json.response.token)
    rememberUrlTokens(history.json.response.url)
    rememberUrlTokens(history.json.response.changesUrl)
    const other = await h.upload('Other.docx', 'o1')
    const stolen = new URL(String(config.editorConfig?.callbackUrl))
    await call(url, 'POST', `/onlyoffice/callback/${other.id}${stolen.search}`, {
      body: { key: 'k', status: 2, url: 'http://x/y' },
    })
    for (const sent of h.sim.callbacks) {
      remember(sent.body.token)
      rememberUrlTokens(sent.url)
      rememberUrlTokens(sent.body.url)
      rememberUrlTokens(sent.body.changesurl)
      for (const value of Object.values(sent.headers)) remember(/^Bearer (.+)$/.exec(value)?.[1])
    }

    assert.ok(issued.size >= 10, `only ${issued.size} credentials collected`)
    assert.ok(lines.length > 20, 'the flow was logged')
    assert.ok(
      lines.some((line) => line.includes('"msg":"request"')),
      'access log lines are present',
    )
    for (const line of lines) {
      for (const secret of issued) {
        assert.ok(!line.includes(secret), `a credential in the log: ${line}`)
      }
    }
  })

  test('a failed ONLYOFFICE download logs its route pattern, never its URL', async () => {
    const file = await h.upload('Vanishing.docx', 'v1')
    const config = await h.openConfig(file.id)
    const link = new URL(String(config.document?.url))
    // The blob store fails (a disk error, S3 down): the download fails on Folio's side.
    const { blobs } = h.folio.ctx
    const { get, getSmall } = blobs
    blobs.get = () => Promise.reject(new Error('the disk failed'))
    blobs.getSmall = () => Promise.reject(new Error('the disk failed'))
    const reply = await call(h.folio.url, 'GET', link.pathname + link.search).finally(() => {
      blobs.get = get
      blobs.getSmall = getSmall
    })
    assert.equal(reply.status, 500)
    const failure = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((entry) => entry.msg === 'ONLYOFFICE download failed')
    assert.ok(failure, 'the failure is logged')
    assert.equal(failure.url, undefined)
    assert.equal(failure.route, '/onlyoffice/download/:fileId')
  })

  test('each request makes one access log line with route, status, duration, bytes and user', async () => {
    const before = lines.length
    const reply = await h.api('GET', `/files/@my`)
    assert.equal(reply.status, 200)
    const entries = lines
      .slice(before)
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'request')
    assert.equal(entries.length, 1)
    const [entry] = entries
    assert.equal(entry.level, 30)
    assert.equal(entry.method, 'GET')
    // The route pattern: @my is one folder id among others.
    assert.equal(entry.route, '/api/2.0/files/:folderId')
    assert.equal(entry.status, 200)
    assert.equal(typeof entry.durationMs, 'number')
    assert.equal(entry.userId, h.admin.id)
    assert.equal(entry.bytes, Buffer.byteLength(reply.text))
    assert.equal(entry.url, undefined)
  })
})
