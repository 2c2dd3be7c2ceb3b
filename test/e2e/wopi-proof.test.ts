import assert from 'node:assert/strict'
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { buildProofBuffer, msToProofTicks } from '../../src/protocols/wopi/proof-keys.js'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { FakeClock } from '../support/folio-server.js'
import { OnlyofficeWopiClient, buildDiscoveryXml, startDiscoveryServer } from '../support/onlyoffice-wopi-client.js'
import { call } from '../support/portal-client.js'
import { startWopiHarness, type WopiHarness } from './wopi-support.js'

const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
const MINUTE = 60_000

/** A discovery server whose published keys a test can rotate; counts fetches. */
async function startRotatingDiscovery(keys: { current: KeyObject; old: KeyObject }) {
  let published = keys
  let fetches = 0
  let baseUrl = ''
  const server = createServer((_req, res) => {
    fetches++
    res.writeHead(200, { 'Content-Type': 'text/xml' })
    res.end(buildDiscoveryXml({ baseUrl, publicKeys: published }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  baseUrl = `http://127.0.0.1:${port}`
  return {
    url: `${baseUrl}/hosting/discovery`,
    publish(next: { current: KeyObject; old: KeyObject }) {
      published = next
    },
    get fetches() {
      return fetches
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describe('WOPI proof keys (discovery configured, proofs optional)', () => {
  const current = rsa()
  const old = rsa()
  const clock = new FakeClock()
  let discovery: Awaited<ReturnType<typeof startDiscoveryServer>>
  let h: WopiHarness
  let fileId: string
  let token: string
  let wopiSrc: string

  before(async () => {
    discovery = await startDiscoveryServer({ publicKeys: { current, old } })
    h = await startWopiHarness({ FOLIO_WOPI_DISCOVERY_URL: discovery.url }, { clock })
    fileId = await h.createFile('proof.docx', 'proof content')
    const reply = await call(h.server.url, 'POST', `/api/2.0/files/file/${fileId}/wopi`, {
      token: h.portalToken,
    })
    token = reply.json.response.accessToken
    wopiSrc = reply.json.response.wopiSrc
  })
  after(async () => {
    await h.server.dispose()
    await discovery.close()
  })

  const client = (keys: { current: KeyObject; old: KeyObject } | undefined, now = () => clock.now()) =>
    new OnlyofficeWopiClient({ wopiSrc, accessToken: token, now, ...(keys ? { proofKeys: keys } : {}) })

  test('a valid proof (X-WOPI-Proof with the current key) is accepted on GET and POST', async () => {
    const sim = client({ current, old })
    assert.equal((await sim.checkFileInfo()).status, 200)
    assert.equal((await sim.getFile()).status, 200)
    assert.equal((await sim.lock('proof-lock')).status, 200)
    assert.equal((await sim.unlock('proof-lock')).status, 200)
    sim.close()
  })

  test('X-WOPI-ProofOld signed with the current key is accepted (the client rotated first)', async () => {
    const sim = client({ current: rsa(), old: current })
    assert.equal((await sim.checkFileInfo()).status, 200)
    sim.close()
  })

  test('X-WOPI-Proof signed with the old key is accepted (Folio learnt the rotation first)', async () => {
    const sim = client({ current: old, old: rsa() })
    assert.equal((await sim.checkFileInfo()).status, 200)
    sim.close()
  })

  test('a timestamp older than 20 minutes is refused with 500', async () => {
    const sim = client({ current, old }, () => clock.now() - 21 * MINUTE)
    assert.equal((await sim.checkFileInfo()).status, 500)
    const fresh = client({ current, old }, () => clock.now() - 19 * MINUTE)
    assert.equal((await fresh.checkFileInfo()).status, 200)
    sim.close()
    fresh.close()
  })

  test('a tampered proof is refused with 500: wrong keys, altered signature, another URL', async () => {
    const stranger = client({ current: rsa(), old: rsa() })
    assert.equal((await stranger.checkFileInfo()).status, 500)
    stranger.close()

    const sim = client({ current, old })
    await sim.checkFileInfo()
    const signed = sim.sent[0]?.headers ?? {}
    sim.close()
    const replay = (path: string, headers: Record<string, string>) =>
      call(h.server.url, 'GET', `${path}?access_token=${encodeURIComponent(token)}`, { headers })
    const proofHeaders = {
      'X-WOPI-Proof': signed['X-WOPI-Proof'] ?? '',
      'X-WOPI-ProofOld': signed['X-WOPI-ProofOld'] ?? '',
      'X-WOPI-TimeStamp': signed['X-WOPI-TimeStamp'] ?? '',
    }
    assert.equal((await replay(`/wopi/files/${fileId}`, proofHeaders)).status, 200, 'the untouched proof')
    const bytes = Buffer.from(proofHeaders['X-WOPI-Proof'], 'base64')
    bytes[10] = (bytes[10] ?? 0) ^ 0xff
    const altered = { ...proofHeaders, 'X-WOPI-Proof': bytes.toString('base64'), 'X-WOPI-ProofOld': '' }
    assert.equal((await replay(`/wopi/files/${fileId}`, altered)).status, 500)
    assert.equal((await replay(`/wopi/files/${fileId}/contents`, proofHeaders)).status, 500, 'signed for another URL')
    const otherStamp = { ...proofHeaders, 'X-WOPI-TimeStamp': String(BigInt(proofHeaders['X-WOPI-TimeStamp']) + 1n) }
    assert.equal((await replay(`/wopi/files/${fileId}`, otherStamp)).status, 500, 'another timestamp')
  })

  test('without proof headers the request passes when FOLIO_WOPI_PROOF_REQUIRED is off', async () => {
    const sim = client(undefined)
    assert.equal((await sim.checkFileInfo()).status, 200)
    sim.close()
  })

  test('the portal returns discovery edit/view action URLs for extensions the client handles', async () => {
    const edit = await call(h.server.url, 'POST', `/api/2.0/files/file/${fileId}/wopi`, { token: h.portalToken })
    const body = edit.json.response
    const wopisrc = `wopisrc=${encodeURIComponent(body.wopiSrc)}`
    assert.ok(body.edit.startsWith(`${discovery.baseUrl}/hosting/wopi/word/edit?`), body.edit)
    assert.ok(body.edit.includes(wopisrc))
    assert.ok(body.view.startsWith(`${discovery.baseUrl}/hosting/wopi/word/view?`), body.view)
    assert.ok(!body.edit.includes('<'), 'every placeholder is filled or removed')
    const viewOnly = await call(h.server.url, 'POST', `/api/2.0/files/file/${fileId}/wopi?mode=view`, {
      token: h.portalToken,
    })
    assert.equal(viewOnly.json.response.edit, undefined)
    assert.ok(viewOnly.json.response.view)
    const txt = await h.createFile('notes.unknownext', 'x')
    const none = await call(h.server.url, 'POST', `/api/2.0/files/file/${txt}/wopi`, { token: h.portalToken })
    assert.equal(none.json.response.edit, undefined)
    assert.equal(none.json.response.view, undefined)
  })
})

describe('WOPI proof keys required', () => {
  const current = rsa()
  const old = rsa()
  let discovery: Awaited<ReturnType<typeof startDiscoveryServer>>
  let h: WopiHarness

  before(async () => {
    discovery = await startDiscoveryServer({ publicKeys: { current, old } })
    h = await startWopiHarness({ FOLIO_WOPI_DISCOVERY_URL: discovery.url, FOLIO_WOPI_PROOF_REQUIRED: 'true' })
  })
  after(async () => {
    await h.server.dispose()
    await discovery.close()
  })

  test('a request without proof headers is refused with 500; a signed one passes', async () => {
    const id = await h.createFile('required.docx', 'x')
    const token = await h.tokenFor(id)
    const wopiSrc = `${h.server.ctx.config.publicUrl}/wopi/files/${id}`
    const unsigned = new OnlyofficeWopiClient({ wopiSrc, accessToken: token })
    assert.equal((await unsigned.checkFileInfo()).status, 500)
    unsigned.close()
    const signed = new OnlyofficeWopiClient({ wopiSrc, accessToken: token, proofKeys: { current, old } })
    assert.equal((await signed.checkFileInfo()).status, 200)
    signed.close()
  })
})

describe('WOPI discovery refresh when keys rotate', () => {
  const first = { current: rsa(), old: rsa() }
  const second = { current: rsa(), old: rsa() }
  const third = { current: rsa(), old: rsa() }
  const clock = new FakeClock()
  let discovery: Awaited<ReturnType<typeof startRotatingDiscovery>>
  let h: WopiHarness

  before(async () => {
    discovery = await startRotatingDiscovery(first)
    h = await startWopiHarness({ FOLIO_WOPI_DISCOVERY_URL: discovery.url }, { clock })
  })
  after(async () => {
    await h.server.dispose()
    await discovery.close()
  })

  test('an unknown key triggers one discovery fetch (at most once a minute), then verifies', async () => {
    const id = await h.createFile('rotate.docx', 'x')
    const token = await h.tokenFor(id)
    const wopiSrc = `${h.server.ctx.config.publicUrl}/wopi/files/${id}`
    const signer = (keys: typeof first) =>
      new OnlyofficeWopiClient({ wopiSrc, accessToken: token, proofKeys: keys, now: () => clock.now() })

    const sim1 = signer(first)
    assert.equal((await sim1.checkFileInfo()).status, 200)
    const fetchesAfterFirst = discovery.fetches
    assert.ok(fetchesAfterFirst >= 1)

    clock.advance(61_000)
    discovery.publish(second)
    const sim2 = signer(second)
    assert.equal((await sim2.checkFileInfo()).status, 200, 'refreshed and verified with the new key')
    assert.equal(discovery.fetches, fetchesAfterFirst + 1)

    discovery.publish(third)
    const sim3 = signer(third)
    assert.equal((await sim3.checkFileInfo()).status, 500, 'no second fetch within a minute')
    assert.equal(discovery.fetches, fetchesAfterFirst + 1)
    clock.advance(61_000)
    assert.equal((await sim3.checkFileInfo()).status, 200)
    assert.equal(discovery.fetches, fetchesAfterFirst + 2)
    for (const sim of [sim1, sim2, sim3]) sim.close()
  })
})

/** Signs `url` for `token` as a WOPI client does (RSA-SHA256 over the proof buffer). */
function proofHeadersFor(key: KeyObject, token: string, url: string, now: number): Record<string, string> {
  const ticks = msToProofTicks(now)
  const proof = sign('sha256', buildProofBuffer(token, url, ticks), key).toString('base64')
  return { 'X-WOPI-Proof': proof, 'X-WOPI-ProofOld': proof, 'X-WOPI-TimeStamp': ticks }
}

describe('finding 12: proofs are checked over the full URL the client requested', () => {
  const current = rsa()
  const old = rsa()
  const logged: string[] = []
  let discovery: Awaited<ReturnType<typeof startDiscoveryServer>>
  let direct: WopiHarness
  let proxied: WopiHarness

  before(async () => {
    discovery = await startDiscoveryServer({ publicKeys: { current, old } })
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged.push(String(chunk))
        done()
      },
    })
    const required = { FOLIO_WOPI_DISCOVERY_URL: discovery.url, FOLIO_WOPI_PROOF_REQUIRED: 'true' }
    direct = await startWopiHarness(required, { logger: pino({ level: 'info' }, sink) })
    proxied = await startWopiHarness({ ...required, FOLIO_TRUST_PROXY: 'true' })
  })
  after(async () => {
    await direct.server.dispose()
    await proxied.server.dispose()
    await discovery.close()
  })

  const get = (h: WopiHarness, pathAndQuery: string, headers: Record<string, string>) =>
    call(h.server.url, 'GET', pathAndQuery, { headers })

  test('with access_token_ttl in the query, as Microsoft clients and the validator send it', async () => {
    const id = await direct.createFile('ttl.docx', 'x')
    const token = await direct.tokenFor(id)
    const path = `/wopi/files/${id}?access_token=${encodeURIComponent(token)}&access_token_ttl=1795000000000`
    const signed = proofHeadersFor(current, token, direct.server.ctx.config.internalUrl + path, Date.now())
    assert.equal((await get(direct, path, signed)).status, 200)
    // Signed without the parameter but sent with it: not the URL requested.
    const bare = `/wopi/files/${id}?access_token=${encodeURIComponent(token)}`
    const wrong = proofHeadersFor(current, token, direct.server.ctx.config.internalUrl + bare, Date.now())
    assert.equal((await get(direct, path, wrong)).status, 500)
    const contents = `/wopi/files/${id}/contents?access_token_ttl=0&access_token=${encodeURIComponent(token)}`
    const forContents = proofHeadersFor(current, token, direct.server.ctx.config.internalUrl + contents, Date.now())
    assert.equal((await get(direct, contents, forContents)).status, 200)
  })

  test('with the token encoded differently by the client (%2E for the dot)', async () => {
    const id = await direct.createFile('encoded.docx', 'x')
    const token = await direct.tokenFor(id)
    const path = `/wopi/files/${id}?access_token=${token.replace('.', '%2E')}`
    const signed = proofHeadersFor(current, token, direct.server.ctx.config.internalUrl + path, Date.now())
    assert.equal((await get(direct, path, signed)).status, 200)
  })

  test('a failed proof is 500, logged with why and never with the token', async () => {
    const id = await direct.createFile('logged.docx', 'x')
    const token = await direct.tokenFor(id)
    const path = `/wopi/files/${id}?access_token=${encodeURIComponent(token)}`
    const stranger = proofHeadersFor(rsa(), token, direct.server.ctx.config.internalUrl + path, Date.now())
    assert.equal((await get(direct, path, stranger)).status, 500)
    const lines = logged.filter((line) => line.includes('WOPI proof rejected'))
    assert.ok(
      lines.some((line) => line.includes('"reason":"mismatch"')),
      lines.join('\n'),
    )
    assert.equal(
      logged.some((line) => line.includes(token)),
      false,
      'the token is never logged',
    )
  })

  test('behind a trusted proxy, the scheme and host the client saw (X-Forwarded-*) are accepted', async () => {
    const id = await proxied.createFile('proxied.docx', 'x')
    const token = await proxied.tokenFor(id)
    const path = `/wopi/files/${id}?access_token=${encodeURIComponent(token)}&access_token_ttl=0`
    const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'office.example.test' }
    const signed = proofHeadersFor(current, token, `https://office.example.test${path}`, Date.now())
    assert.equal((await get(proxied, path, { ...signed, ...forwarded })).status, 200)
    // Without FOLIO_TRUST_PROXY the same headers shape nothing: the proof does not match.
    const directId = await direct.createFile('not-proxied.docx', 'x')
    const directToken = await direct.tokenFor(directId)
    const directPath = `/wopi/files/${directId}?access_token=${encodeURIComponent(directToken)}`
    const spoofed = proofHeadersFor(current, directToken, `https://office.example.test${directPath}`, Date.now())
    assert.equal((await get(direct, directPath, { ...spoofed, ...forwarded })).status, 500)
  })
})
