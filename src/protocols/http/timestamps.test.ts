import assert from 'node:assert/strict'
import { test } from 'node:test'
import { httpDate } from './timestamps.js'

test('httpDate writes what Date.toUTCString writes, for a repeated instant and for a new one', () => {
  for (const ms of [0, 1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_999, 253_402_300_799_000, 0]) {
    assert.equal(httpDate(ms), new Date(ms).toUTCString())
  }
})
