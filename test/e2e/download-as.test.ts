import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { bytesOf, libreOfficeMissing, textOf } from '../contract/converter.contract.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { docxWithText } from '../support/office-documents.js'
import { call, signIn } from '../support/portal-client.js'

async function upload(
  url: string,
  token: string,
  name: string,
  bytes: Uint8Array,
): Promise<{ id: string; viewUrl: string }> {
  const form = new FormData()
  form.append('file', new Blob([Buffer.from(bytes)]), name)
  const response = await fetch(`${url}/api/2.0/files/@my/upload`, {
    method: 'POST',
    headers: { Authorization: token },
    body: form,
  })
  const json = await response.json()
  assert.equal(response.status, 201, JSON.stringify(json))
  return { id: String(json.response.id), viewUrl: String(json.response.viewUrl) }
}

describe('download as (GET {viewUrl}?outputtype=...)', { skip: libreOfficeMissing() }, () => {
  let server: TestServer
  let token: string
  let otherToken: string
  let report: { id: string; viewUrl: string }
  const reportBytes = docxWithText(['Revenue grew in every region'])

  before(async () => {
    server = await startTestServer({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
    token = await signIn(server.url)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(server.ctx, { userName: 'bob', password: 'bob-password-1' })
    otherToken = await signIn(server.url, 'bob', 'bob-password-1')
    report = await upload(server.url, token, 'Quarterly report.docx', reportBytes)
  })
  after(() => server.dispose())

  const downloadPath = (id: string, outputType: string) =>
    `/api/2.0/files/file/${id}/download?outputtype=${encodeURIComponent(outputType)}`

  test('.pdf answers the PDF with the text, named after the file', async () => {
    const response = await fetch(`${server.url}${downloadPath(report.id, '.pdf')}`, {
      headers: { Authorization: token },
    })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/pdf')
    assert.match(response.headers.get('content-disposition') ?? '', /filename="Quarterly report\.pdf"/)
    const pdf = Buffer.from(await response.arrayBuffer())
    assert.equal(Number(response.headers.get('content-length')), pdf.length)
    assert.match(await textOf('pdf', pdf), /Revenue grew in every region/)
  })

  test('the viewUrl the API hands out takes outputtype too (odt, without the dot)', async () => {
    // The viewUrl carries a query string already (as ONLYOFFICE's apps expect): add to it.
    const viewUrl = new URL(report.viewUrl)
    viewUrl.searchParams.set('outputtype', 'odt')
    const response = await fetch(`${server.url}${viewUrl.pathname}${viewUrl.search}`, {
      headers: { Authorization: token },
    })
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-disposition') ?? '', /Quarterly report\.odt/)
    assert.match(await textOf('odt', Buffer.from(await response.arrayBuffer())), /Revenue grew/)
  })

  test('an impossible pair is 415 with a message, an unknown format too', async () => {
    for (const outputType of ['.xlsx', '.exe']) {
      const reply = await call(server.url, 'GET', downloadPath(report.id, outputType), { token })
      assert.equal(reply.status, 415, reply.text)
      assert.equal(reply.json.error.type, 'CONVERSION_UNSUPPORTED')
      assert.ok(String(reply.json.error.message).length > 0)
    }
  })

  test("the file's own format is the file itself", async () => {
    const response = await fetch(`${server.url}${downloadPath(report.id, '.docx')}`, {
      headers: { Authorization: token },
    })
    assert.equal(response.status, 200)
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), reportBytes)
  })

  test('someone without read access gets 404 and no conversion', async () => {
    const reply = await call(server.url, 'GET', downloadPath(report.id, '.pdf'), { token: otherToken })
    assert.equal(reply.status, 404)
  })

  test('a document that is not what its name says fails with 422 and Folio goes on answering', async () => {
    const broken = await upload(
      server.url,
      token,
      'broken.docx',
      Buffer.from('this is no zip at all, only text pretending'),
    )
    const reply = await call(server.url, 'GET', downloadPath(broken.id, '.pdf'), { token })
    assert.equal(reply.status, 422, reply.text)
    assert.equal(reply.json.error.type, 'CONVERSION_FAILED')
    const after = await server.converter.convert({
      source: { kind: 'stream', stream: (await import('node:stream')).Readable.from(['still here']), extension: 'txt' },
      target: 'pdf',
    })
    assert.match(await textOf('pdf', await bytesOf(after)), /still here/)
  })
})

describe('download as with no converter', () => {
  test('is 501 saying how to turn conversion on', async () => {
    const server = await startTestServer({ FOLIO_CONVERTER: 'off' })
    try {
      const token = await signIn(server.url)
      const file = await upload(server.url, token, 'notes.docx', docxWithText(['x']))
      const reply = await call(server.url, 'GET', `/api/2.0/files/file/${file.id}/download?outputtype=.pdf`, { token })
      assert.equal(reply.status, 501)
      assert.equal(reply.json.error.type, 'CONVERTER_OFF')
      assert.match(reply.json.error.message, /install LibreOffice/)
    } finally {
      await server.dispose()
    }
  })
})
