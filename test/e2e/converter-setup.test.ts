import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { describe, test } from 'node:test'
import pino from 'pino'

import { buildConfig } from '../../src/config/load.js'
import { isConversionTarget } from '../../src/core/conversion/formats.js'
import { isDomainError } from '../../src/core/errors.js'
import { pickConverter } from '../../src/main.js'
import { bytesOf, libreOfficeMissing, textOf } from '../contract/converter.contract.js'
import { startDocsSimulator } from '../support/docs-server-simulator.js'
import { startTestServer } from '../support/folio-server.js'
import { docxWithText } from '../support/office-documents.js'

const settings = (raw: Record<string, string>) => buildConfig({ FOLIO_ADMIN_PASSWORD: 'x', ...raw })

describe('FOLIO_CONVERTER picks the converter', () => {
  test('auto: Docs when configured, else LibreOffice when found, else off with the reason', () => {
    assert.deepEqual(pickConverter(settings({ FOLIO_DOCS_URL: 'http://docs.test' }), '/x/soffice.bin'), {
      kind: 'docs',
    })
    assert.deepEqual(pickConverter(settings({}), '/x/soffice.bin'), { kind: 'libreoffice', office: '/x/soffice.bin' })
    assert.deepEqual(pickConverter(settings({}), undefined), {
      kind: 'off',
      reason: 'soffice (LibreOffice) is not on the PATH',
    })
  })

  test('an explicit choice wins, and one that cannot run says why', () => {
    const docsAndOffice = settings({ FOLIO_DOCS_URL: 'http://docs.test', FOLIO_CONVERTER: 'libreoffice' })
    assert.equal(pickConverter(docsAndOffice, '/x/soffice.bin').kind, 'libreoffice')
    assert.deepEqual(pickConverter(settings({ FOLIO_CONVERTER: 'docs' }), '/x/soffice.bin'), {
      kind: 'off',
      reason: 'FOLIO_CONVERTER=docs needs FOLIO_DOCS_URL',
    })
    assert.equal(pickConverter(settings({ FOLIO_CONVERTER: 'off' }), '/x/soffice.bin').kind, 'off')
  })

  test('workers, timeout, queue and memory are read with their defaults', () => {
    const config = settings({ FOLIO_CONVERTER_WORKERS: '3', FOLIO_CONVERTER_TIMEOUT: '45s' })
    assert.deepEqual(
      { ...config.converter },
      { kind: 'auto', workers: 3, timeoutMs: 45_000, queueSize: 100, memoryBytes: 2 * 1024 ** 3 },
    )
    assert.throws(() => settings({ FOLIO_CONVERTER: 'unoconv' }), /FOLIO_CONVERTER/)
  })
})

describe('the running converter', () => {
  test('off: /readyz and the start-up log say so, and a conversion is CONVERTER_OFF saying how to turn it on', async () => {
    const lines: string[] = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) })
    const server = await startTestServer({ FOLIO_CONVERTER: 'off' }, { logger })
    try {
      const ready = await (await fetch(`${server.url}/readyz`)).json()
      assert.equal(ready.converter.kind, 'off')
      assert.match(ready.converter.detail, /install LibreOffice/)
      assert.ok(lines.some((line) => line.includes('"converter":"off"') && line.includes('Folio is listening')))
      await assert.rejects(
        server.converter.convert({
          source: { kind: 'stream', stream: Readable.from(['x']), extension: 'txt' },
          target: 'pdf',
        }),
        (error: unknown) =>
          isDomainError(error) && error.code === 'CONVERTER_OFF' && /FOLIO_DOCS_URL/.test(error.message),
      )
    } finally {
      await server.dispose()
    }
  })

  test('auto without Docs runs LibreOffice, named on /readyz', { skip: libreOfficeMissing() }, async () => {
    const server = await startTestServer({ FOLIO_CONVERTER_WORKERS: '1' })
    try {
      const ready = await (await fetch(`${server.url}/readyz`)).json()
      assert.equal(ready.converter.kind, 'libreoffice')
      assert.match(ready.converter.detail, /1 worker/)
    } finally {
      await server.dispose()
    }
  })

  test('auto with Docs converts through Docs, which fetches the stored source from Folio by a signed link', async () => {
    const sourcesAsked: string[] = []
    const docs = await startDocsSimulator({
      jwtSecret: 'converter-e2e-secret-0123456789abcdef',
      downloadRetryMs: 10,
      // An engine that proves it got the source: it answers the docx's own text as txt.
      convert: async ({ bytes, outputtype }) => {
        if (!isConversionTarget(outputtype)) throw new Error('bad target')
        sourcesAsked.push(outputtype)
        return Buffer.from(
          `converted ${bytes.length} bytes starting ${Buffer.from(bytes.subarray(0, 2)).toString('latin1')}`,
        )
      },
    })
    const server = await startTestServer({
      FOLIO_DOCS_URL: docs.url,
      FOLIO_DOCS_JWT_SECRET: 'converter-e2e-secret-0123456789abcdef',
    })
    try {
      const ready = await (await fetch(`${server.url}/readyz`)).json()
      assert.equal(ready.converter.kind, 'docs')
      const docx = docxWithText(['Through Docs'])
      const stored = await server.ctx.blobs.put(Readable.from([docx]), { maxBytes: 1e7 })
      const result = await server.converter.convert({
        source: { kind: 'blob', blobKey: stored.key, extension: 'docx' },
        target: 'txt',
      })
      assert.equal((await bytesOf(result)).toString('latin1'), `converted ${docx.length} bytes starting PK`)
      assert.deepEqual(sourcesAsked, ['txt'])
      // The link Docs fetched the source from is Folio's, signed, and answered 200.
      const fetched = docs.downloads.filter((attempt) => attempt.url.includes('/onlyoffice/convert-source/'))
      assert.equal(fetched.length, 1)
      assert.equal(fetched[0]?.httpStatus, 200)
      // The same link with another blob key is refused.
      const forged = (fetched[0]?.url ?? '').replace(stored.key, 'a'.repeat(stored.key.length))
      assert.equal((await fetch(forged)).status, 403)
      // A stream source is stored for the conversion and removed after it.
      const before = await countBlobs(server)
      const again = await server.converter.convert({
        source: { kind: 'stream', stream: Readable.from([docx]), extension: 'docx' },
        target: 'pdf',
      })
      await again.discard()
      assert.equal(await countBlobs(server), before)
    } finally {
      await server.dispose()
      await docs.close()
    }
  })

  test('LibreOffice through a running Folio converts a stored blob', { skip: libreOfficeMissing() }, async () => {
    const server = await startTestServer({ FOLIO_CONVERTER: 'libreoffice', FOLIO_CONVERTER_WORKERS: '1' })
    try {
      const stored = await server.ctx.blobs.put(Readable.from([docxWithText(['Stored then converted'])]), {
        maxBytes: 1e7,
      })
      const result = await server.converter.convert({
        source: { kind: 'blob', blobKey: stored.key, extension: 'docx' },
        target: 'pdf',
      })
      assert.match(await textOf('pdf', await bytesOf(result)), /Stored then converted/)
    } finally {
      await server.dispose()
    }
  })
})

async function countBlobs(server: { ctx: { blobs: { list(): AsyncIterable<unknown> } } }): Promise<number> {
  let count = 0
  for await (const _ of server.ctx.blobs.list()) count += 1
  return count
}
