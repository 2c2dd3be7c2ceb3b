import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { isSaveRecorded, saveIdentity } from './editor-saves.js'

const URL_1 = 'http://ds/cache/files/data/k_12/output.docx/output.docx?md5=a&expires=1&filename=output.docx'
const URL_1_RETRY = 'http://ds/cache/files/data/k_12/output.docx/output.docx?md5=b&expires=2&filename=output.docx'
const URL_2 = 'http://ds/cache/files/data/k_99/output.docx/output.docx?md5=c&expires=3&filename=output.docx'

describe('saveIdentity', () => {
  test('a retry with a freshly signed url is the same save', () => {
    const first = saveIdentity({ status: 2, key: 'f.1', lastsave: '2024-01-01T00:00:00.000Z', url: URL_1 })
    const retry = saveIdentity({ status: 2, key: 'f.1', lastsave: '2024-01-01T00:00:00.000Z', url: URL_1_RETRY })
    assert.equal(first, retry)
  })

  test('status, key and lastsave each tell saves apart', () => {
    const base = { status: 6, key: 'f.1', lastsave: '2024-01-01T00:00:00.000Z', url: URL_1 }
    const ids = new Set([
      saveIdentity(base),
      saveIdentity({ ...base, status: 2 }),
      saveIdentity({ ...base, key: 'f.2' }),
      saveIdentity({ ...base, lastsave: '2024-01-01T00:00:05.000Z' }),
    ])
    assert.equal(ids.size, 4)
  })

  test('without lastsave the url path (not its query) identifies the save', () => {
    const a = saveIdentity({ status: 2, key: 'f.1', url: URL_1 })
    assert.equal(a, saveIdentity({ status: 2, key: 'f.1', url: URL_1_RETRY }))
    assert.notEqual(a, saveIdentity({ status: 2, key: 'f.1', url: URL_2 }))
  })
})

describe('isSaveRecorded', () => {
  const versions = [
    { version: 1, meta: {} },
    { version: 2, meta: { saveId: 'x' } },
    { version: 3, meta: { saveId: 'y' } },
  ]

  test('finds a save recorded after the session started', () => {
    assert.equal(isSaveRecorded(versions, 'y', 1), true)
    assert.equal(isSaveRecorded(versions, 'z', 1), false)
  })

  test('ignores versions from before the session key was minted', () => {
    assert.equal(isSaveRecorded(versions, 'x', 2), false)
    assert.equal(isSaveRecorded(versions, 'y', 2), true)
  })
})
