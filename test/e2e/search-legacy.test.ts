import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { libreOfficeMissing } from '../contract/converter.contract.js'
import { call } from '../support/portal-client.js'
import { startWopiHarness, type WopiHarness } from './wopi-support.js'

const run = promisify(execFile)

/** A legacy document made by LibreOffice itself from `source` (a cold `soffice --convert-to`). */
async function madeByLibreOffice(folder: string, source: string, contents: string, target: string): Promise<Buffer> {
  await writeFile(join(folder, source), contents)
  const profile = `file://${join(folder, 'profile')}`
  await run(
    'soffice',
    [
      `-env:UserInstallation=${profile}`,
      '--headless',
      '--convert-to',
      target,
      '--outdir',
      folder,
      join(folder, source),
    ],
    {
      timeout: 120_000,
    },
  )
  return readFile(join(folder, source.replace(/\.[^.]+$/, `.${target}`)))
}

/**
 * Content search over formats the built-in readers cannot read, through the real
 * LibreOffice: an .rtf written as text, a .doc and an .xls made by LibreOffice.
 */
describe('content search of legacy formats through the converter', { skip: libreOfficeMissing() }, () => {
  let h: WopiHarness
  let folder: string

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'folio-legacy-'))
    h = await startWopiHarness({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
  })
  after(async () => {
    await h.server.dispose()
    await rm(folder, { recursive: true, force: true })
  })

  const foundByContent = async (word: string): Promise<string[]> => {
    const reply = await call(
      h.server.url,
      'GET',
      `/api/2.0/files/@my?withsubfolders=true&searchInContent=true&filterValue=${word}`,
      {
        token: h.portalToken,
      },
    )
    assert.equal(reply.status, 200, reply.text)
    return reply.json.response.files.map((file: { id: string }) => file.id)
  }

  const eventuallyFound = async (word: string, fileId: string) => {
    for (;;) {
      if ((await foundByContent(word)).includes(fileId)) return
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  test('an .rtf written as text is found by the words inside it', async () => {
    const rtf = '{\\rtf1\\ansi{\\fonttbl\\f0\\fswiss Helvetica;}\\f0\\pard The marsupialword sleeps in the rtf.\\par}'
    const fileId = await h.createFile('notes.rtf', rtf)
    await eventuallyFound('marsupialword', fileId)
    // Its name holds no such word: the content was read.
    assert.deepEqual(
      (
        await call(h.server.url, 'GET', '/api/2.0/files/@my?withsubfolders=true&filterValue=marsupialword', {
          token: h.portalToken,
        })
      ).json.response.files,
      [],
    )
  })

  test('a .doc and an .xls made by LibreOffice are found by the words inside them', async () => {
    const doc = await madeByLibreOffice(
      folder,
      'letter.rtf',
      '{\\rtf1\\ansi\\pard Dear wombatword, hello.\\par}',
      'doc',
    )
    const xls = await madeByLibreOffice(folder, 'ledger.csv', 'item,amount\nplatypusword,12\n', 'xls')
    const docId = await h.createFile('letter.doc', doc)
    const xlsId = await h.createFile('ledger.xls', xls)
    await eventuallyFound('wombatword', docId)
    await eventuallyFound('platypusword', xlsId)
  })
})
