import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createSmallBlobCache } from './small-blob-cache.js'

describe('small blob cache', () => {
  const bytes = (n: number) => Buffer.alloc(n, 1)

  test('drops the least recently used blob once over its total', () => {
    const cache = createSmallBlobCache({ maxBlobBytes: 10, maxTotalBytes: 25 })
    cache.set('a', bytes(10))
    cache.set('b', bytes(10))
    assert.ok(cache.get('a'))
    cache.set('c', bytes(10))
    assert.equal(cache.get('b'), undefined)
    assert.ok(cache.get('a'))
    assert.ok(cache.get('c'))
  })

  test('keeps nothing over the per-blob limit, and forgets a deleted key', () => {
    const cache = createSmallBlobCache({ maxBlobBytes: 10, maxTotalBytes: 100 })
    cache.set('big', bytes(11))
    assert.equal(cache.get('big'), undefined)
    cache.set('x', bytes(5))
    cache.delete('x')
    assert.equal(cache.get('x'), undefined)
  })

  test('a total of 0 keeps nothing', () => {
    const cache = createSmallBlobCache({ maxBlobBytes: 10, maxTotalBytes: 0 })
    cache.set('a', bytes(1))
    assert.equal(cache.get('a'), undefined)
  })
})
