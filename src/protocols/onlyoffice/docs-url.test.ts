import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { toInternalDocsUrl } from './docs-url.js'

const DOCS = { url: 'https://docs.example.com', internalUrl: 'http://onlyoffice:80' }
const LINK = 'https://docs.example.com/cache/files/data/k_1/output.docx/output.docx?md5=a&expires=1'

describe('toInternalDocsUrl', () => {
  test('a link under the public address is fetched from the internal one, query kept', () => {
    assert.equal(
      toInternalDocsUrl(LINK, DOCS),
      'http://onlyoffice/cache/files/data/k_1/output.docx/output.docx?md5=a&expires=1',
    )
  })

  test('a link already on the internal address is kept', () => {
    const internal = 'http://onlyoffice/cache/files/x?md5=a'
    assert.equal(toInternalDocsUrl(internal, DOCS), internal)
  })

  test("only Docs' file cache is fetched, never another path of the Docs server", () => {
    for (const link of [
      'https://docs.example.com/healthcheck',
      'https://docs.example.com/command?c=info',
      'https://docs.example.com/cache/other/x',
      'https://docs.example.com/cache/files',
      'https://docs.example.com/cache/files/../../healthcheck',
      'https://docs.example.com/cache/files/%2e%2e/%2e%2e/healthcheck',
      'https://docs.example.com/web-apps/apps/api/documents/api.js',
    ]) {
      assert.equal(toInternalDocsUrl(link, DOCS), undefined, link)
    }
  })

  test('path prefixes are honoured on both sides', () => {
    const docs = { url: 'https://example.com/docs', internalUrl: 'http://10.0.0.5:8080/ds-vpath/' }
    assert.equal(
      toInternalDocsUrl('https://example.com/docs/cache/files/x?y=1', docs),
      'http://10.0.0.5:8080/ds-vpath/cache/files/x?y=1',
    )
    assert.equal(toInternalDocsUrl('https://example.com/docs-evil/cache/x', docs), undefined)
    assert.equal(toInternalDocsUrl('https://example.com/other/x', docs), undefined)
  })

  test('anything else is refused', () => {
    for (const link of [
      'https://evil.example.com/cache/files/x',
      'http://docs.example.com/cache/files/x',
      'https://docs.example.com:8443/cache/files/x',
      'https://docs.example.com.evil.com/x',
      'https://docs.example.com@evil.com/x',
      'https://user:pass@docs.example.com/x',
      'file:///etc/passwd',
      'not a url',
      '',
    ]) {
      assert.equal(toInternalDocsUrl(link, DOCS), undefined, link)
    }
  })

  test('dot segments cannot climb out of a path prefix', () => {
    const docs = { url: 'https://example.com/docs', internalUrl: 'http://ds/base' }
    assert.equal(toInternalDocsUrl('https://example.com/docs/../admin', docs), undefined)
    assert.equal(toInternalDocsUrl('https://example.com/docs/%2e%2e/admin', docs), undefined)
  })
})
