import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { DomainError } from '../errors.js'
import {
  MAX_FILE_NAME_BYTES,
  candidateNames,
  extensionOf,
  resolveSuggestedTarget,
  sanitizeFileName,
  splitExtension,
  normalizeFileName,
  validateFileName,
  withConflictSuffix,
} from './file-names.js'

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

function assertLegal(name: string): void {
  assert.deepEqual(validateFileName(name), { ok: true }, `expected ${JSON.stringify(name)} legal`)
}

function assertIllegal(name: string, reason: RegExp): void {
  const result = validateFileName(name)
  assert.equal(result.ok, false, `expected ${JSON.stringify(name)} to be illegal`)
  if (!result.ok) assert.match(result.reason, reason, JSON.stringify(name))
}

describe('validateFileName: illegal classes', () => {
  test('empty', () => assertIllegal('', /empty/))

  test('"." and ".." (path traversal)', () => {
    assertIllegal('.', /"\." or "\.\."/)
    assertIllegal('..', /"\." or "\.\."/)
  })

  test('path separators', () => {
    for (const name of ['a/b.docx', '../x.docx', '/etc', 'a\\b.docx', '..\\..\\boot.ini', '/']) {
      assertIllegal(name, /path separator/)
    }
  })

  test('control characters U+0000–U+001F and U+007F', () => {
    for (const ch of ['\u0000', '\u0001', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f']) {
      assertIllegal(`a${ch}b.docx`, /control character/)
    }
  })

  test('characters Windows forbids', () => {
    for (const ch of ['<', '>', ':', '"', '|', '?', '*']) {
      assertIllegal(`a${ch}b.docx`, /one of the characters/)
    }
  })

  test('Windows device names, any case, any extension, superscript digits', () => {
    const names = [
      'CON',
      'con',
      'Con.docx',
      'PRN.txt',
      'aux',
      'NUL.tar.gz',
      'nul.',
      'COM1',
      'com9.xlsx',
      'LPT1',
      'lpt9.pdf',
      'COM¹',
      'com².docx',
      'LPT³.txt',
      'Aux .docx',
    ]
    for (const name of names) assertIllegal(name, /device name/)
  })

  test('leading space', () => {
    assertIllegal(' Report.docx', /starts with a space/)
    assertIllegal('  x', /starts with a space/)
  })

  test('trailing dot or space', () => {
    for (const name of ['Report.', 'Report.docx.', 'Report ', 'Report.docx ', 'a. .', '...']) {
      assertIllegal(name, /ends with a dot or a space/)
    }
  })

  test('more than 255 UTF-8 bytes', () => {
    assertIllegal('a'.repeat(256), /longer than 255 bytes/)
    assertIllegal(`${'я'.repeat(126)}.docx`, /longer than 255 bytes/) // 252 + 5 = 257
  })

  test('unpaired surrogates', () => {
    assertIllegal('a\ud800.docx', /surrogate/)
    assertIllegal('a\udc00.docx', /surrogate/)
    assertIllegal('\ude00\ud83d.docx', /surrogate/) // reversed pair
  })
})

describe('validateFileName: legal names', () => {
  test('plain and punctuated ASCII names', () => {
    for (const name of [
      'Report.docx',
      'a..b.docx',
      '..docx',
      '.bashrc',
      'noext',
      'a b c.txt',
      'x',
      '_',
      "it's (final) [v2] {draft} #1 & 50% = done; ok!@$^`~',+.docx",
      'CONSOLE.docx',
      'COM10.txt',
      'COM0',
      'LPT',
      'xCON.docx',
      'con-notes.txt',
      'A.CON.docx',
    ]) {
      assertLegal(name)
    }
  })

  test('Unicode: Cyrillic, CJK, emoji, combining marks', () => {
    for (const name of [
      'Новый документ.docx',
      '報告書.xlsx',
      '文件 2024.pptx',
      '😀 party 🎉.docx',
      'x\u0301q\u0307.txt',
      '\u00e9t\u00e9.txt',
      '👍🏽.pdf',
      'Ünïcödé.odt',
    ]) {
      assertLegal(name)
    }
  })

  test('exactly 255 UTF-8 bytes is legal, 256 is not, with multibyte characters', () => {
    const ascii255 = 'a'.repeat(255)
    assert.equal(bytes(ascii255), 255)
    assertLegal(ascii255)

    const cyr = `${'я'.repeat(125)}.docx` // 250 + 5
    assert.equal(bytes(cyr), 255)
    assertLegal(cyr)
    assertIllegal(`a${cyr}`, /longer than/)

    const cjk = `${'文'.repeat(84)}abc` // 252 + 3
    assert.equal(bytes(cjk), 255)
    assertLegal(cjk)
    assertIllegal(`${cjk}d`, /longer than/)

    const emoji = `${'😀'.repeat(63)}abc` // 252 + 3; 129 UTF-16 units
    assert.equal(bytes(emoji), 255)
    assertLegal(emoji)
    assertIllegal(`${'😀'.repeat(64)}`, /longer than/) // 256
  })

  test('MAX_FILE_NAME_BYTES is 255', () => assert.equal(MAX_FILE_NAME_BYTES, 255))
})

describe('sanitizeFileName', () => {
  test('returns a legal name unchanged', () => {
    for (const name of ['Report.docx', 'Новый документ.docx', '.bashrc', 'a..b.docx', '😀.txt']) {
      assert.equal(sanitizeFileName(name), name)
    }
  })

  test('replaces forbidden characters and separators with _', () => {
    assert.equal(sanitizeFileName('a/b\\c.docx'), 'a_b_c.docx')
    assert.equal(sanitizeFileName('what? <yes>: "no" | *.docx'), 'what_ _yes__ _no_ _ _.docx')
    assert.equal(sanitizeFileName('../../etc/passwd'), '.._.._etc_passwd')
  })

  test('removes control characters', () => {
    assert.equal(sanitizeFileName('a\u0000b\tc\n\u007f.docx'), 'abc.docx')
  })

  test('replaces unpaired surrogates with _', () => {
    assert.equal(sanitizeFileName('a\ud800b.docx'), 'a_b.docx')
  })

  test('drops leading spaces and trailing dots and spaces', () => {
    assert.equal(sanitizeFileName('  Report.docx . '), 'Report.docx')
    assert.equal(sanitizeFileName('Report...'), 'Report')
  })

  test('prefixes device names with _', () => {
    assert.equal(sanitizeFileName('CON'), '_CON')
    assert.equal(sanitizeFileName('nul.docx'), '_nul.docx')
    assert.equal(sanitizeFileName('COM¹.txt'), '_COM¹.txt')
    assert.equal(sanitizeFileName('Aux .docx'), '_Aux .docx')
    assert.equal(sanitizeFileName('CON.'), '_CON') // trailing dot goes first
  })

  test('undefined when nothing usable remains', () => {
    for (const name of ['', '.', '..', '...', '   ', ' . . ', '\u0000\u0001', '\t. ']) {
      assert.equal(sanitizeFileName(name), undefined, JSON.stringify(name))
    }
  })

  test('truncates to 255 bytes keeping the extension', () => {
    const long = `${'a'.repeat(300)}.docx`
    const result = sanitizeFileName(long)
    assert.equal(result, `${'a'.repeat(250)}.docx`)
  })

  test('truncation never splits a code point', () => {
    // 'я' is 2 bytes: 250 bytes of base leave room for 125 of them exactly
    assert.equal(sanitizeFileName(`${'я'.repeat(200)}.docx`), `${'я'.repeat(125)}.docx`)
    // '文' is 3 bytes: 250 / 3 -> 83 characters (249 bytes)
    assert.equal(sanitizeFileName(`${'文'.repeat(100)}.docx`), `${'文'.repeat(83)}.docx`)
    // '😀' is 4 bytes (2 UTF-16 units): 250 / 4 -> 62 characters
    assert.equal(sanitizeFileName(`${'😀'.repeat(100)}.docx`), `${'😀'.repeat(62)}.docx`)
  })

  test('an extension too long to keep is cut with the rest', () => {
    const result = sanitizeFileName(`a.${'b'.repeat(300)}`)
    assert.equal(result, `a.${'b'.repeat(253)}`)
  })

  test('a cut that would end in a dot or space is trimmed', () => {
    const result = sanitizeFileName(`${'a'.repeat(254)} ${'b'.repeat(10)}`)
    assert.equal(result, 'a'.repeat(254))
  })

  test('a cut that would leave a device name is prefixed', () => {
    const ext = `.${'x'.repeat(251)}` // 252 bytes, room for 3 bytes of base
    const result = sanitizeFileName(`CONSOLE${ext}`)
    assert.ok(result !== undefined)
    assertLegal(result)
    assert.ok(result.startsWith('_CO'), result)
  })

  test('outputs always validate (random inputs, seed 255)', () => {
    let state = 255
    const random = (): number => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0
      return state / 4294967296
    }
    const alphabet = Array.from(
      'aZ9 ._-/\\<>:"|?*\u0000\u001f\u007fяЖ文😀\ud800\udc00CONULPT1¹e\u0301\u202e\u200b\u2066\ufeff',
    )
    for (let n = 0; n < 3000; n++) {
      let name = ''
      const length = Math.floor(random() * (n % 10 === 0 ? 400 : 20))
      for (let k = 0; k < length; k++) {
        name += alphabet[Math.floor(random() * alphabet.length)] ?? ''
      }
      const result = sanitizeFileName(name)
      if (result !== undefined) {
        assertLegal(result)
        assert.equal(sanitizeFileName(result), result, 'sanitizing twice changes nothing')
      }
    }
  })
})

describe('splitExtension and extensionOf', () => {
  const cases: Array<[string, string, string]> = [
    ['Report.docx', 'Report', '.docx'],
    ['.bashrc', '.bashrc', ''],
    ['archive.tar.gz', 'archive.tar', '.gz'],
    ['noext', 'noext', ''],
    ['.config.json', '.config', '.json'],
    ['..docx', '.', '.docx'],
    ['name.', 'name.', ''],
    ['Новый документ.DOCX', 'Новый документ', '.DOCX'],
    ['', '', ''],
  ]
  for (const [name, base, extension] of cases) {
    test(`${JSON.stringify(name)} -> ${JSON.stringify(base)} + ${JSON.stringify(extension)}`, () =>
      assert.deepEqual(splitExtension(name), { base, extension }))
  }

  test('extensionOf is lower case without the dot', () => {
    assert.equal(extensionOf('Report.DOCX'), 'docx')
    assert.equal(extensionOf('archive.tar.GZ'), 'gz')
    assert.equal(extensionOf('.bashrc'), '')
    assert.equal(extensionOf('noext'), '')
  })
})

describe('resolveSuggestedTarget', () => {
  test('an extension replaces the original extension', () => {
    assert.equal(resolveSuggestedTarget('Report.docx', '.pdf'), 'Report.pdf')
    assert.equal(resolveSuggestedTarget('archive.tar.gz', '.zip'), 'archive.tar.zip')
    assert.equal(resolveSuggestedTarget('noext', '.docx'), 'noext.docx')
    assert.equal(resolveSuggestedTarget('Новый документ.doc', '.docx'), 'Новый документ.docx')
  })

  test('a full name is used as it is', () => {
    assert.equal(resolveSuggestedTarget('Report.docx', 'Copy of Report.docx'), 'Copy of Report.docx')
    assert.equal(resolveSuggestedTarget('Report.docx', 'a+b c~.docx'), 'a+b c~.docx')
  })
})

describe('withConflictSuffix', () => {
  test('adds (n) before the extension', () => {
    assert.equal(withConflictSuffix('Report.docx', 2), 'Report (2).docx')
    assert.equal(withConflictSuffix('noext', 2), 'noext (2)')
    assert.equal(withConflictSuffix('.bashrc', 3), '.bashrc (3)')
    assert.equal(withConflictSuffix('archive.tar.gz', 2), 'archive.tar (2).gz')
    assert.equal(withConflictSuffix('Новый документ.docx', 10), 'Новый документ (10).docx')
  })

  test('replaces an existing (k) instead of stacking', () => {
    assert.equal(withConflictSuffix('Report (2).docx', 3), 'Report (3).docx')
    assert.equal(withConflictSuffix('Report (99).docx', 100), 'Report (100).docx')
    assert.equal(withConflictSuffix('Report (2)', 5), 'Report (5)')
  })

  test('only a space-separated (k) at the end of the base counts as a suffix', () => {
    assert.equal(withConflictSuffix('Report(2).docx', 3), 'Report(2) (3).docx')
    assert.equal(withConflictSuffix('Report (2) final.docx', 3), 'Report (2) final (3).docx')
    assert.equal(withConflictSuffix('Report (x).docx', 3), 'Report (x) (3).docx')
  })

  test('shortens the base to stay within 255 bytes', () => {
    const name = `${'a'.repeat(250)}.docx`
    const result = withConflictSuffix(name, 2)
    assert.equal(result, `${'a'.repeat(246)} (2).docx`)
    assert.equal(bytes(result), 255)
  })

  test('shortening never splits a code point', () => {
    const name = `${'я'.repeat(125)}.docx` // 255 bytes
    const result = withConflictSuffix(name, 7)
    assert.equal(result, `${'я'.repeat(123)} (7).docx`) // 246 + 4 + 5
    assertLegal(result)
    const emoji = withConflictSuffix(`${'😀'.repeat(62)}.docx`, 1000)
    assert.equal(emoji, `${'😀'.repeat(60)} (1000).docx`) // 240 + 7 + 5
    assertLegal(emoji)
  })

  test('an extension that leaves no room moves the suffix to the end', () => {
    const name = `a.${'b'.repeat(253)}`
    const result = withConflictSuffix(name, 2)
    assert.equal(result, `a.${'b'.repeat(249)} (2)`)
    assertLegal(result)
  })

  test('rejects a non-positive or fractional n', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => withConflictSuffix('a.docx', n),
        (error: unknown) => error instanceof DomainError && error.code === 'INVALID_INPUT',
      )
    }
  })
})

describe('candidateNames', () => {
  test('yields the sanitized name, then (2), (3), …', () => {
    const names = [...candidateNames('a/b.docx', 4)]
    assert.deepEqual(names, ['a_b.docx', 'a_b (2).docx', 'a_b (3).docx', 'a_b (4).docx'])
  })

  test('defaults to 1000 distinct names', () => {
    const names = [...candidateNames('Report.docx')]
    assert.equal(names.length, 1000)
    assert.equal(new Set(names).size, 1000)
    assert.equal(names[999], 'Report (1000).docx')
  })

  test('a name that already has (k) does not yield it twice', () => {
    const names = [...candidateNames('Report (2).docx', 3)]
    assert.deepEqual(names, ['Report (2).docx', 'Report (3).docx', 'Report (4).docx'])
  })

  test('yields nothing for a name that cannot be sanitized', () => {
    assert.deepEqual([...candidateNames(' .. ')], [])
  })

  test('is lazy: the caller can stop at the first free name', () => {
    const taken = new Set(['Report.docx', 'Report (2).docx'])
    let chosen: string | undefined
    for (const candidate of candidateNames('Report.docx')) {
      if (!taken.has(candidate)) {
        chosen = candidate
        break
      }
    }
    assert.equal(chosen, 'Report (3).docx')
  })

  test('every candidate of a long multibyte name is legal and distinct', () => {
    const names = [...candidateNames(`${'😀'.repeat(70)}.docx`, 200)]
    assert.equal(names.length, 200)
    assert.equal(new Set(names).size, 200)
    for (const name of names) {
      assertLegal(name)
      assert.ok(name.endsWith('.docx'), name)
    }
  })
})

describe('look-alike names', () => {
  test('finding 8: a name not in NFC is refused; normalizeFileName and the sanitizer compose it', () => {
    const nfd = 'cafe\u0301.docx'
    const nfc = 'caf\u00e9.docx'
    assertIllegal(nfd, /NFC/)
    assertLegal(nfc)
    assert.equal(normalizeFileName(nfd), nfc)
    assert.equal(sanitizeFileName(nfd), nfc)
    assert.equal(sanitizeFileName('cafe\u200b\u0301.docx'), nfc, 'composed after removing')
  })

  test('finding 8: bidirectional controls are refused, and removed by the sanitizer', () => {
    for (const ch of [
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200e',
      '\u200f',
      '\u061c',
    ]) {
      assertIllegal(`invoice${ch}cod.exe`, /bidirectional/)
      assert.equal(sanitizeFileName(`invoice${ch}cod.exe`), 'invoicecod.exe')
    }
  })

  test('finding 8: zero-width and other invisible format characters are refused, and removed', () => {
    for (const ch of ['\u200b', '\u200c', '\u200d', '\u2060', '\u2061', '\u2064', '\ufeff', '\u00ad', '\u180e']) {
      assertIllegal(`Re${ch}port.docx`, /invisible/)
      assert.equal(sanitizeFileName(`Re${ch}port.docx`), 'Report.docx')
    }
    assert.equal(sanitizeFileName('\u200b\u202e'), undefined, 'nothing visible is left')
    assert.equal([...candidateNames('\u202e.docx')][0], '.docx')
  })
})
