import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { VersionRecord, VersionSource } from '../entities.js'
import { SQUASH_STARTED_AT, squashes, versionsToDrop, type RetentionPolicy } from './version-retention.js'

const T0 = 1_700_000_000_000
const MIN = 60_000

function v(
  version: number,
  source: VersionSource,
  at: number,
  by = 'u1',
  meta: Record<string, unknown> = {},
): VersionRecord {
  return {
    fileId: 'f',
    version,
    blobKey: `b${version}`,
    size: 1,
    sha256: '0'.repeat(64),
    createdAt: at,
    createdBy: by,
    source,
    meta,
  }
}
const save = (at: number, by = 'u1', meta: Record<string, unknown> = {}) => ({
  source: 'wopi' as const,
  createdBy: by,
  createdAt: at,
  meta,
})
const squashOnly: RetentionPolicy = { squashWindowMs: 5 * MIN, keep: undefined }

describe('version retention rules', () => {
  test('a WOPI save by the same user within the window squashes the WOPI head', () => {
    const head = v(2, 'wopi', T0)
    assert.equal(squashes(head, save(T0 + 4 * MIN), squashOnly), true)
    assert.deepEqual(versionsToDrop([v(1, 'upload', T0 - MIN), head], save(T0 + 4 * MIN), squashOnly), [2])
  })

  test('no squash: window off or passed, another user, or a head that is no plain WOPI save', () => {
    const head = v(2, 'wopi', T0)
    assert.equal(squashes(head, save(T0 + MIN), { squashWindowMs: 0, keep: undefined }), false)
    assert.equal(squashes(head, save(T0 + 6 * MIN), squashOnly), false)
    assert.equal(squashes(head, save(T0 + MIN, 'u2'), squashOnly), false)
    for (const source of ['upload', 'create', 'exit-save', 'force-save', 'restore', 'copy'] as const) {
      assert.equal(squashes(v(2, source, T0), save(T0 + MIN), squashOnly), false, source)
    }
    assert.equal(squashes(v(2, 'wopi', T0, 'u1', { isExitSave: true }), save(T0 + MIN), squashOnly), false)
    const restore = { source: 'restore' as const, createdBy: 'u1', createdAt: T0 + MIN, meta: {} }
    assert.equal(squashes(head, restore, squashOnly), false)
    const exit = { source: 'exit-save' as const, createdBy: 'u1', createdAt: T0 + MIN, meta: {} }
    assert.equal(squashes(head, exit, squashOnly), false)
  })

  test('the window counts from the start of the run of squashed saves, not the last one', () => {
    const head = v(5, 'wopi', T0 + 4 * MIN, 'u1', { [SQUASH_STARTED_AT]: T0 })
    assert.equal(squashes(head, save(T0 + 5 * MIN), squashOnly), true)
    assert.equal(squashes(head, save(T0 + 5 * MIN + 1), squashOnly), false)
  })

  test('keep drops the oldest versions so that keep remain with the new one, never the last exit save', () => {
    const keep3: RetentionPolicy = { squashWindowMs: 0, keep: 3 }
    const versions = [v(1, 'upload', T0), v(2, 'exit-save', T0 + 1), v(3, 'wopi', T0 + 2), v(4, 'wopi', T0 + 3)]
    assert.deepEqual(versionsToDrop(versions, save(T0 + 10), keep3), [1, 3])
    assert.deepEqual(versionsToDrop(versions.slice(0, 2), save(T0 + 10), keep3), [])
    const keep1: RetentionPolicy = { squashWindowMs: 0, keep: 1 }
    assert.deepEqual(versionsToDrop(versions, save(T0 + 10), keep1), [1, 3, 4])
    const wopiExit = [v(1, 'upload', T0), v(2, 'wopi', T0 + 1, 'u1', { isExitSave: true }), v(3, 'wopi', T0 + 2)]
    assert.deepEqual(versionsToDrop(wopiExit, save(T0 + 10), keep1), [1, 3])
  })

  test('squash and keep together count the squashed head once', () => {
    const policy: RetentionPolicy = { squashWindowMs: 5 * MIN, keep: 2 }
    const versions = [v(1, 'upload', T0), v(2, 'wopi', T0 + MIN)]
    assert.deepEqual(versionsToDrop(versions, save(T0 + 2 * MIN), policy), [2])
    assert.deepEqual(versionsToDrop([], save(T0), policy), [])
  })
})
