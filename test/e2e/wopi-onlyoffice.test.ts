import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { OnlyofficeWopiClient, startDiscoveryServer } from '../support/onlyoffice-wopi-client.js'
import { call } from '../support/portal-client.js'
import { contentOf, recordOf, startWopiHarness, versionsOf, type WopiHarness } from './wopi-support.js'

const TEMPLATE = Buffer.from('PK\u0003\u0004 blank docx template')
const EDITED = Buffer.from('PK\u0003\u0004 edited by the user')
const FORCED = Buffer.from('PK\u0003\u0004 force-saved')

/**
 * ONLYOFFICE Docs in WOPI mode, exactly as the simulator reproduces it (test/support/onlyoffice-wopi-client.ts),
 * against a Folio that requires proofs from the configured Document Server.
 */
describe('ONLYOFFICE Docs as a WOPI client (simulator, proofs required)', () => {
  const keys = {
    current: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    old: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
  }
  let discovery: Awaited<ReturnType<typeof startDiscoveryServer>>
  let h: WopiHarness

  before(async () => {
    discovery = await startDiscoveryServer({ publicKeys: keys })
    h = await startWopiHarness({
      FOLIO_WOPI_DISCOVERY_URL: discovery.url,
      FOLIO_WOPI_PROOF_REQUIRED: 'true',
    })
  })
  after(async () => {
    await h.server.dispose()
    await discovery.close()
  })

  async function session(fileId: string) {
    const reply = await call(h.server.url, 'POST', `/api/2.0/files/file/${fileId}/wopi`, {
      token: h.portalToken,
    })
    const { wopiSrc, accessToken } = reply.json.response
    return new OnlyofficeWopiClient({
      wopiSrc,
      accessToken,
      proofKeys: keys,
      blankTemplate: TEMPLATE,
      getFileRetryDelayMs: 10,
    })
  }

  test('new document: CheckFileInfo, template PutFile, LOCK, GetFile, REFRESH_LOCK, exit save, UNLOCK', async () => {
    const fileId = await h.createFile('New document.docx', '')
    const ds = await session(fileId)
    const opened = await ds.openForEditing()
    assert.equal(opened.mode, 'edit')
    assert.equal(opened.templatePut?.status, 200, 'unlocked PutFile into a 0-byte file is allowed')
    assert.equal(opened.lockId, fileId, 'DS locks with the file id')
    assert.deepEqual(opened.contents, TEMPLATE)
    assert.deepEqual(
      ds.sent.map((r) => `${r.operation} ${r.status}`),
      ['CheckFileInfo 200', 'PutFile 200', 'Lock 200', 'GetFile 200'],
    )
    const userId = String(opened.fileInfo.UserId)
    const versionAtOpen = String(opened.fileInfo.Version)

    assert.equal((await ds.refreshLock(fileId)).status, 200)
    const forced = await ds.forceSave(FORCED, userId, 'button')
    assert.equal(forced.status, 200)
    const closed = await ds.closeWithSave(EDITED, userId)
    assert.equal(closed.putFile?.status, 200)
    assert.equal(closed.unlock?.status, 200)

    assert.equal(await contentOf(h, fileId), EDITED.toString())
    assert.equal((await recordOf(h, fileId)).locked, false)
    const info = (await ds.checkFileInfo()).body as { Version: string }
    assert.notEqual(info.Version, versionAtOpen)
    assert.equal(info.Version, 'v4', 'upload, template, force save, exit save')
    const [exit, force, template] = await versionsOf(h, fileId)
    assert.equal(template.meta.operation, 'PutFile')
    assert.deepEqual(template.meta.editors, [userId])
    assert.equal(force.meta.isModifiedByUser, true)
    assert.equal(force.meta.isExitSave, undefined)
    assert.equal(exit.meta.isExitSave, true)
    assert.equal(exit.meta.isModifiedByUser, true)
    assert.deepEqual(exit.meta.editors, [userId])
    ds.close()
  })

  test('a second editor gets the same deterministic lock (200); a foreign lock sends DS to view mode', async () => {
    const fileId = await h.createFile('Shared.docx', 'shared content')
    const first = await session(fileId)
    const second = await session(fileId)
    assert.equal((await first.openForEditing()).mode, 'edit')
    const again = await second.openForEditing()
    assert.equal(again.mode, 'edit', 'LOCK with the same id is a refresh')
    first.close()
    second.close()

    const other = await h.createFile('Foreign.docx', 'x')
    const foreign = await session(other)
    assert.equal((await foreign.lock('another-client')).status, 200)
    foreign.close()
    const ds = await session(other)
    const opened = await ds.openForEditing()
    assert.equal(opened.mode, 'view')
    assert.equal(opened.viewReason, 'lock-failed')
    assert.equal(ds.sent.find((r) => r.operation === 'Lock')?.status, 409)
    ds.close()
  })

  test('Save As while holding the lock (PUT_RELATIVE with a UTF-7 Cyrillic name, no X-WOPI-Lock)', async () => {
    const fileId = await h.createFile('Contract.docx', 'contract v1')
    const ds = await session(fileId)
    assert.equal((await ds.openForEditing()).mode, 'edit')
    const saved = await ds.putRelativeFile(Buffer.from('contract copy'), 'Договор копия.docx')
    assert.equal(saved.status, 200)
    const body = saved.body as { Name: string; Url: string; HostEditUrl: string; HostViewUrl: string }
    assert.equal(body.Name, 'Договор копия.docx')
    const copyId = new URL(body.Url).pathname.split('/').pop() ?? ''
    assert.equal(await contentOf(h, copyId), 'contract copy')
    assert.equal(await contentOf(h, fileId), 'contract v1')
    assert.ok(body.HostEditUrl.includes(copyId))

    const converted = await ds.putRelativeFile(Buffer.from('converted'), '.odt', { fileConversion: true })
    assert.equal(converted.status, 200)
    assert.equal((converted.body as { Name: string }).Name, 'Contract.odt')
    await ds.closeWithoutChanges()
    ds.close()
  })

  test('rename from the editor (RENAME_FILE with the lock and a UTF-7 name)', async () => {
    const fileId = await h.createFile('Old title.docx', 'x')
    const ds = await session(fileId)
    const opened = await ds.openForEditing()
    assert.equal(opened.mode, 'edit')
    const renamed = await ds.renameFile(fileId, 'Новое название + план')
    assert.equal(renamed.status, 200)
    assert.deepEqual(renamed.body, { Name: 'Новое название + план' })
    assert.equal((await recordOf(h, fileId)).title, 'Новое название + план.docx')
    const info = await ds.checkFileInfo()
    assert.equal((info.body as { BaseFileName: string }).BaseFileName, 'Новое название + план.docx')
    await ds.closeWithoutChanges()
    ds.close()
  })
})
