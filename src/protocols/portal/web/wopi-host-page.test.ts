import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { escapeHtml, renderWopiHostPage, resolveActionUrl } from './wopi-host-page.js'

const WOPI_SRC = 'https://folio.example/wopi/files/abc123'

describe('resolveActionUrl (discovery urlsrc placeholders)', () => {
  test('fills WOPI_SOURCE and UI_LLCC, drops placeholders Folio has no value for', () => {
    const urlsrc =
      'https://docs.example/hosting/wopi/word/edit?<rs=DC_LLCC&><dchat=DISABLE_CHAT&><ui=UI_LLCC&><wopisrc=WOPI_SOURCE&>&'
    const url = new URL(resolveActionUrl(urlsrc, WOPI_SRC, 'de-DE'))
    assert.equal(url.origin + url.pathname, 'https://docs.example/hosting/wopi/word/edit')
    assert.equal(url.searchParams.get('wopisrc'), WOPI_SRC)
    assert.equal(url.searchParams.get('ui'), 'de-DE')
    assert.equal(url.searchParams.get('rs'), 'de-DE')
    assert.equal(url.searchParams.has('dchat'), false)
    assert.doesNotMatch(url.href, /[<>]/)
  })

  test('an already resolved URL passes through unchanged', () => {
    const resolved = `https://docs.example/hosting/wopi/word/edit?wopisrc=${encodeURIComponent(WOPI_SRC)}`
    assert.equal(resolveActionUrl(resolved, WOPI_SRC, 'en-US'), resolved)
  })

  test('a URL without any WOPISrc gets one appended', () => {
    assert.equal(
      resolveActionUrl('https://client.example/edit', WOPI_SRC, 'en-US'),
      `https://client.example/edit?WOPISrc=${encodeURIComponent(WOPI_SRC)}`,
    )
    assert.equal(
      resolveActionUrl('https://client.example/edit?lang=fr', WOPI_SRC, 'en-US'),
      `https://client.example/edit?lang=fr&WOPISrc=${encodeURIComponent(WOPI_SRC)}`,
    )
  })
})

describe('WOPI host page', () => {
  const page = renderWopiHostPage({
    title: '<img src=x onerror=alert(1)>.docx',
    actionUrl: 'https://docs.example/edit?wopisrc=a&ui=en-US',
    accessToken: 'tok"en<',
    accessTokenTtl: 1_900_000_000_000,
  })

  test('posts access_token and access_token_ttl as form fields, into the editor frame', () => {
    assert.match(page, /<form id="office_form"[^>]* target="office_frame"[^>]* method="post"/)
    assert.match(page, /<input name="access_token" value="tok&quot;en&lt;" type="hidden">/)
    assert.match(page, /<input name="access_token_ttl" value="1900000000000" type="hidden">/)
    assert.match(page, /<iframe id="office_frame" name="office_frame"/)
    // The ampersand of the action URL is escaped in the attribute, not dropped.
    assert.match(page, /action="https:\/\/docs\.example\/edit\?wopisrc=a&amp;ui=en-US"/)
  })

  test('has no inline script (the CSP forbids it) and no token in any URL', () => {
    assert.doesNotMatch(page, /<script>(?!<\/script>)/)
    for (const [, src] of page.matchAll(/<script([^>]*)>/g)) assert.match(src ?? '', /src="\/ui\/wopi-host\.js"/)
    assert.doesNotMatch(page, /access_token=/)
  })

  test('the file name is text, never markup', () => {
    assert.doesNotMatch(page, /<img/)
    assert.match(page, /<title>&lt;img src=x onerror=alert\(1\)&gt;\.docx - Folio<\/title>/)
  })

  test('escapeHtml covers the five characters that matter', () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&</a>`),
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    )
  })
})
