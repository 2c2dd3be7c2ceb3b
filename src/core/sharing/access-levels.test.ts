import { test } from 'node:test'
import assert from 'node:assert/strict'
import { allows, editsInEditor, levelOfShare, shareOfLevel, userLevel } from './access-levels.js'

test('each FileShare number grants its level; Restrict and unknown numbers grant none', () => {
  assert.deepEqual([1, 2, 3, 5, 6, 7, 0, 4, 99].map(levelOfShare), [
    'readwrite',
    'read',
    'none',
    'review',
    'comment',
    'fillForms',
    'none',
    'none',
    'none',
  ])
  for (const n of [1, 2, 5, 6, 7]) assert.equal(shareOfLevel(levelOfShare(n)), n)
})

test('only the owner deletes, moves and shares; ReadWrite edits and renames; Read views', () => {
  for (const action of ['delete', 'move', 'share'] as const) {
    assert.equal(allows('owner', action), true)
    assert.equal(allows('readwrite', action), false)
  }
  assert.equal(allows('readwrite', 'edit'), true)
  assert.equal(allows('readwrite', 'rename'), true)
  assert.equal(allows('review', 'edit'), false)
  assert.equal(allows('review', 'comment'), true)
  assert.equal(allows('comment', 'review'), false)
  assert.equal(allows('fillForms', 'fillForms'), true)
  assert.equal(allows('read', 'download'), true)
  assert.equal(allows('read', 'comment'), false)
  assert.equal(allows('none', 'read'), false)
})

test('the most specific entry wins: the file over its folder, the nearest folder over others', () => {
  assert.equal(userLevel(true, [3]), 'owner')
  assert.equal(userLevel(false, []), 'none')
  assert.equal(userLevel(false, [undefined, 1, 2]), 'readwrite')
  assert.equal(userLevel(false, [2, 1]), 'read')
  assert.equal(userLevel(false, [3, 1]), 'none')
  assert.equal(userLevel(false, [undefined, undefined, 6]), 'comment')
})

test('the editor opens in edit mode for every level that changes something', () => {
  assert.deepEqual(
    (['owner', 'readwrite', 'review', 'comment', 'fillForms', 'read', 'none'] as const).map(editsInEditor),
    [true, true, true, true, true, false, false],
  )
})
