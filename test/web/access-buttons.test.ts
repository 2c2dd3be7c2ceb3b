import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allows, allowsTrashing, levelOfShare, type AccessLevel } from '../../src/core/sharing/access-levels.js'
import { LINK_LEVELS, SHARE_LEVELS, allowed } from '../../web/src/access.js'

// The web UI hides buttons from the item's `access` number; Folio decides with its own rules.
// Both must agree, or people are offered actions that fail (or miss ones they have).
const CASES: Array<[number, AccessLevel]> = [
  [0, 'owner'],
  ...[1, 2, 3, 5, 6, 7].map((share): [number, AccessLevel] => [share, levelOfShare(share)]),
]

test('the buttons each access shows are the actions Folio allows for it', () => {
  for (const [share, level] of CASES) {
    const shown = allowed(share)
    assert.equal(shown.rename, allows(level, 'rename'), `rename for ${share}`)
    for (const action of ['delete', 'move', 'share'] as const) {
      assert.equal(shown.manage, allows(level, action), `${action} for ${share}`)
    }
    assert.equal(shown.open, allows(level, 'read'), `open for ${share}`)
  }
})

test('the share dialog offers only levels Folio grants to people and links', () => {
  assert.deepEqual(SHARE_LEVELS.map((l) => levelOfShare(l.access)).includes('none'), false)
  for (const level of LINK_LEVELS) assert.notEqual(levelOfShare(level.access), 'none')
})

test('Delete (to the trash) shows where Folio allows it: the owner, and full access inside a folder shared with full access', () => {
  const parents: Array<[number | undefined, AccessLevel]> = [[undefined, 'none'], ...CASES]
  for (const [share, level] of CASES) {
    for (const [parentShare, parentLevel] of parents) {
      assert.equal(
        allowed(share, parentShare).trash,
        allowsTrashing(level, parentLevel),
        `trash for ${share} in ${parentShare}`,
      )
    }
  }
  // What it means, plainly: full access deletes inside a shared folder, never a lone shared item.
  assert.equal(allowed(1, 1).trash, true)
  assert.equal(allowed(1, undefined).trash, false)
  assert.equal(allowed(2, 1).trash, false)
  assert.equal(allowed(1, 2).trash, false)
  assert.equal(allowed(0).trash, true)
})

test('Copy shows where Folio lets the item be read; Convert and edit where it may be downloaded and its folder added to', () => {
  const parents: Array<[number | undefined, AccessLevel]> = [[undefined, 'none'], ...CASES]
  for (const [share, level] of CASES) {
    assert.equal(allowed(share).copy, allows(level, 'read'), `copy for ${share}`)
    for (const [parentShare, parentLevel] of parents) {
      // Folio creates the converted file where the caller may rename the folder's contents
      // (full access or owner); without a known folder, only the owner's own item.
      const folderTakesFiles = parentShare === undefined ? level === 'owner' : allows(parentLevel, 'rename')
      assert.equal(
        allowed(share, parentShare).convert,
        allows(level, 'download') && folderTakesFiles,
        `convert for ${share} in ${parentShare}`,
      )
    }
  }
  assert.equal(allowed(3).copy, false)
  assert.equal(allowed(2, 1).convert, true, 'a reader of a file in a folder they may add to converts it')
  assert.equal(allowed(2, 2).convert, false)
})
