import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { DomainError } from '../errors.js'
import { decodeUtf7, encodeUtf7 } from './utf7.js'

function assertInvalid(input: string, reason: RegExp, field?: string): DomainError {
  let caught: unknown
  try {
    decodeUtf7(input, field)
  } catch (error) {
    caught = error
  }
  assert.ok(caught instanceof DomainError, `expected DomainError for ${JSON.stringify(input)}`)
  assert.equal(caught.code, 'INVALID_INPUT')
  assert.match(caught.message, reason)
  return caught
}

const AT_END = /'\+' at the end/
const NOT_FOLLOWED = /followed by neither base64 nor '-'/
const PADDING = /non-zero padding bits/
const PARTIAL = /ends inside a code unit/
const HIGH = /unpaired high surrogate/
const LOW = /unpaired low surrogate/
const NON_ASCII = /non-ASCII/

describe('UTF-7 pairs sent by ONLYOFFICE Docs', () => {
  const pairs: Array<[string, string]> = [
    ['Новый документ.docx', '+BB0EPgQyBEsEOQAgBDQEPgQ6BEMEPAQ1BD0EQg-.docx'],
    ['a+b c~.docx', 'a+-b+ACA-c+AH4-.docx'],
  ]
  for (const [plain, encoded] of pairs) {
    test(`encodes ${plain}`, () => assert.equal(encodeUtf7(plain), encoded))
    test(`decodes ${encoded}`, () => assert.equal(decodeUtf7(encoded), plain))
  }
})

describe('encodeUtf7', () => {
  test('leaves Set D characters as they are', () => {
    const direct = "ABCxyz019'(),-./:?"
    assert.equal(encodeUtf7(direct), direct)
    assert.equal(encodeUtf7('Report-2024.docx'), 'Report-2024.docx')
  })

  test('encodes space, ~ and Set O characters instead of writing them directly', () => {
    assert.equal(encodeUtf7(' '), '+ACA-')
    assert.equal(encodeUtf7('~'), '+AH4-')
    assert.equal(encodeUtf7('!'), '+ACE-')
    assert.equal(encodeUtf7('_'), '+AF8-')
  })

  test('a lone + becomes +-, a + inside a longer run is base64', () => {
    assert.equal(encodeUtf7('+'), '+-')
    assert.equal(encodeUtf7('a+'), 'a+-')
    assert.equal(encodeUtf7('++'), '+ACsAKw-')
  })

  test('always closes a shifted sequence with -, even before another -', () => {
    assert.equal(encodeUtf7(' -'), '+ACA--')
  })

  test('encodes an emoji as its surrogate pair', () => {
    assert.equal(encodeUtf7('😀'), '+2D3eAA-')
  })

  test('empty string', () => assert.equal(encodeUtf7(''), ''))
})

describe('decodeUtf7', () => {
  test('plain ASCII without + is unchanged', () => {
    const ascii = 'Report (final) 2024_v2!~.docx'
    assert.equal(decodeUtf7(ascii), ascii)
    assert.equal(decodeUtf7(''), '')
  })

  test('+- is a plus sign, including at the end of the input', () => {
    assert.equal(decodeUtf7('+-'), '+')
    assert.equal(decodeUtf7('a+-'), 'a+')
    assert.equal(decodeUtf7('+-+-'), '++')
  })

  test('a shifted sequence may be ended by the end of the input', () => {
    assert.equal(decodeUtf7('a+ACA'), 'a ')
    assert.equal(decodeUtf7('+BB0EPgQyBEsEOQ'), 'Новый')
  })

  test('a shifted sequence ended by a non-base64 character keeps that character', () => {
    assert.equal(decodeUtf7('+ACA.docx'), ' .docx')
    assert.equal(decodeUtf7('+AGE!'), 'a!')
    assert.equal(decodeUtf7('+AGE '), 'a ')
  })

  test('only the first - after a shifted sequence is absorbed', () => {
    assert.equal(decodeUtf7('+ACA--x'), ' -x')
  })

  test('accepts the emoji encoding of other encoders (pair split over the sextets)', () => {
    assert.equal(decodeUtf7('+2D3eAA-'), '😀')
    assert.equal(decodeUtf7('+2D3eANg93gE-'), '😀😁')
  })

  test('rejects a + at the end of the input', () => {
    assertInvalid('+', AT_END)
    assertInvalid('name+', AT_END)
  })

  test('rejects + followed by neither base64 nor -', () => {
    assertInvalid('+!', NOT_FOLLOWED)
    assertInvalid('a+.docx', NOT_FOLLOWED)
    assertInvalid('+ ', NOT_FOLLOWED)
  })

  test('rejects leftover non-zero bits', () => {
    // 'a' is 0x0061 = +AGE; +AGF sets a bit in the 2 padding bits
    assertInvalid('+AGF-', PADDING)
    assertInvalid('+AGF', PADDING)
  })

  test('rejects a dangling byte or partial code unit', () => {
    assertInvalid('+AGEA-', PARTIAL) // 24 bits: one unit plus a dangling byte
    assertInvalid('+A-', PARTIAL) // 6 bits, not even one unit
    assertInvalid('+AG-', PARTIAL) // 12 bits
    assertInvalid('+AGEAYQA-', PARTIAL) // 42 bits: two units and 10 bits of a third
  })

  test('rejects unpaired surrogates', () => {
    assertInvalid('+2D0-', HIGH) // high surrogate alone
    assertInvalid('+3gA-', LOW) // low surrogate alone
    assertInvalid('+2D0AYQ-', HIGH) // high surrogate followed by 'a'
    assertInvalid('+2D3YPQ-', HIGH) // two high surrogates
    assertInvalid('+2D0-+3gA-', HIGH) // a pair split across two shifted sequences
    assertInvalid(encodeUtf7('\ud800a'), HIGH) // the encoder is total, the decoder is not
  })

  test('rejects non-ASCII input characters, inside and outside a shift', () => {
    assertInvalid('Новый.docx', NON_ASCII)
    assertInvalid('+AGEé', NON_ASCII)
    assertInvalid('+é', NON_ASCII)
    assertInvalid('ok😀', NON_ASCII)
  })

  test('the error names the field the caller passed', () => {
    const named = assertInvalid('+', AT_END, 'X-WOPI-SuggestedTarget')
    assert.equal(named.details.field, 'X-WOPI-SuggestedTarget')
    assert.equal(assertInvalid('+', AT_END).details.field, undefined)
  })
})

describe('round trip', () => {
  // mulberry32: a small deterministic PRNG so a failure is reproducible.
  function makeRandom(seed: number): () => number {
    let state = seed >>> 0
    return () => {
      state = (state + 0x6d2b79f5) >>> 0
      let t = state
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
  }

  const pools = [
    "abcXYZ0189'(),-./:?", // Set D
    ' +~!"#$%&*;<=>@[]^_`{|}\\\t\r\n', // everything ASCII that must be shifted
    'АБВабвЁё', // Cyrillic
    '文件報告書日本語', // CJK
    '😀👍🏽🧪', // astral: surrogate pairs
    '\u0000\u007f\u00e9\u00ff\u0100\uffff',
  ]

  test('decode(encode(s)) === s for 2000 random strings (seed 2152)', () => {
    const random = makeRandom(2152)
    const pick = (items: string[]): string => items[Math.floor(random() * items.length)] ?? ''
    for (let n = 0; n < 2000; n++) {
      const length = Math.floor(random() * 24)
      let s = ''
      for (let k = 0; k < length; k++) {
        const pool = pick(pools)
        s += pick(Array.from(pool))
      }
      const encoded = encodeUtf7(s)
      assert.match(encoded, /^[\x20-\x7e]*$/, `encoded form is printable ASCII for ${encoded}`)
      assert.equal(decodeUtf7(encoded), s, `round trip of ${JSON.stringify(s)} via ${encoded}`)
    }
  })
})
