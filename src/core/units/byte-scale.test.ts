import assert from 'node:assert/strict'
import { test } from 'node:test'
import { scaleBytes } from './byte-scale.js'

test('scaleBytes steps by 1024 and stops at the last unit', () => {
  assert.deepEqual(scaleBytes(1023, 5), { value: 1023, unit: 0 })
  assert.deepEqual(scaleBytes(1536, 5), { value: 1.5, unit: 1 })
  assert.deepEqual(scaleBytes(3 * 1024 ** 3, 5), { value: 3, unit: 3 })
  assert.deepEqual(scaleBytes(2 * 1024 ** 5, 5), { value: 2048, unit: 4 })
})
