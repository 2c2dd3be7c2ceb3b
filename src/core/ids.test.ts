import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isWellFormedId, newId } from './ids.js'

test('new ids are well formed, distinct and never start with "-" (it would read as a CLI option)', () => {
  const ids = new Set<string>()
  // With one id in 64 starting with '-' before, 5,000 ids all but surely include such a draw.
  for (let i = 0; i < 5000; i++) {
    const id = newId()
    assert.ok(isWellFormedId(id), id)
    assert.equal(id.length, 22)
    assert.notEqual(id[0], '-', id)
    ids.add(id)
  }
  assert.equal(ids.size, 5000)
})
