import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import { ERROR_PAGE_CONTENT_SECURITY_POLICY, PROBLEM_PAGES, renderProblemPage, wantsPage } from './error-page.js'

describe('the browser error page', () => {
  test('says what happened in plain words, with a way back and the links given, escaped', () => {
    const html = renderProblemPage('NOT_FOUND', [{ href: '/x?a=1&b="2"', label: 'Download <it>' }])
    assert.match(html, /<h1>This document is not here<\/h1>/)
    assert.match(html, /<a href="\/">Back to your documents<\/a>/)
    assert.match(html, /<a href="\/x\?a=1&amp;b=&quot;2&quot;">Download &lt;it&gt;<\/a>/)
  })

  test('no page tells a person about settings or environment variables', () => {
    for (const page of Object.values(PROBLEM_PAGES)) {
      assert.doesNotMatch(`${page?.title} ${page?.message}`, /FOLIO_|environment|variable|config/i)
    }
  })

  test('the inline style is allowed by its hash and nothing else is', () => {
    const html = renderProblemPage('UNKNOWN_PATH')
    const style = /<style>([\s\S]*)<\/style>/.exec(html)?.[1] ?? ''
    const hash = createHash('sha256').update(style).digest('base64')
    assert.ok(ERROR_PAGE_CONTENT_SECURITY_POLICY.includes(`'sha256-${hash}'`))
    assert.match(ERROR_PAGE_CONTENT_SECURITY_POLICY, /default-src 'none'/)
    assert.doesNotMatch(html, /<script/)
  })

  test('pages go to browsers asking for HTML with GET or HEAD only', () => {
    assert.equal(wantsPage('GET', 'text/html,application/xhtml+xml,*/*;q=0.8'), true)
    assert.equal(wantsPage('HEAD', 'text/html'), true)
    assert.equal(wantsPage('GET', 'application/json'), false)
    assert.equal(wantsPage('GET', undefined), false)
    assert.equal(wantsPage('POST', 'text/html'), false)
  })
})

describe('the browser error page in other languages', () => {
  test("speaks the language it is given, <html lang> too, and English's status", () => {
    const html = renderProblemPage('NOT_FOUND', [], 'de')
    assert.match(html, /<html lang="de">/)
    assert.match(html, /<h1>Dieses Dokument ist nicht hier<\/h1>/)
    assert.match(html, /<a href="\/">Zurück zu Ihren Dokumenten<\/a>/)
    assert.match(
      renderProblemPage('NO_EDITOR', [{ href: '/versions/1', text: 'page.versions' }], 'fr'),
      /<a href="\/versions\/1">Ses versions<\/a>/,
    )
    assert.match(renderProblemPage('UNKNOWN_PATH', [], 'es'), /<h1>Aquí no hay ninguna página<\/h1>/)
    assert.match(renderProblemPage('NOT_A_PROBLEM' as never, [], 'fr'), /<h1>Un problème s&#39;est produit<\/h1>/)
  })
})
