import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { newId } from '../ids.js'
import { documentKey, parseDocumentKey } from './document-key.js'

// ONLYOFFICE Docs accepts a document.key of at most 128 characters of [0-9A-Za-z._=-].
const DOCS_KEY = /^[0-9A-Za-z._=-]{1,128}$/

describe('documentKey', () => {
  test('fits the Docs alphabet and length for any id Folio issues', () => {
    for (let i = 0; i < 200; i++) {
      const key = documentKey(newId(), Number.MAX_SAFE_INTEGER)
      assert.match(key, DOCS_KEY)
    }
    assert.match(documentKey('A'.repeat(64), 999_999_999_999_999), DOCS_KEY)
  })

  test('is the same for the same version and differs when the key version moves', () => {
    const id = newId()
    assert.equal(documentKey(id, 3), documentKey(id, 3))
    assert.notEqual(documentKey(id, 3), documentKey(id, 4))
    assert.notEqual(documentKey(id, 3), documentKey(newId(), 3))
  })

  test('parses back into file id and key version', () => {
    const id = newId()
    assert.deepEqual(parseDocumentKey(documentKey(id, 12)), { fileId: id, keyVersion: 12 })
  })

  test('parseDocumentKey refuses keys Folio did not issue', () => {
    for (const key of ['', 'abc', `${newId()}`, `${newId()}.x`, `short.1`, `${newId()}.1.2`, '../x.1']) {
      assert.equal(parseDocumentKey(key), undefined, key)
    }
  })
})
