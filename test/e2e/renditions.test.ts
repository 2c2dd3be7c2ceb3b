import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { collectGarbage } from '../../src/app/maintenance/garbage-collection.js'
import type { ConversionRequest } from '../../src/ports/converter.js'
import { libreOfficeMissing, pngSize, textOf } from '../contract/converter.contract.js'
import { docxWithText } from '../support/office-documents.js'
import { call } from '../support/portal-client.js'
import { lockHeaders, startWopiHarness, type WopiHarness } from './wopi-support.js'

/**
 * Renditions through the portal against the real LibreOffice: made once per stored
 * contents, kept in the blob store, read by later requests, and collected with the
 * version that held their source.
 */
describe('renditions (download as, kept)', { skip: libreOfficeMissing() }, () => {
  let h: WopiHarness
  const conversions: ConversionRequest[] = []
  // Thumbnails are also made in the background after each upload: counts are per format.
  const made = (target: string) => conversions.filter((request) => request.target === target).length

  before(async () => {
    h = await startWopiHarness({
      FOLIO_CONVERTER: 'libreoffice',
      FOLIO_CONVERTER_WORKERS: '1',
      FOLIO_VERSIONS_KEEP: '1',
    })
    // Every conversion the running Folio asks of its converter is counted here.
    const converter = h.server.converter
    const convert = converter.convert.bind(converter)
    converter.convert = (request) => {
      conversions.push(request)
      return convert(request)
    }
  })
  after(() => h.server.dispose())

  // Waits for the background jobs (indexing, thumbnail) of the uploads so far to end.
  const jobsDone = async () => {
    while ((await h.server.ctx.store.jobs.counts()).some((count) => count.state !== 'failed')) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  const downloadPdf = async (fileId: string) => {
    const response = await fetch(`${h.server.url}/api/2.0/files/file/${fileId}/download?outputtype=.pdf`, {
      headers: { Authorization: h.portalToken },
    })
    assert.equal(response.status, 200)
    return Buffer.from(await response.arrayBuffer())
  }

  test('the second request of a version converts nothing and answers the same PDF', async () => {
    const fileId = await h.createFile('minutes.docx', docxWithText(['Minutes of the meeting']))
    const first = await downloadPdf(fileId)
    assert.match(await textOf('pdf', first), /Minutes of the meeting/)
    assert.equal(made('pdf'), 1)
    const second = await downloadPdf(fileId)
    assert.equal(made('pdf'), 1, 'the second request converted again')
    assert.deepEqual(second, first)
    const file = await h.server.ctx.store.files.findById(fileId)
    const kept = await h.server.ctx.store.renditions.get(file?.blobKey ?? '', 'pdf')
    assert.equal(kept?.size, first.length)
  })

  test("a new version gets its own rendition; the dropped version's rendition is collected with it", async () => {
    const fileId = await h.createFile('plan.docx', docxWithText(['Plan version one']))
    assert.match(await textOf('pdf', await downloadPdf(fileId)), /Plan version one/)
    const oldBlob = (await h.server.ctx.store.files.findById(fileId))?.blobKey ?? ''
    await jobsDone()
    assert.ok(await h.server.ctx.store.renditions.get(oldBlob, 'png'), 'the upload has its thumbnail')
    const oldRendition = await h.server.ctx.store.renditions.get(oldBlob, 'pdf')
    assert.ok(oldRendition)

    // A WOPI save makes version 2; FOLIO_VERSIONS_KEEP=1 drops version 1 and its bytes.
    assert.equal((await h.wopi(fileId, { override: 'LOCK', headers: lockHeaders('L') })).status, 200)
    const saved = await h.wopi(fileId, {
      contents: true,
      override: 'PUT',
      headers: { 'X-WOPI-Lock': 'L' },
      body: new Uint8Array(docxWithText(['Plan version two'])),
    })
    assert.equal(saved.status, 200, saved.text)
    assert.match(await textOf('pdf', await downloadPdf(fileId)), /Plan version two/)

    assert.equal(await h.server.ctx.store.renditions.get(oldBlob, 'pdf'), undefined)
    assert.equal(await h.server.ctx.blobs.exists(oldRendition.blobKey), false)
    // Nothing of it is left for the garbage collector either.
    const report = await collectGarbage(h.server.ctx, { minAgeMs: 0 })
    assert.equal(report.blobsRemoved, 0)
  })

  test('a rendition whose blob is gone is made again', async () => {
    const fileId = await h.createFile('memo.docx', docxWithText(['Memo text']))
    await downloadPdf(fileId)
    const blobKey = (await h.server.ctx.store.files.findById(fileId))?.blobKey ?? ''
    const kept = await h.server.ctx.store.renditions.get(blobKey, 'pdf')
    assert.ok(kept)
    await h.server.ctx.blobs.delete(kept.blobKey)
    const before = made('pdf')
    assert.match(await textOf('pdf', await downloadPdf(fileId)), /Memo text/)
    assert.equal(made('pdf'), before + 1)
  })

  test('a thumbnail is a PNG of at most 512 px, made once and kept; 415 for a type without one', async () => {
    const fileId = await h.createFile('slides.docx', docxWithText(['Thumbnail source']))
    const thumbnail = async () => {
      const response = await fetch(`${h.server.url}/api/2.0/files/file/${fileId}/thumbnail`, {
        headers: { Authorization: h.portalToken },
      })
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('content-type'), 'image/png')
      assert.match(response.headers.get('content-disposition') ?? '', /^inline; filename="?slides\.png"?$/)
      return Buffer.from(await response.arrayBuffer())
    }
    const blobKey = (await h.server.ctx.store.files.findById(fileId))?.blobKey ?? ''
    const pngsOfThis = () =>
      conversions.filter(
        (request) => request.target === 'png' && request.source.kind === 'blob' && request.source.blobKey === blobKey,
      ).length
    const first = await thumbnail()
    const { width, height } = pngSize(first)
    assert.ok(width > 16 && height > 16 && width <= 512 && height <= 512, `${width}x${height}`)
    // Made by the first request or by the background job after the upload; kept since.
    const madeSoFar = pngsOfThis()
    assert.ok(madeSoFar >= 1)
    assert.deepEqual(await thumbnail(), first)
    assert.equal(pngsOfThis(), madeSoFar, 'the second request converted again')
    const binary = await h.createFile('data.bin', 'not a document')
    const refused = await call(h.server.url, 'GET', `/api/2.0/files/file/${binary}/thumbnail`, { token: h.portalToken })
    assert.equal(refused.status, 415)
    assert.equal(refused.json.error.type, 'CONVERSION_UNSUPPORTED')
  })

  test('a user without read access gets 404 for a rendition that exists', async () => {
    const fileId = await h.createFile('private.docx', docxWithText(['Private']))
    await downloadPdf(fileId)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(h.server.ctx, { userName: 'eve', password: 'eve-password-1' })
    const { signIn } = await import('../support/portal-client.js')
    const eve = await signIn(h.server.url, 'eve', 'eve-password-1')
    const reply = await call(h.server.url, 'GET', `/api/2.0/files/file/${fileId}/download?outputtype=.pdf`, {
      token: eve,
    })
    assert.equal(reply.status, 404)
    // The owner's thumbnail exists; the other user still gets 404.
    const own = await call(h.server.url, 'GET', `/api/2.0/files/file/${fileId}/thumbnail`, { token: h.portalToken })
    assert.equal(own.status, 200)
    const thumbnail = await call(h.server.url, 'GET', `/api/2.0/files/file/${fileId}/thumbnail`, { token: eve })
    assert.equal(thumbnail.status, 404)
  })
})
