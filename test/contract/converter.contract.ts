import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { strFromU8, unzipSync } from 'fflate'

import type { ConversionTarget } from '../../src/core/conversion/formats.js'
import { isDomainError, type ErrorCode } from '../../src/core/errors.js'
import type { ConvertedDocument, Converter } from '../../src/ports/converter.js'
import {
  docxBomb,
  docxLinkingImage,
  docxWithPicture,
  docxWithText,
  pptxWithText,
  randomDocumentBytes,
  truncatedDocx,
  xlsxWithText,
} from '../support/office-documents.js'

/** What a driver's test hands the suite. */
export interface OpenedConverter {
  converter: Converter
  cleanup: () => Promise<void>
}

/** Under CI=true a missing LibreOffice fails the run; elsewhere the suites are skipped. */
export function libreOfficeMissing(): string | false {
  const found = spawnSync('soffice', ['--version'], { stdio: 'ignore' }).status === 0
  if (found) return false
  if (process.env.CI === 'true')
    throw new Error('soffice is not installed (required under CI=true; .ci/run installs it)')
  return 'LibreOffice (soffice) is not installed'
}

/** Reads a conversion's result whole. */
export async function bytesOf(result: ConvertedDocument): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of result.stream()) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
}

/** The text a result shows: pdftotext for PDFs, the XML parts' text for zip packages, else UTF-8. */
export async function textOf(target: ConversionTarget, bytes: Buffer): Promise<string> {
  if (target === 'pdf') {
    const dir = await mkdtemp(join(tmpdir(), 'folio-pdftext-'))
    try {
      await writeFile(join(dir, 'result.pdf'), bytes)
      const run = spawnSync('pdftotext', ['-layout', join(dir, 'result.pdf'), '-'], { encoding: 'utf8' })
      assert.equal(run.status, 0, `pdftotext failed: ${run.stderr}`)
      return run.stdout
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }
  if (['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp'].includes(target)) {
    const parts = unzipSync(bytes)
    return Object.entries(parts)
      .filter(([path]) => path.endsWith('.xml'))
      .map(([, data]) => strFromU8(data).replace(/<[^>]+>/g, ' '))
      .join(' ')
  }
  return bytes.toString('utf8')
}

/** How many images a PDF holds (poppler's pdfimages -list). */
async function imagesIn(pdf: Buffer): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'folio-pdfimages-'))
  try {
    await writeFile(join(dir, 'result.pdf'), pdf)
    const run = spawnSync('pdfimages', ['-list', join(dir, 'result.pdf')], { encoding: 'utf8' })
    assert.equal(run.status, 0, `pdfimages failed: ${run.stderr}`)
    // Two header lines, then one line per image.
    return run.stdout.trim().split('\n').length - 2
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Width and height of a PNG, from its IHDR chunk. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', 'not a PNG')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

const hasCode = (code: ErrorCode) => (error: unknown) => {
  assert.ok(isDomainError(error), `expected a DomainError, got ${String(error)}`)
  assert.equal(error.code, code, error.message)
  assert.ok(error.message.length > 0)
  return true
}

const stream = (bytes: Buffer | string, extension: string) => ({
  kind: 'stream' as const,
  stream: Readable.from([Buffer.from(bytes)]),
  extension,
})

/** A local HTTP server that records every request it gets (it must get none). */
async function startRecorder(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = []
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`)
    response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(0))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { server, url: `http://127.0.0.1:${port}`, requests }
}

const WORDS = 'Quarterly report of the Folio conversion test'

/** Sources with their text, and every target the table allows for them that this suite checks. */
const PAIRS: Array<{
  name: string
  extension: string
  bytes: () => Buffer
  text: string
  targets: ConversionTarget[]
}> = [
  {
    name: 'docx',
    extension: 'docx',
    bytes: () => docxWithText([WORDS, 'Second paragraph']),
    text: WORDS,
    targets: ['pdf', 'odt', 'txt', 'rtf'],
  },
  {
    name: 'txt',
    extension: 'txt',
    bytes: () => Buffer.from(`${WORDS}\nSecond line\n`),
    text: WORDS,
    targets: ['docx', 'pdf'],
  },
  {
    name: 'xlsx',
    extension: 'xlsx',
    bytes: () => xlsxWithText([WORDS, 'Second cell']),
    text: WORDS,
    targets: ['pdf', 'ods', 'csv'],
  },
  {
    name: 'csv',
    extension: 'csv',
    bytes: () => Buffer.from(`"${WORDS}",1\n"Second row",2\n`),
    text: WORDS,
    targets: ['xlsx'],
  },
  {
    name: 'pptx',
    extension: 'pptx',
    bytes: () => pptxWithText(WORDS, 'Subtitle words'),
    text: WORDS,
    targets: ['pdf', 'odp'],
  },
]

/**
 * The behaviour every Converter driver promises: each format pair keeps the document's
 * text, thumbnails are small PNGs, the hostile set fails with CONVERSION_FAILED and the
 * converter keeps working, and no linked content is fetched.
 */
export function runConverterContract(name: string, open: () => Promise<OpenedConverter>): void {
  describe(`Converter contract: ${name}`, { skip: libreOfficeMissing() }, () => {
    let opened: OpenedConverter | undefined
    const converter = (): Converter => {
      if (!opened) throw new Error('converter not opened')
      return opened.converter
    }
    const convertToText = async (bytes: Buffer, extension: string, target: ConversionTarget) => {
      const result = await converter().convert({ source: stream(bytes, extension), target })
      assert.equal(result.target, target)
      const out = await bytesOf(result)
      assert.equal(out.length, result.size)
      return textOf(target, out)
    }
    const stillWorks = async () => {
      const text = await convertToText(Buffer.from('Still converting\n'), 'txt', 'pdf')
      assert.match(text, /Still converting/)
    }

    before(async () => {
      opened = await open()
    })
    after(async () => {
      await opened?.cleanup()
    })

    for (const pair of PAIRS) {
      for (const target of pair.targets) {
        test(`${pair.name} to ${target} keeps the text`, async () => {
          const text = await convertToText(pair.bytes(), pair.extension, target)
          assert.ok(text.replace(/\s+/g, ' ').includes(WORDS), `"${WORDS}" not in ${target}: ${text.slice(0, 300)}`)
        })
      }
    }

    test('a legacy-free round trip: docx to odt and back to docx keeps the text', async () => {
      const odt = await bytesOf(
        await converter().convert({ source: stream(docxWithText([WORDS]), 'docx'), target: 'odt' }),
      )
      const text = await convertToText(odt, 'odt', 'docx')
      assert.ok(text.includes(WORDS))
    })

    for (const [extension, bytes] of [
      ['docx', () => docxWithText([WORDS])],
      ['xlsx', () => xlsxWithText([WORDS])],
      ['pptx', () => pptxWithText(WORDS, 'Subtitle')],
    ] as const) {
      test(`a ${extension} thumbnail is a PNG of at most 512 pixels a side`, async () => {
        const result = await converter().convert({ source: stream(bytes(), extension), target: 'png' })
        const { width, height } = pngSize(await bytesOf(result))
        assert.ok(width > 16 && height > 16, `${width}x${height}`)
        assert.ok(width <= 512 && height <= 512, `${width}x${height}`)
      })
    }

    test('a pair outside the table is CONVERSION_UNSUPPORTED', async () => {
      await assert.rejects(
        converter().convert({ source: stream(xlsxWithText(['x']), 'xlsx'), target: 'docx' }),
        hasCode('CONVERSION_UNSUPPORTED'),
      )
      await assert.rejects(
        converter().convert({ source: stream('MZ', 'exe'), target: 'pdf' }),
        hasCode('CONVERSION_UNSUPPORTED'),
      )
    })

    test('random bytes named .docx fail with CONVERSION_FAILED, and the converter goes on', async () => {
      await assert.rejects(
        converter().convert({ source: stream(randomDocumentBytes(), 'docx'), target: 'pdf' }),
        hasCode('CONVERSION_FAILED'),
      )
      await stillWorks()
    })

    test('a truncated docx fails with CONVERSION_FAILED, and the converter goes on', async () => {
      await assert.rejects(
        converter().convert({ source: stream(truncatedDocx(), 'docx'), target: 'pdf' }),
        hasCode('CONVERSION_FAILED'),
      )
      await stillWorks()
    })

    test('a docx whose document.xml inflates to 400 MiB fails with CONVERSION_FAILED, and the converter goes on', async () => {
      const bomb = await docxBomb(400 * 1024 * 1024)
      assert.ok(bomb.length < 4 * 1024 * 1024, `the bomb is ${bomb.length} bytes packed`)
      await assert.rejects(
        converter().convert({ source: stream(bomb, 'docx'), target: 'pdf' }),
        hasCode('CONVERSION_FAILED'),
      )
      await stillWorks()
    })

    test('a document linking an image on a local server converts without one request reaching it', async () => {
      const recorder = await startRecorder()
      try {
        const linking = docxLinkingImage(WORDS, `${recorder.url}/x.png`)
        for (const target of ['pdf', 'png', 'odt'] as const) {
          const result = await converter().convert({ source: stream(linking, 'docx'), target })
          await bytesOf(result)
        }
        // Give a late fetch time to arrive before looking.
        await new Promise((resolve) => setTimeout(resolve, 500))
        assert.deepEqual(recorder.requests, [])
      } finally {
        await new Promise((resolve) => recorder.server.close(resolve))
      }
    })

    test('a document linking a picture on the local disk, outside its folder, converts without it', async () => {
      // A real PNG, made by the converter, kept outside any conversion's folder.
      const png = await bytesOf(
        await converter().convert({ source: stream('A picture that must stay private\n', 'txt'), target: 'png' }),
      )
      const dir = await mkdtemp(join(tmpdir(), 'folio-outside-'))
      try {
        const path = join(dir, 'private.png')
        await writeFile(path, png)
        const toPdf = async (docx: Buffer) =>
          bytesOf(await converter().convert({ source: stream(docx, 'docx'), target: 'pdf' }))
        // The control: the same picture embedded in the document does show in the PDF.
        assert.ok((await imagesIn(await toPdf(docxWithPicture(WORDS, { embedded: png })))) >= 1)
        const linked = await toPdf(docxWithPicture(WORDS, { link: pathToFileURL(path).href }))
        assert.match(await textOf('pdf', linked), /Quarterly report/)
        assert.equal(await imagesIn(linked), 0)
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })

    test('a result larger than maxOutputBytes fails with CONVERSION_FAILED', async () => {
      await assert.rejects(
        converter().convert({ source: stream(docxWithText([WORDS]), 'docx'), target: 'pdf', maxOutputBytes: 100 }),
        hasCode('CONVERSION_FAILED'),
      )
    })

    test('a blob source that does not exist is NOT_FOUND', async () => {
      await assert.rejects(
        converter().convert({ source: { kind: 'blob', blobKey: 'missing-blob', extension: 'docx' }, target: 'pdf' }),
        hasCode('NOT_FOUND'),
      )
    })
  })
}
