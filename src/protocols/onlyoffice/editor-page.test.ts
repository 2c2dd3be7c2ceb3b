import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { buildEditorConfig } from './editor-config.js'
import { apiScriptUrl, editorPageContentSecurityPolicy, renderEditorPage, scriptJson } from './editor-page.js'
import { docsSettingWarnings } from './services.js'

describe('editor page', () => {
  test('scriptJson cannot close the script element', () => {
    const text = scriptJson({ title: '</script><script>alert(1)</script>\u2028' })
    assert.ok(!text.includes('</script'))
    assert.ok(!text.includes('\u2028'))
    assert.deepEqual(JSON.parse(text), { title: '</script><script>alert(1)</script>\u2028' })
  })

  test('api.js is loaded from the Docs address, with or without a trailing slash', () => {
    const expected = 'https://docs.example.com/web-apps/apps/api/documents/api.js'
    assert.equal(apiScriptUrl('https://docs.example.com'), expected)
    assert.equal(apiScriptUrl('https://docs.example.com/'), expected)
  })

  test('the page embeds the config and names its scripts in the CSP by nonce', () => {
    const config = buildEditorConfig({
      file: { id: 'AbCdEfGhIjKlMnOpQrStUv', title: 'a.docx', keyVersion: 1 },
      user: { id: 'u', name: 'U' },
      requestedMode: 'edit',
      access: 'owner',
      downloadUrl: 'http://f/d',
      callbackUrl: 'http://f/c',
      lang: 'en',
    })
    const html = renderEditorPage({
      docsUrl: 'https://docs.example.com',
      apiBase: '/api/2.0',
      fileId: 'AbCdEfGhIjKlMnOpQrStUv',
      title: 'a.docx',
      config,
      nonce: 'n0nce',
    })
    assert.ok(html.includes('<script src="https://docs.example.com/web-apps/apps/api/documents/api.js">'))
    assert.ok(html.includes('<script nonce="n0nce">'))
    assert.ok(html.includes(scriptJson(config).slice(1, -1)))
    const csp = editorPageContentSecurityPolicy('https://docs.example.com/', 'n0nce')
    assert.match(csp, /script-src 'nonce-n0nce' https:\/\/docs\.example\.com;/)
    assert.match(csp, /frame-src https:\/\/docs\.example\.com;/)
  })
})

describe('docsSettingWarnings', () => {
  const docs = { url: 'http://d', internalUrl: 'http://d', jwtHeader: 'Authorization' }

  test('warns when Docs is set up without a JWT secret, and only then', () => {
    assert.equal(docsSettingWarnings({ ...docs, jwtSecret: undefined }).length, 1)
    assert.match(docsSettingWarnings({ ...docs, jwtSecret: undefined })[0] ?? '', /FOLIO_DOCS_JWT_SECRET/)
    assert.deepEqual(docsSettingWarnings({ ...docs, jwtSecret: 's' }), [])
  })
})
