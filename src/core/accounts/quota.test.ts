import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isDomainError, type ErrorCode } from '../errors.js'
import { assertWithinQuota, checkedLimit, formatBytes, parseByteSize } from './quota.js'

const isCode = (code: ErrorCode) => (error: unknown) => isDomainError(error) && error.code === code

test('parseByteSize reads bytes, decimal and binary units, and none', () => {
  assert.equal(parseByteSize('1048576'), 1048576)
  assert.equal(parseByteSize('500MiB'), 500 * 1024 * 1024)
  assert.equal(parseByteSize('2GB'), 2_000_000_000)
  assert.equal(parseByteSize('1.5 gib'), 1.5 * 2 ** 30)
  assert.equal(parseByteSize(' 10 kb '), 10_000)
  assert.equal(parseByteSize('0'), 0)
  assert.equal(parseByteSize('none'), undefined)
  assert.equal(parseByteSize('NONE'), undefined)
  assert.equal(parseByteSize('-1'), undefined)
  for (const bad of ['', 'lots', '5 parsecs', '-5MB', '1e9', 'MB']) {
    assert.throws(() => parseByteSize(bad), isCode('INVALID_INPUT'), bad)
  }
})

test('checkedLimit: -1 is none, whole bytes from 0 up, nothing else', () => {
  assert.equal(checkedLimit(-1), undefined)
  assert.equal(checkedLimit(0), 0)
  assert.equal(checkedLimit(1234), 1234)
  for (const bad of [-2, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) {
    assert.throws(() => checkedLimit(bad), isCode('INVALID_INPUT'), String(bad))
  }
})

test('formatBytes in powers of 1024', () => {
  assert.equal(formatBytes(0), '0 B')
  assert.equal(formatBytes(1023), '1023 B')
  assert.equal(formatBytes(1536), '1.5 KiB')
  assert.equal(formatBytes(500 * 2 ** 20), '500 MiB')
  assert.equal(formatBytes(2 * 2 ** 30), '2 GiB')
})

test('assertWithinQuota: up to the limit passes, one byte past it is QUOTA_EXCEEDED with the figures', () => {
  assertWithinQuota({ usedSpace: 10_000, quotaLimit: undefined }, 10 ** 12)
  assertWithinQuota({ usedSpace: 900, quotaLimit: 1000 }, 100)
  assert.throws(
    () => assertWithinQuota({ usedSpace: 900, quotaLimit: 1000 }, 101),
    (error: unknown) => isCode('QUOTA_EXCEEDED')(error) && /900 B of 1000 B used/.test(String(error)),
  )
  // What older versions dropped in the same change free counts.
  assertWithinQuota({ usedSpace: 900, quotaLimit: 1000 }, 300, 200)
  assert.throws(() => assertWithinQuota({ usedSpace: 900, quotaLimit: 1000 }, 301, 200), isCode('QUOTA_EXCEEDED'))
  // Over the limit already (it was lowered): a write that frees as much as it adds passes.
  assertWithinQuota({ usedSpace: 5000, quotaLimit: 1000 }, 100, 100)
  assert.throws(() => assertWithinQuota({ usedSpace: 5000, quotaLimit: 0 }, 1), isCode('QUOTA_EXCEEDED'))
})
