import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { de } from './de.js'
import { en, type PageText } from './en.js'
import { es } from './es.js'
import { fr } from './fr.js'
import { pageDate, pageLanguage, pageSize, pageText } from './index.js'

const placeholders = (text: PageText): string[] =>
  (typeof text === 'string' ? [text] : Object.values(text))
    .flatMap((part) => [...(part ?? '').matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? ''))
    .filter((name, i, all) => all.indexOf(name) === i)
    .sort()

describe('the texts of the server-rendered pages', () => {
  test('every language has exactly the English keys, with the same placeholders, none left empty', () => {
    for (const [name, catalog] of Object.entries({ de, fr, es })) {
      assert.deepEqual(Object.keys(catalog).sort(), Object.keys(en).sort(), name)
      for (const [key, text] of Object.entries(catalog)) {
        const english = en[key as keyof typeof en]
        assert.deepEqual(placeholders(text), placeholders(english), `${name} ${key}`)
        assert.equal(typeof text, typeof english, `${name} ${key}: plural where English has one`)
        for (const part of typeof text === 'string' ? [text] : Object.values(text))
          assert.notEqual(part?.trim(), '', `${name} ${key}`)
      }
    }
  })

  test('Accept-Language is honoured by q-value; a language Folio does not speak, or none, is English', () => {
    const locale = (header: string | undefined) => pageLanguage(header).locale
    assert.equal(locale('de-DE,de;q=0.9'), 'de')
    assert.equal(pageLanguage('de-DE,de;q=0.9').tag, 'de-DE')
    assert.equal(locale('fr;q=0.5, es;q=0.8'), 'es')
    assert.equal(locale('ja, fr;q=0.1'), 'fr')
    assert.equal(locale('FR-ca'), 'fr')
    assert.equal(locale('de;q=0, es;q=0.2'), 'es')
    assert.equal(locale('ja'), 'en')
    assert.equal(locale('*'), 'en')
    assert.equal(locale(''), 'en')
    assert.equal(locale(undefined), 'en')
    assert.equal(locale('de;q=abc'), 'de', 'a bad q is read as 1')
    assert.equal(locale('x-'.repeat(5000)), 'en')
  })

  test('sizes, counts and dates are written per language, dates in UTC', () => {
    const de = pageLanguage('de')
    assert.equal(pageSize(de, 12_800), '12,5 kB')
    assert.match(pageSize(pageLanguage('fr'), 12_800), /^12,5\sko$/, 'French writes ko, a narrow space before it')
    assert.equal(pageSize(pageLanguage('en'), 5), '5 bytes')
    assert.equal(pageSize(pageLanguage('en'), 1), '1 byte')
    assert.equal(pageText('de', 'link.files', { count: 1 }), '1 Datei')
    assert.equal(pageText('de', 'link.files', { count: 2000 }), '2.000 Dateien')
    const moment = Date.UTC(2026, 10, 28, 14, 5)
    assert.equal(pageDate(de, moment), '28. Nov. 2026, 14:05 UTC')
    assert.equal(pageDate(pageLanguage('en'), moment), 'Nov 28, 2026, 2:05 PM UTC')
    assert.match(pageDate(pageLanguage('es'), moment), /^28 nov 2026, 14:05 UTC$/)
  })
})
