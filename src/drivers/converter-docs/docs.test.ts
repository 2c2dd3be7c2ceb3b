import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, test } from 'node:test'

import { bytesOf, libreOfficeMissing, runConverterContract, textOf } from '../../../test/contract/converter.contract.js'
import { startDocsSimulator, type DocsSimulator } from '../../../test/support/docs-server-simulator.js'
import { docxWithText } from '../../../test/support/office-documents.js'
import { isConversionTarget } from '../../core/conversion/formats.js'
import { DomainError, isDomainError } from '../../core/errors.js'
import { createOutboundClient } from '../../protocols/http/outbound.js'
import { docsConverterTransport } from '../../protocols/onlyoffice/converter-transport.js'
import type { ConversionSource } from '../../ports/converter.js'
import { openFsBlobStore } from '../blob-fs/index.js'
import { openLibreOfficeConverter } from '../converter-libreoffice/index.js'
import { openDocsConverter } from './index.js'

const SECRET = 'converter-test-secret-0123456789'

/**
 * Folio's side of a conversion through the simulator: sources are served by a small HTTP
 * server standing in for Folio's source links (blobs from a real blob store, streams held
 * while their conversion runs); the simulator converts with a real LibreOffice pool.
 */
async function openThroughDocs(settings: { jwt: boolean } = { jwt: true }) {
  const root = await mkdtemp(join(tmpdir(), 'folio-docs-conv-'))
  const blobs = await openFsBlobStore({ root: join(root, 'store') })
  const engine = await openLibreOfficeConverter({
    workers: 1,
    timeoutMs: 30_000,
    queueSize: 20,
    maxOutputBytes: 5e7,
    tempRoot: root,
  })
  const simulator: DocsSimulator = await startDocsSimulator({
    ...(settings.jwt ? { jwtSecret: SECRET } : {}),
    downloadRetryMs: 10,
    convert: async ({ bytes, filetype, outputtype }) => {
      if (!isConversionTarget(outputtype)) throw new Error(`no such target ${outputtype}`)
      const result = await engine.convert({
        source: { kind: 'stream', stream: Readable.from([Buffer.from(bytes)]), extension: filetype },
        target: outputtype,
      })
      return bytesOf(result)
    },
  })
  const published = new Map<string, Buffer>()
  const sources = createServer((request, response) => {
    const bytes = published.get(request.url ?? '')
    if (!bytes) return void response.writeHead(404).end()
    response.writeHead(200, { 'content-length': bytes.length }).end(bytes)
  })
  await new Promise<void>((resolve) => sources.listen(0, '127.0.0.1', resolve))
  const address = sources.address()
  const sourcesUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  const client = createOutboundClient()
  const publishSource = async (source: ConversionSource) => {
    let input: Readable
    if (source.kind === 'stream') input = source.stream
    else {
      if (!(await blobs.exists(source.blobKey))) throw new DomainError('NOT_FOUND', 'no such blob')
      input = await blobs.get(source.blobKey)
    }
    const chunks: Buffer[] = []
    for await (const chunk of input) chunks.push(Buffer.from(chunk))
    const path = `/source/${randomBytes(8).toString('hex')}`
    published.set(path, Buffer.concat(chunks))
    return { url: `${sourcesUrl}${path}`, release: async () => void published.delete(path) }
  }
  const converter = await openDocsConverter({
    internalUrl: simulator.url,
    transport: {
      ...docsConverterTransport({
        docs: { url: simulator.url, internalUrl: simulator.url },
        jwtSecret: settings.jwt ? SECRET : undefined,
        now: Date.now,
        client,
      }),
      publishSource,
    },
    timeoutMs: 60_000,
    concurrency: 2,
    queueSize: 20,
    maxOutputBytes: 5e7,
    pollIntervalMs: 50,
    tempRoot: root,
  })
  return {
    converter,
    simulator,
    blobs,
    published,
    cleanup: async () => {
      await converter.close()
      await simulator.close()
      await engine.close()
      await client.close()
      await new Promise((resolve) => sources.close(resolve))
      await rm(root, { recursive: true, force: true })
    },
  }
}

runConverterContract('ONLYOFFICE Docs (simulator over LibreOffice)', () => openThroughDocs())

describe('ONLYOFFICE Docs converter', { skip: libreOfficeMissing() }, () => {
  test('asks asynchronously with a signed token, polls until endConvert, and leaves no source published', async () => {
    const opened = await openThroughDocs()
    try {
      const result = await opened.converter.convert({
        source: { kind: 'stream', stream: Readable.from([docxWithText(['Polled through Docs'])]), extension: 'docx' },
        target: 'pdf',
      })
      assert.match(await textOf('pdf', await bytesOf(result)), /Polled through Docs/)
      const asked = opened.simulator.conversions
      assert.ok(asked.length >= 2, `${asked.length} requests`)
      assert.ok(asked.every((c) => c.async && c.error === 0 && c.filetype === 'docx' && c.outputtype === 'pdf'))
      assert.equal(asked.at(-1)?.endConvert, true)
      assert.equal(new Set(asked.map((c) => c.key)).size, 1)
      assert.equal(opened.published.size, 0)
    } finally {
      await opened.cleanup()
    }
  })

  test('a converter without the Docs secret is refused by Docs: UPSTREAM_FAILED naming the secret', async () => {
    const opened = await openThroughDocs({ jwt: false })
    const withSecret = await startDocsSimulator({ jwtSecret: SECRET })
    const client = createOutboundClient()
    try {
      const converter = await openDocsConverter({
        internalUrl: withSecret.url,
        transport: {
          ...docsConverterTransport({
            docs: { url: withSecret.url, internalUrl: withSecret.url },
            jwtSecret: undefined,
            now: Date.now,
            client,
          }),
          publishSource: async () => ({ url: 'http://127.0.0.1:9/x', release: async () => undefined }),
        },
        timeoutMs: 10_000,
        concurrency: 1,
        queueSize: 1,
        maxOutputBytes: 1e6,
      })
      await assert.rejects(
        converter.convert({
          source: { kind: 'stream', stream: Readable.from([Buffer.from('x')]), extension: 'txt' },
          target: 'pdf',
        }),
        (error: unknown) =>
          isDomainError(error) && error.code === 'UPSTREAM_FAILED' && /JWT_SECRET/.test(error.message),
      )
      assert.deepEqual(
        withSecret.conversions.map((c) => c.error),
        [-8],
      )
      await converter.close()
    } finally {
      await client.close()
      await withSecret.close()
      await opened.cleanup()
    }
  })
})
