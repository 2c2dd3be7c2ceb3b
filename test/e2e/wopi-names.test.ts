import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { decodeUtf7, encodeUtf7 } from '../../src/core/names/utf7.js'
import { call } from '../support/portal-client.js'
import {
  contentOf,
  countBlobFiles,
  lockHeaders,
  recordOf,
  startWopiHarness,
  versionsOf,
  type WopiHarness,
} from './wopi-support.js'

async function titles(h: WopiHarness): Promise<string[]> {
  const reply = await call(h.server.url, 'GET', '/api/2.0/files/@my?count=1000&sortBy=AZ', {
    token: h.portalToken,
  })
  return reply.json.response.files.map((f: { title: string }) => f.title)
}

describe('WOPI PutRelativeFile', () => {
  let h: WopiHarness
  before(async () => {
    h = await startWopiHarness({ FOLIO_MAX_FILE_SIZE: '1MiB' })
  })
  after(() => h.server.dispose())

  const saveAs = (id: string, headers: Record<string, string>, body: BodyInit = 'copy') =>
    h.wopi(id, { override: 'PUT_RELATIVE', headers, body })

  test('suggested full name in UTF-7 (Cyrillic, as ONLYOFFICE Docs encodes it) creates that file', async () => {
    const id = await h.createFile('Report.docx', 'original')
    const reply = await saveAs(
      id,
      { 'X-WOPI-SuggestedTarget': '+BB0EPgQyBEsEOQAgBDQEPgQ6BEMEPAQ1BD0EQg-.docx' },
      'copy bytes',
    )
    assert.equal(reply.status, 200)
    assert.equal(reply.json.Name, 'Новый документ.docx')
    const url = new URL(reply.json.Url)
    const newId = url.pathname.split('/').pop() ?? ''
    assert.equal(url.pathname, `/wopi/files/${newId}`)
    assert.equal(reply.json.Url.startsWith(`${h.server.ctx.config.publicUrl}/wopi/files/`), true)
    const token = url.searchParams.get('access_token') ?? ''
    const info = await h.wopi(newId, { method: 'GET', token })
    assert.equal(info.status, 200, 'the Url carries a working token for the new file')
    assert.equal(info.json.BaseFileName, 'Новый документ.docx')
    assert.equal(info.json.UserCanWrite, true)
    assert.equal(reply.json.HostViewUrl, `${h.server.ctx.config.publicUrl}/wopi-host/${newId}?action=view`)
    assert.equal(reply.json.HostEditUrl, `${h.server.ctx.config.publicUrl}/wopi-host/${newId}?action=edit`)
    assert.equal(await contentOf(h, newId), 'copy bytes')
    assert.equal(await contentOf(h, id), 'original')
  })

  test('a suggested extension keeps the base name: Report.docx + ".pdf" -> Report.pdf', async () => {
    const id = await h.createFile('Quarter.docx', 'x')
    const reply = await saveAs(id, { 'X-WOPI-SuggestedTarget': '.pdf', 'X-WOPI-FileConversion': 'true' })
    assert.equal(reply.status, 200)
    assert.equal(reply.json.Name, 'Quarter.pdf')
    const newId = new URL(reply.json.Url).pathname.split('/').pop() ?? ''
    const [version] = await versionsOf(h, newId)
    assert.equal(version.meta.fileConversion, true)
    assert.equal(version.meta.sourceFileId, id)
  })

  test('a taken suggested name gets a free variant, never overwriting; the extension stays', async () => {
    const id = await h.createFile('Taken.docx', 'first')
    const reply = await saveAs(id, { 'X-WOPI-SuggestedTarget': encodeUtf7('Taken.docx') }, 'second')
    assert.equal(reply.status, 200)
    assert.equal(reply.json.Name, 'Taken (2).docx')
    assert.equal(await contentOf(h, id), 'first')
  })

  test('an illegal suggested name is repaired into a legal one', async () => {
    const id = await h.createFile('Legal.docx', 'x')
    const reply = await saveAs(id, { 'X-WOPI-SuggestedTarget': encodeUtf7('a/b:c*?.docx') })
    assert.equal(reply.status, 200)
    assert.equal(reply.json.Name, 'a_b_c__.docx')
    const control = await saveAs(id, { 'X-WOPI-SuggestedTarget': encodeUtf7('\u0001.docx') })
    assert.equal(control.status, 200)
    assert.equal(control.json.Name, 'Legal (2).docx', 'nothing usable in the base: the source base is used')
  })

  test('invalid UTF-7 in X-WOPI-SuggestedTarget is 400, and nothing is created', async () => {
    const id = await h.createFile('Utf7.docx', 'x')
    const before = await titles(h)
    for (const bad of ['Report+.docx', 'name+', '+AGF']) {
      const reply = await saveAs(id, { 'X-WOPI-SuggestedTarget': bad })
      assert.equal(reply.status, 400, bad)
    }
    assert.deepEqual(await titles(h), before)
  })

  test('both or neither of SuggestedTarget and RelativeTarget is 400', async () => {
    const id = await h.createFile('Both.docx', 'x')
    const both = await saveAs(id, { 'X-WOPI-SuggestedTarget': 'a.docx', 'X-WOPI-RelativeTarget': 'b.docx' })
    assert.equal(both.status, 400)
    assert.equal((await saveAs(id, {})).status, 400)
  })

  test('RelativeTarget is used exactly', async () => {
    const id = await h.createFile('Source.docx', 'x')
    const reply = await saveAs(id, { 'X-WOPI-RelativeTarget': encodeUtf7('Exact name (draft).docx') }, 'exact')
    assert.equal(reply.status, 200)
    assert.equal(reply.json.Name, 'Exact name (draft).docx')
    const newId = new URL(reply.json.Url).pathname.split('/').pop() ?? ''
    assert.equal(await contentOf(h, newId), 'exact')
  })

  test('a taken RelativeTarget is 409 with X-WOPI-ValidRelativeTarget, unless overwrite is asked', async () => {
    const id = await h.createFile('Src.docx', 'x')
    const targetId = await h.createFile('Target.docx', 'old target')
    const refused = await saveAs(id, { 'X-WOPI-RelativeTarget': 'Target.docx' }, 'new')
    assert.equal(refused.status, 409)
    assert.equal(decodeUtf7(refused.headers.get('x-wopi-validrelativetarget') ?? ''), 'Target (2).docx')
    assert.equal(refused.headers.get('x-wopi-lock'), '')
    const notTrue = await saveAs(id, {
      'X-WOPI-RelativeTarget': 'Target.docx',
      'X-WOPI-OverwriteRelativeTarget': 'false',
    })
    assert.equal(notTrue.status, 409)
    assert.equal(await contentOf(h, targetId), 'old target')

    const overwritten = await saveAs(
      id,
      { 'X-WOPI-RelativeTarget': 'Target.docx', 'X-WOPI-OverwriteRelativeTarget': 'true' },
      'new target',
    )
    assert.equal(overwritten.status, 200)
    assert.equal(overwritten.json.Name, 'Target.docx')
    assert.equal(new URL(overwritten.json.Url).pathname, `/wopi/files/${targetId}`)
    assert.equal(await contentOf(h, targetId), 'new target')
    assert.equal((await recordOf(h, targetId)).version, 2, 'the overwrite is a new version')
  })

  test('overwriting a locked RelativeTarget is 409 with its lock, and changes nothing', async () => {
    const id = await h.createFile('Src2.docx', 'x')
    const targetId = await h.createFile('LockedTarget.docx', 'guarded')
    await h.wopi(targetId, { override: 'LOCK', headers: lockHeaders('target-lock') })
    const blobs = await countBlobFiles(h.server)
    const reply = await saveAs(
      id,
      { 'X-WOPI-RelativeTarget': 'LockedTarget.docx', 'X-WOPI-OverwriteRelativeTarget': 'true' },
      'intruder',
    )
    assert.equal(reply.status, 409)
    assert.equal(reply.headers.get('x-wopi-lock'), 'target-lock')
    assert.equal(await contentOf(h, targetId), 'guarded')
    assert.equal(await countBlobFiles(h.server), blobs)
  })

  test('an illegal RelativeTarget is 400 (it may not be changed)', async () => {
    const id = await h.createFile('Src3.docx', 'x')
    assert.equal((await saveAs(id, { 'X-WOPI-RelativeTarget': 'bad|name.docx' })).status, 400)
    assert.equal((await saveAs(id, { 'X-WOPI-RelativeTarget': encodeUtf7('con.docx') })).status, 400)
  })

  test('the source lock: no X-WOPI-Lock proceeds, the matching ID proceeds, another ID is 409', async () => {
    const id = await h.createFile('LockedSource.docx', 'x')
    await h.wopi(id, { override: 'LOCK', headers: lockHeaders('src') })
    assert.equal((await saveAs(id, { 'X-WOPI-SuggestedTarget': '.odt' })).status, 200)
    const matching = await saveAs(id, { 'X-WOPI-SuggestedTarget': '.odt', 'X-WOPI-Lock': 'src' })
    assert.equal(matching.status, 200)
    const other = await saveAs(id, { 'X-WOPI-SuggestedTarget': '.odt', 'X-WOPI-Lock': 'other' })
    assert.equal(other.status, 409)
    assert.equal(other.headers.get('x-wopi-lock'), 'src')
  })

  test('X-WOPI-Size that disagrees with Content-Length is 400; a body over the limit is 413', async () => {
    const id = await h.createFile('Sized.docx', 'x')
    const before = await titles(h)
    const blobs = await countBlobFiles(h.server)
    const mismatch = await saveAs(id, { 'X-WOPI-SuggestedTarget': 'sized-copy.docx', 'X-WOPI-Size': '3' }, 'four')
    assert.equal(mismatch.status, 400)
    const big = await saveAs(id, { 'X-WOPI-SuggestedTarget': 'big-copy.docx' }, Buffer.alloc(1024 * 1024 + 1))
    assert.equal(big.status, 413)
    assert.deepEqual(await titles(h), before)
    assert.equal(await countBlobFiles(h.server), blobs)
    const matching = await saveAs(id, { 'X-WOPI-SuggestedTarget': 'sized-copy.docx', 'X-WOPI-Size': '4' }, 'four')
    assert.equal(matching.status, 200)
  })
})

describe('WOPI RenameFile', () => {
  let h: WopiHarness
  before(async () => {
    h = await startWopiHarness()
  })
  after(() => h.server.dispose())

  const rename = (id: string, requested: string | undefined, extra: Record<string, string> = {}) =>
    h.wopi(id, {
      override: 'RENAME_FILE',
      headers: { ...(requested === undefined ? {} : { 'X-WOPI-RequestedName': requested }), ...extra },
    })

  test('renames, keeps the extension and answers {"Name": <name without extension>}', async () => {
    const id = await h.createFile('Plan.xlsx', 'x')
    const reply = await rename(id, 'Budget 2026')
    assert.equal(reply.status, 200)
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/)
    assert.deepEqual(reply.json, { Name: 'Budget 2026' })
    assert.equal((await recordOf(h, id)).title, 'Budget 2026.xlsx')
  })

  test('X-WOPI-RequestedName is UTF-7 (Cyrillic, "+-" for "+")', async () => {
    const id = await h.createFile('Draft.docx', 'x')
    const reply = await rename(id, encodeUtf7('Отчёт a+b'))
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.json, { Name: 'Отчёт a+b' })
    assert.equal((await recordOf(h, id)).title, 'Отчёт a+b.docx')
  })

  test('a taken name becomes a free one', async () => {
    await h.createFile('Occupied.docx', 'x')
    const id = await h.createFile('Mover.docx', 'x')
    const reply = await rename(id, 'Occupied')
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.json, { Name: 'Occupied (2)' })
  })

  test('an illegal name is repaired (forbidden characters, device names)', async () => {
    const id = await h.createFile('Repair.docx', 'x')
    assert.deepEqual((await rename(id, 'a:b*c')).json, { Name: 'a_b_c' })
    assert.deepEqual((await rename(id, 'CON')).json, { Name: '_CON' })
    const long = await rename(id, 'x'.repeat(300))
    assert.equal(long.status, 200)
    const title = (await recordOf(h, id)).title
    assert.ok(title.endsWith('.docx') && Buffer.byteLength(title) <= 255)
  })

  test('renaming to its own name is 200 and changes nothing', async () => {
    const id = await h.createFile('Same Name.docx', 'x')
    const reply = await rename(id, 'Same Name')
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.json, { Name: 'Same Name' })
  })

  test('no derivable name: 400 with X-WOPI-InvalidFileNameError (missing, blank, control only, bad UTF-7)', async () => {
    const id = await h.createFile('Stays.docx', 'x')
    for (const requested of [undefined, '', '   ', encodeUtf7('\u0001\u0002'), 'bad+.utf7']) {
      const reply = await rename(id, requested)
      assert.equal(reply.status, 400, String(requested))
      assert.ok(reply.headers.get('x-wopi-invalidfilenameerror'), String(requested))
    }
    assert.equal((await recordOf(h, id)).title, 'Stays.docx')
  })
})
