import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { freePort, startTestServer, type TestServer } from '../support/folio-server.js'
import { bytes, lastCallback, startHarness, type Harness } from '../support/onlyoffice-harness.js'
import { OnlyofficeWopiClient, startDiscoveryServer } from '../support/onlyoffice-wopi-client.js'
import { call, signIn } from '../support/portal-client.js'

// Browsers know Folio by this name; nothing resolves it, so a server-to-server link built on
// it would fail. Every test below reaches Folio only at FOLIO_INTERNAL_URL.
const PUBLIC_URL = 'http://folio.public.test'

/** A string member of a JSON reply ('' when absent). */
function textField(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return ''
  const value: unknown = Reflect.get(body, name)
  return typeof value === 'string' ? value : ''
}

describe('FOLIO_INTERNAL_URL: ONLYOFFICE Docs reaches Folio at its own address', () => {
  let h: Harness
  let internal: string

  before(async () => {
    h = await startHarness({ folioPublicUrl: PUBLIC_URL })
    internal = h.folio.ctx.config.internalUrl
  })
  after(() => h.close())

  test('document.url and callbackUrl use it; browser links keep the public address', async () => {
    assert.equal(internal, h.folio.url)
    const file = await h.upload('Internal.docx', 'internal v1')
    const config = await h.openConfig(file.id)
    const documentUrl = config.document?.url ?? ''
    assert.ok(documentUrl.startsWith(`${internal}/onlyoffice/download/${file.id}?`), documentUrl)
    const callbackUrl = config.editorConfig?.callbackUrl ?? ''
    assert.ok(callbackUrl.startsWith(`${internal}/onlyoffice/callback/${file.id}?`), callbackUrl)
    const record = (await h.api('GET', `/files/file/${file.id}`)).json.response
    assert.equal(record.viewUrl, `${PUBLIC_URL}/api/2.0/files/file/${file.id}/download?action=download`)
    assert.equal(record.webUrl, `${PUBLIC_URL}/doceditor/${file.id}`)
  })

  test('Docs opens, edits and saves the file through the internal address', async () => {
    const file = await h.upload('Saved.docx', 'saved v1')
    const session = await h.openEditor(file.id)
    assert.equal(Buffer.from(session.downloaded).toString(), 'saved v1')
    session.edit(bytes('saved v2'))
    await session.disconnect()
    const saved = lastCallback(h.sim, 2)
    assert.equal(saved.reply, '{"error":0}')
    assert.equal(await h.contents(file.id), 'saved v2')
  })

  test("setHistoryData links use it too (Docs' server downloads them)", async () => {
    const file = await h.upload('History.docx', 'history v1')
    const session = await h.openEditor(file.id)
    session.edit(bytes('history v2'))
    await session.disconnect()
    const reply = await h.api('GET', `/files/file/${file.id}/edit-history/2/data`)
    assert.equal(reply.status, 200)
    const data = reply.json.response
    for (const url of [data.url, data.changesUrl, data.previous.url]) {
      assert.ok(String(url).startsWith(`${internal}/onlyoffice/`), url)
    }
    assert.equal((await call(data.url, 'GET', '')).text, 'history v2')
    assert.equal((await call(data.previous.url, 'GET', '')).text, 'history v1')
  })
})

describe('FOLIO_INTERNAL_URL: a WOPI client calls WOPISrc at it, and signs proofs over it', () => {
  const proofKeys = {
    current: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    old: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
  }
  let discovery: Awaited<ReturnType<typeof startDiscoveryServer>>
  let server: TestServer
  let internal: string
  let portalToken: string
  let fileId: string

  before(async () => {
    discovery = await startDiscoveryServer({ publicKeys: proofKeys })
    const port = await freePort()
    internal = `http://127.0.0.1:${port}`
    server = await startTestServer({
      FOLIO_PORT: String(port),
      FOLIO_PUBLIC_URL: PUBLIC_URL,
      FOLIO_INTERNAL_URL: internal,
      FOLIO_WOPI_DISCOVERY_URL: discovery.url,
      FOLIO_WOPI_PROOF_REQUIRED: 'true',
    })
    portalToken = await signIn(server.url)
    const upload = await call(server.url, 'POST', '/api/2.0/files/@my/upload?title=wopi.docx', {
      token: portalToken,
      raw: 'wopi v1',
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    fileId = upload.json.response.id
  })
  after(async () => {
    await server.dispose()
    await discovery.close()
  })

  test('the token endpoint hands out an internal wopiSrc, also in the action URLs', async () => {
    const reply = await call(server.url, 'POST', `/api/2.0/files/file/${fileId}/wopi`, {
      token: portalToken,
    })
    const body = reply.json.response
    assert.equal(body.wopiSrc, `${internal}/wopi/files/${fileId}`)
    assert.ok(String(body.edit).includes(`wopisrc=${encodeURIComponent(body.wopiSrc)}`), body.edit)
  })

  test('a proof signed over the internal WOPISrc verifies; browser links stay public', async () => {
    const reply = await call(server.url, 'POST', `/api/2.0/files/file/${fileId}/wopi`, {
      token: portalToken,
    })
    const { wopiSrc, accessToken } = reply.json.response
    const client = new OnlyofficeWopiClient({ wopiSrc, accessToken, proofKeys })
    try {
      const info = await client.checkFileInfo()
      assert.equal(info.status, 200, 'signed over the URL Folio rebuilds')
      assert.ok(client.sent[0]?.headers['X-WOPI-Proof'])
      assert.equal(client.fileInfo?.HostEditUrl, `${PUBLIC_URL}/wopi-host/${fileId}?action=edit`)

      const created = await client.putRelativeFile(new TextEncoder().encode('copy'), 'Copy.docx')
      assert.equal(created.status, 200)
      const url = textField(created.body, 'Url')
      const hostEditUrl = textField(created.body, 'HostEditUrl')
      assert.ok(url.startsWith(`${internal}/wopi/files/`), url)
      assert.ok(hostEditUrl.startsWith(`${PUBLIC_URL}/wopi-host/`), hostEditUrl)

      // The client goes on with the new file exactly as PutRelativeFile's Url says.
      const next = new URL(url)
      const copy = new OnlyofficeWopiClient({
        wopiSrc: `${next.origin}${next.pathname}`,
        accessToken: next.searchParams.get('access_token') ?? '',
        proofKeys,
      })
      assert.equal((await copy.checkFileInfo()).status, 200)
      assert.equal((await copy.getFile()).raw.toString(), 'copy')
      copy.close()
    } finally {
      client.close()
    }
  })
})
