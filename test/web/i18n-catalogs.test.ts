import assert from 'node:assert/strict'
import { test } from 'node:test'
import { de } from '../../web/src/i18n/de.js'
import { en, type Catalog } from '../../web/src/i18n/en.js'
import { es } from '../../web/src/i18n/es.js'
import { fr } from '../../web/src/i18n/fr.js'
import { browserLocale } from '../../web/src/i18n/index.js'
import { fill, pick, placeholdersOf, LOCALES, type Locale } from '../../web/src/i18n/messages.js'

// Every language of the interface, as the loader in web/src/i18n/index.ts knows them.
const CATALOGS: Record<Exclude<Locale, 'en'>, Catalog> = { de, fr, es }

test('the interface has a catalog for every language it offers', () => {
  assert.deepEqual(Object.keys(CATALOGS).sort(), LOCALES.filter((locale) => locale !== 'en').sort())
})

for (const [locale, catalog] of Object.entries(CATALOGS)) {
  test(`${locale}: exactly the English keys (a new English string needs its ${locale} text)`, () => {
    const english = Object.keys(en)
    const missing = english.filter((key) => !(key in catalog))
    const extra = Object.keys(catalog).filter((key) => !(key in en))
    assert.deepEqual(missing, [], `${locale}.ts lacks ${missing.join(', ')}`)
    assert.deepEqual(extra, [], `${locale}.ts has keys English does not: ${extra.join(', ')}`)
  })

  test(`${locale}: every text has the placeholders of its English text, and plurals stay plurals`, () => {
    for (const [key, message] of Object.entries(en)) {
      const translated = catalog[key as keyof typeof en]
      assert.deepEqual(placeholdersOf(translated), placeholdersOf(message), `placeholders of ${locale} ${key}`)
      assert.equal(typeof translated, typeof message, `${locale} ${key} is plural exactly when English is`)
      if (typeof translated !== 'string') {
        assert.ok(translated.other, `${locale} ${key} has an "other" form`)
        // Each form the language's plural rules pick for small counts is written out.
        for (const count of [0, 1, 2, 5]) {
          const category = new Intl.PluralRules(locale).select(count)
          assert.ok(category === 'other' || category in translated, `${locale} ${key} lacks its "${category}" form`)
        }
      }
      assert.notEqual(pick(translated, locale, 2).trim(), '', `${locale} ${key} is not empty`)
    }
  })
}

test('English plurals have "one" and "other", and placeholders are filled in the language\'s number format', () => {
  for (const [key, message] of Object.entries(en)) {
    if (typeof message !== 'string') assert.ok(message.one && message.other, key)
  }
  assert.equal(fill(pick(en['items.count'], 'en', 1), { count: 1 }, 'en'), '1 item')
  assert.equal(fill(pick(en['items.count'], 'en', 1200), { count: 1200 }, 'en'), '1,200 items')
  assert.equal(fill(pick(de['items.count'], 'de', 1200), { count: 1200 }, 'de'), '1.200 Elemente')
  assert.equal(fill(pick(fr['items.count'], 'fr', 0), { count: 0 }, 'fr'), '0 élément')
})

test("the language comes from the first of the browser's languages Folio speaks", () => {
  assert.equal(browserLocale(['de-DE', 'en-US']), 'de')
  assert.equal(browserLocale(['pt-BR', 'fr-CA', 'de']), 'fr')
  assert.equal(browserLocale(['es-419']), 'es')
  assert.equal(browserLocale(['ja', 'zh-CN']), 'en')
  assert.equal(browserLocale([]), 'en')
})
