import assert from 'node:assert/strict'
import { test } from 'node:test'
import { indexTermsOf, namePiecesOf, queryTermsOf, snippetOf, titleHas, MAX_QUERY_TERMS } from './terms.js'

test('case and accents do not matter: café, Café, CAFE are one word', () => {
  assert.deepEqual(queryTermsOf('café'), ['cafe'])
  assert.deepEqual(queryTermsOf('CAFÉ'), ['cafe'])
  assert.equal(indexTermsOf('Le Café, crème brûlée!'), 'le cafe creme brulee')
})

test('query syntax of any search engine is only separators', () => {
  assert.deepEqual(queryTermsOf('"budget" OR NEAR(x*, y) -z ^a:b \\c'), [
    'budget',
    'or',
    'near',
    'x',
    'y',
    'z',
    'a',
    'b',
    'c',
  ])
  assert.deepEqual(queryTermsOf('\u0000\u0001 *** "" \'\' %_'), [])
  assert.deepEqual(queryTermsOf('a\uD800b'), ['a', 'b'])
})

test('a long query keeps its first words only', () => {
  const terms = queryTermsOf(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))
  assert.equal(terms.length, MAX_QUERY_TERMS)
  assert.equal(terms[0], 'w0')
  // 2 KB of one character: cut, one word of at most 64 characters.
  assert.deepEqual(queryTermsOf('x'.repeat(2048)), ['x'.repeat(64)])
})

test('name pieces keep punctuation but not controls', () => {
  assert.deepEqual(namePiecesOf('  Q3 report.DOCX \u0000 '), ['q3', 'report.docx'])
})

test('a snippet shows the words around the first match, cut at whole words', () => {
  const text = `${'alpha '.repeat(50)}the Café served crème brûlée ${'omega '.repeat(50)}`
  const snippet = snippetOf(text, ['cafe'])
  assert.ok(snippet !== undefined && snippet.includes('the Café served crème'), snippet)
  assert.ok(snippet.startsWith('…') && snippet.endsWith('…'))
  assert.ok(!/ lph|alph$/.test(snippet.slice(1, 6)))
  assert.equal(snippetOf('nothing here', ['cafe']), undefined)
  assert.equal(snippetOf('the budgetary plan', ['budg']), 'the budgetary plan')
})

test('a title holds the terms as the index matches them: whole words, the last a prefix', () => {
  assert.equal(titleHas('Café Plans 2024.docx', ['cafe', 'pla']), true)
  assert.equal(titleHas('Café Plans 2024.docx', ['caf', 'plans']), false)
  assert.equal(titleHas('Café Plans 2024.docx', ['2024']), true)
  assert.equal(titleHas('Café Plans 2024.docx', []), false)
})
