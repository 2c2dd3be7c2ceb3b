import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { describe, test } from 'node:test'
import { strToU8, zipSync } from 'fflate'

import type { ExtractedText, ExtractionInput } from '../../ports/text-extractor.js'
import { createTextExtractor } from './index.js'

const FIXTURES = new URL('../../../test/fixtures/search/', import.meta.url)
const LIMITS = { maxChars: 1024 * 1024, timeoutMs: 30_000 }

/** A stored document as the extractor sees it: a name and ranged reads of its bytes. */
function inputOf(title: string, bytes: Uint8Array): ExtractionInput {
  return {
    title,
    size: bytes.length,
    async open(range) {
      const part = range === undefined ? bytes : bytes.subarray(range.start, range.end + 1)
      // Small chunks, as a disk or S3 stream hands them over.
      const chunks: Buffer[] = []
      for (let i = 0; i < part.length; i += 4096) chunks.push(Buffer.from(part.subarray(i, i + 4096)))
      return Readable.from(chunks)
    },
  }
}

function fixture(name: string): Uint8Array {
  return readFileSync(new URL(name, FIXTURES))
}

function textOf(result: ExtractedText): string {
  assert.equal(result.outcome, 'text', JSON.stringify(result))
  return result.outcome === 'text' ? result.text : ''
}

const extractor = createTextExtractor()

describe('documents written by LibreOffice', () => {
  for (const [name, words] of [
    ['source-text.docx', ['Zanzibar', 'Café', 'crème brûlée', 'wordprocessorword']],
    ['source-text.odt', ['Zanzibar', 'Café', 'crème brûlée', 'wordprocessorword']],
    ['source-text.pdf', ['Zanzibar', 'Café', 'wordprocessorword']],
    ['source-sheet.xlsx', ['Zanzibar', 'Café spreadsheetword']],
    ['source-sheet.ods', ['Zanzibar', 'Café spreadsheetword']],
    ['source-slides.pptx', ['Zanzibar Café slideword']],
    ['source-slides.odp', ['Zanzibar Café slideword']],
  ] as const) {
    test(`${name}: its words are read`, async () => {
      const text = textOf(await extractor.extract(inputOf(name, fixture(name)), LIMITS))
      for (const word of words) assert.ok(text.includes(word), `${word} not in ${JSON.stringify(text)}`)
    })
  }

  test('paragraphs of a docx are separate lines, not glued words', async () => {
    const text = textOf(await extractor.extract(inputOf('a.docx', fixture('source-text.docx')), LIMITS))
    assert.match(text, /office\nThe Café/)
  })
})

describe('text formats', () => {
  test('txt, csv and md are read as UTF-8', async () => {
    for (const name of ['notes.txt', 'table.csv', 'readme.md']) {
      const text = textOf(await extractor.extract(inputOf(name, strToU8('Zanzibar;café\n# crème')), LIMITS))
      assert.equal(text, 'Zanzibar;café\n# crème')
    }
  })

  test('html: tags, scripts, styles and comments go, entities are decoded', async () => {
    const html =
      '<html><head><title>T</title><style>p{color:red}</style></head><body>' +
      '<script>var secretScript = 1</script><!-- hidden comment --><p>Caf&eacute; &amp; cr&#232;me</p>' +
      '<div>Zanzibar</div></body></html>'
    const text = textOf(await extractor.extract(inputOf('page.html', strToU8(html)), LIMITS))
    assert.ok(text.includes('Café & crème'), text)
    assert.ok(text.includes('Zanzibar'), text)
    assert.ok(!text.includes('secretScript') && !text.includes('hidden comment') && !text.includes('color'), text)
  })

  test('an empty file has no words', async () => {
    assert.deepEqual(await extractor.extract(inputOf('empty.docx', new Uint8Array(0)), LIMITS), {
      outcome: 'unreadable',
      reason: 'not a zip archive',
    })
    assert.deepEqual(await extractor.extract(inputOf('empty.txt', new Uint8Array(0)), LIMITS), {
      outcome: 'text',
      text: '',
      truncated: false,
    })
  })
})

describe('limits', () => {
  test('at most maxChars characters are kept, and the result says it was cut', async () => {
    const result = await extractor.extract(inputOf('long.txt', strToU8('word '.repeat(10_000))), {
      ...LIMITS,
      maxChars: 100,
    })
    assert.equal(result.outcome, 'text')
    if (result.outcome !== 'text') return
    assert.ok(result.text.length <= 100)
    assert.equal(result.truncated, true)
  })

  test('a zip bomb stops at the decompression bound instead of expanding', async () => {
    // 16 MiB of one repeated character compress to a few KiB.
    const part = new Uint8Array(16 * 1024 * 1024).fill(0x3c)
    const bomb = zipSync({ 'word/document.xml': part }, { level: 9 })
    assert.ok(bomb.length < 1024 * 1024)
    const result = await extractor.extract(inputOf('bomb.docx', bomb), { ...LIMITS, maxChars: 1024 })
    assert.deepEqual(result, { outcome: 'unreadable', reason: 'expands past the decompression bound' })
  })

  test('a document past its time limit is unreadable', async () => {
    let clock = 0
    const slow = createTextExtractor({ now: () => (clock += 1000) })
    const result = await slow.extract(inputOf('a.docx', fixture('source-text.docx')), { ...LIMITS, timeoutMs: 1500 })
    assert.deepEqual(result, { outcome: 'unreadable', reason: 'took longer than the time limit' })
  })

  test('damaged documents are unreadable, not errors', async () => {
    const junk = strToU8('PK\u0003\u0004 this is not really a zip at all')
    for (const name of ['x.docx', 'x.xlsx', 'x.odt', 'x.pdf']) {
      const result = await extractor.extract(inputOf(name, junk), LIMITS)
      assert.equal(result.outcome, 'unreadable', name)
    }
  })

  test('a format no reader knows is unsupported unless the fallback takes it', async () => {
    assert.deepEqual(await extractor.extract(inputOf('old.doc', strToU8('x')), LIMITS), { outcome: 'unsupported' })
    assert.equal(extractor.supports('old.doc'), false)
    const withFallback = createTextExtractor({
      fallback: {
        supports: (title) => title.endsWith('.doc'),
        extract: async () => ({ outcome: 'text', text: 'converted words', truncated: false }),
      },
    })
    assert.equal(withFallback.supports('old.doc'), true)
    assert.deepEqual(await withFallback.extract(inputOf('old.doc', strToU8('x')), LIMITS), {
      outcome: 'text',
      text: 'converted words',
      truncated: false,
    })
  })
})
