import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { libreOfficeMissing, textOf } from '../contract/converter.contract.js'
import { docxWithText } from '../support/office-documents.js'
import { call, signIn } from '../support/portal-client.js'
import { startWopiHarness, type WopiHarness } from './wopi-support.js'

interface ConversionEntry {
  id: string
  error: string
  processed: string
  progress: number
  result: { id: string; title: string; folderId: string } | null
}

const rtfWith = (text: string) => `{\\rtf1\\ansi{\\fonttbl\\f0\\fswiss Helvetica;}\\f0\\pard ${text}\\par}`

/**
 * Legacy and open formats to OOXML through the portal, as ONLYOFFICE's checkconversion,
 * against the real LibreOffice.
 */
describe('checkconversion (legacy and open formats to OOXML)', { skip: libreOfficeMissing() }, () => {
  let h: WopiHarness

  before(async () => {
    h = await startWopiHarness({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
  })
  after(() => h.server.dispose())

  const check = async (method: 'GET' | 'PUT', fileId: string, query = '', token = h.portalToken) =>
    call(h.server.url, method, `/api/2.0/files/file/${fileId}/checkconversion${query}`, { token })

  const finished = async (fileId: string): Promise<ConversionEntry> => {
    for (;;) {
      const reply = await check('GET', fileId)
      assert.equal(reply.status, 200, reply.text)
      const [entry]: ConversionEntry[] = reply.json.response
      assert.ok(entry, 'a started conversion is reported')
      if (entry.processed === '1') return entry
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  const titles = async () => {
    const reply = await call(h.server.url, 'GET', '/api/2.0/files/@my', { token: h.portalToken })
    return reply.json.response.files.map((file: { title: string }) => file.title).sort()
  }

  const download = async (fileId: string) => {
    const response = await fetch(`${h.server.url}/api/2.0/files/file/${fileId}/download`, {
      headers: { Authorization: h.portalToken },
    })
    assert.equal(response.status, 200)
    return Buffer.from(await response.arrayBuffer())
  }

  test('an .rtf becomes a .docx beside it, keeping its text; the original stays', async () => {
    const source = await h.createFile('minutes.rtf', rtfWith('The kangaroo council met.'))
    assert.deepEqual((await check('GET', source)).json.response, [], 'nothing started yet')
    const started = await check('PUT', source)
    assert.equal(started.status, 200, started.text)
    const entry = await finished(source)
    assert.equal(entry.error, '')
    assert.equal(entry.progress, 100)
    assert.equal(entry.result?.title, 'minutes.docx')
    assert.match(await textOf('docx', await download(entry.result?.id ?? '')), /kangaroo council/)
    assert.ok((await titles()).includes('minutes.rtf'))
  })

  test('a taken name gets the free-name rule; sync answers when done', async () => {
    await h.createFile('report.docx', docxWithText(['Old report']))
    const source = await h.createFile('report.rtf', rtfWith('New report text'))
    const reply = await check('PUT', source, '?sync=true')
    assert.equal(reply.status, 200, reply.text)
    const [entry]: ConversionEntry[] = reply.json.response
    assert.equal(entry?.processed, '1')
    assert.equal(entry?.result?.title, 'report (2).docx')
    assert.match(await textOf('docx', await download(entry?.result?.id ?? '')), /New report text/)
  })

  test('a document the converter cannot read reports its error and makes no file', async () => {
    const source = await h.createFile('broken.doc', 'this is not a Word document at all \u0000\u0001')
    const before = await titles()
    assert.equal((await check('PUT', source)).status, 200)
    const entry = await finished(source)
    assert.notEqual(entry.error, '')
    assert.equal(entry.result, null)
    assert.deepEqual(await titles(), before)
  })

  test('a format without an OOXML twin is 415; another user without access gets 404', async () => {
    const pdfLike = await h.createFile('already.docx', docxWithText(['OOXML already']))
    const refused = await check('PUT', pdfLike)
    assert.equal(refused.status, 415, refused.text)
    assert.equal(refused.json.error.type, 'CONVERSION_UNSUPPORTED')
    const source = await h.createFile('private.rtf', rtfWith('Private'))
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(h.server.ctx, { userName: 'trudy', password: 'trudy-password-1' })
    const trudy = await signIn(h.server.url, 'trudy', 'trudy-password-1')
    assert.equal((await check('PUT', source, '', trudy)).status, 404)
    assert.equal((await check('GET', source, '', trudy)).status, 404)
  })

  test('a reader of the file who may not create in its folder is refused and makes no file', async () => {
    const source = await h.createFile('shared.rtf', rtfWith('Shared text'))
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    const victor = await createUser(h.server.ctx, { userName: 'victor', password: 'victor-password-1' })
    const shared = await call(h.server.url, 'PUT', `/api/2.0/files/file/${source}/share`, {
      token: h.portalToken,
      body: { share: [{ shareTo: victor.id, access: 2 }] },
    })
    assert.equal(shared.status, 200, shared.text)
    const token = await signIn(h.server.url, 'victor', 'victor-password-1')
    const before = await titles()
    const refused = await check('PUT', source, '?sync=true', token)
    // The folder is not theirs to see: 404, as for any folder they cannot read.
    assert.equal(refused.status, 404, refused.text)
    assert.deepEqual(await titles(), before)
  })
})
