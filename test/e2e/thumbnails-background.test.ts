import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { libreOfficeMissing, pngSize } from '../contract/converter.contract.js'
import { docxWithText } from '../support/office-documents.js'
import { call } from '../support/portal-client.js'
import { startWopiHarness, type WopiHarness } from './wopi-support.js'

interface Listed {
  id: string
  thumbnailStatus?: number
  thumbnailUrl?: string
}

/**
 * Thumbnails made in the background after each new version, against the real LibreOffice:
 * the listing says when one is ready (DocSpace's thumbnailStatus) and where it is.
 */
describe('thumbnails in the background', { skip: libreOfficeMissing() }, () => {
  let h: WopiHarness

  before(async () => {
    h = await startWopiHarness({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
  })
  after(() => h.server.dispose())

  const listed = async (fileId: string): Promise<Listed> => {
    const reply = await call(h.server.url, 'GET', '/api/2.0/files/@my', { token: h.portalToken })
    assert.equal(reply.status, 200)
    const files: Listed[] = reply.json.response.files
    const file = files.find((f) => f.id === fileId)
    assert.ok(file, 'the file is listed')
    return file
  }

  const settled = async (fileId: string): Promise<Listed> => {
    for (;;) {
      const file = await listed(fileId)
      if (file.thumbnailStatus !== 0) return file
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  test('an upload gets its thumbnail without asking; the listing says 1 and links it', async () => {
    const fileId = await h.createFile('agenda.docx', docxWithText(['Agenda of the day']))
    const file = await settled(fileId)
    assert.equal(file.thumbnailStatus, 1)
    assert.equal(new URL(file.thumbnailUrl ?? '').pathname, `/api/2.0/files/file/${fileId}/thumbnail`)
    const image = await fetch(`${h.server.url}${new URL(file.thumbnailUrl ?? '').pathname}`, {
      headers: { Authorization: h.portalToken },
    })
    assert.equal(image.status, 200)
    assert.equal(image.headers.get('content-type'), 'image/png')
    const { width, height } = pngSize(Buffer.from(await image.arrayBuffer()))
    assert.ok(width <= 512 && height <= 512 && width > 16, `${width}x${height}`)
  })

  test('a format without a first page is 2 (not required); a document the converter cannot read is 3', async () => {
    const binary = await h.createFile('data.bin', 'not a document')
    assert.equal((await listed(binary)).thumbnailStatus, 2)
    const broken = await h.createFile('broken.docx', 'PK\u0003\u0004 this is no zip at all')
    assert.equal((await settled(broken)).thumbnailStatus, 3)
  })

  test('a user without read access gets 404 for the thumbnail the listing links', async () => {
    const fileId = await h.createFile('secret.docx', docxWithText(['Secret']))
    const file = await settled(fileId)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(h.server.ctx, { userName: 'mallory', password: 'mallory-password-1' })
    const { signIn } = await import('../support/portal-client.js')
    const mallory = await signIn(h.server.url, 'mallory', 'mallory-password-1')
    const reply = await call(h.server.url, 'GET', new URL(file.thumbnailUrl ?? '').pathname, { token: mallory })
    assert.equal(reply.status, 404)
  })
})

describe('thumbnails without a converter', () => {
  let h: WopiHarness
  before(async () => {
    h = await startWopiHarness({ FOLIO_CONVERTER: 'off' })
  })
  after(() => h.server.dispose())

  test('every file is 2 (not required) when no converter runs', async () => {
    const fileId = await h.createFile('notes.docx', docxWithText(['Notes']))
    const reply = await call(h.server.url, 'GET', '/api/2.0/files/@my', { token: h.portalToken })
    const files: Listed[] = reply.json.response.files
    assert.equal(files.find((f) => f.id === fileId)?.thumbnailStatus, 2)
  })
})
