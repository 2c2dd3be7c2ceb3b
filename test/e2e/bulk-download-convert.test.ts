import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { libreOfficeMissing, textOf } from '../contract/converter.contract.js'
import { docxWithText } from '../support/office-documents.js'
import { call, signIn } from '../support/portal-client.js'
import { readZip } from '../support/zip.js'
import { startWopiHarness, type WopiHarness } from './wopi-support.js'

/**
 * ONLYOFFICE's fileConvertIds on a bulk download, against the real LibreOffice: the files
 * named are in the archive converted, as `<base>.<format>`; the others as stored.
 */
describe('bulk download with fileConvertIds', { skip: libreOfficeMissing() }, () => {
  let h: WopiHarness

  before(async () => {
    h = await startWopiHarness({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
  })
  after(() => h.server.dispose())

  const bulk = (body: unknown, token = h.portalToken) =>
    call(h.server.url, 'PUT', '/api/2.0/files/fileops/bulkdownload', { token, body })

  const archiveOf = async (reply: Awaited<ReturnType<typeof bulk>>, token = h.portalToken) => {
    assert.equal(reply.status, 200, reply.text)
    let [operation] = reply.json.response
    // Converting takes a while: the operation is polled until it ends, as clients do.
    while (!operation.finished) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      const polled = await call(h.server.url, 'GET', '/api/2.0/files/fileops', { token })
      operation = polled.json.response.find((op: { id: string }) => op.id === operation.id) ?? operation
    }
    assert.equal(operation.error, '')
    assert.ok(operation.url, 'the operation names its archive')
    const response = await fetch(
      new URL(new URL(operation.url).pathname + new URL(operation.url).search, h.server.url),
      {
        headers: { Authorization: token },
      },
    )
    assert.equal(response.status, 200)
    return readZip(Buffer.from(await response.arrayBuffer()))
  }

  test('the files named are sent as PDFs named <base>.pdf; the rest as stored', async () => {
    const report = await h.createFile('report.docx', docxWithText(['Quarterly numbers of the koala unit']))
    const notes = await h.createFile('notes.txt', 'plain notes')
    const zip = await archiveOf(
      await bulk({
        fileIds: [report, notes],
        fileConvertIds: [{ key: report, value: '.pdf' }],
      }),
    )
    assert.deepEqual([...zip.keys()].sort(), ['notes.txt', 'report.pdf'])
    const pdf = zip.get('report.pdf')
    assert.ok(pdf)
    assert.match(pdf.subarray(0, 5).toString('latin1'), /^%PDF-/)
    assert.match(await textOf('pdf', pdf), /koala unit/)
    assert.equal(zip.get('notes.txt')?.toString('utf8'), 'plain notes')
  })

  test('a pair outside the format table is 415 with a message; no access is 404', async () => {
    const notes = await h.createFile('list.bin', 'binary stuff')
    const refused = await bulk({ fileIds: [notes], fileConvertIds: [{ key: notes, value: '.pdf' }] })
    assert.equal(refused.status, 415, refused.text)
    assert.equal(refused.json.error.type, 'CONVERSION_UNSUPPORTED')
    const secret = await h.createFile('secret.docx', docxWithText(['Secret']))
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(h.server.ctx, { userName: 'oscar', password: 'oscar-password-1' })
    const oscar = await signIn(h.server.url, 'oscar', 'oscar-password-1')
    const denied = await bulk({ fileIds: [secret], fileConvertIds: [{ key: secret, value: '.pdf' }] }, oscar)
    assert.equal(denied.status, 404, denied.text)
  })
})
