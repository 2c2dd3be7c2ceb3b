import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { DomainError } from '../errors.js'
import {
  LOCK_TTL_MS,
  MAX_LOCK_ID_LENGTH,
  type HeldLock,
  type WriteOperation,
  currentLock,
  decideDelete,
  decideLock,
  decideRefresh,
  decideUnlock,
  decideUnlockAndRelock,
  decideWrite,
  validateLockId,
} from './lock-rules.js'

const NOW = 1_700_000_000_000
const MINUTE = 60 * 1000
/** Locked under 'lock-A', taken 10 minutes ago, so 20 minutes left. */
const held: HeldLock = { lockId: 'lock-A', expiresAt: NOW + 20 * MINUTE }
/** Was locked under 'lock-A' but expired a minute ago. */
const expired: HeldLock = { lockId: 'lock-A', expiresAt: NOW - MINUTE }
const WRITES: WriteOperation[] = ['put', 'rename', 'put-relative']

function isInvalidLockHeader(error: unknown): boolean {
  return error instanceof DomainError && error.code === 'INVALID_INPUT' && error.details.field === 'X-WOPI-Lock'
}

describe('WOPI lock table', () => {
  test('unlocked | Lock | always -> locked under the X-WOPI-Lock value, 200 OK', () => {
    for (const stored of [null, expired]) {
      assert.deepEqual(decideLock(stored, 'lock-B', NOW), {
        kind: 'grant',
        lock: { lockId: 'lock-B', expiresAt: NOW + LOCK_TTL_MS },
        refreshed: false,
      })
    }
  })

  test('locked | Lock | X-WOPI-Lock equals current lock -> same lock, timer refreshed, 200 OK', () => {
    assert.deepEqual(decideLock(held, 'lock-A', NOW), {
      kind: 'grant',
      lock: { lockId: 'lock-A', expiresAt: NOW + LOCK_TTL_MS },
      refreshed: true,
    })
  })

  test('locked | Lock | X-WOPI-Lock differs -> 409 with current lock', () => {
    const decision = decideLock(held, 'lock-B', NOW)
    assert.equal(decision.kind, 'conflict')
    if (decision.kind === 'conflict') {
      assert.equal(decision.currentLock, 'lock-A')
      assert.ok(decision.reason.length > 0)
    }
  })

  test('locked | RefreshLock | X-WOPI-Lock equals current lock -> expiry reset to 30 minutes', () => {
    assert.deepEqual(decideRefresh(held, 'lock-A', NOW), {
      kind: 'grant',
      lock: { lockId: 'lock-A', expiresAt: NOW + 30 * MINUTE },
      refreshed: true,
    })
  })

  test('locked | RefreshLock | X-WOPI-Lock differs -> 409 with current lock', () => {
    const decision = decideRefresh(held, 'lock-B', NOW)
    assert.equal(decision.kind, 'conflict')
    if (decision.kind === 'conflict') assert.equal(decision.currentLock, 'lock-A')
  })

  test('unlocked | RefreshLock | always -> 409 with X-WOPI-Lock set to the empty string', () => {
    for (const stored of [null, expired]) {
      const decision = decideRefresh(stored, 'lock-A', NOW)
      assert.equal(decision.kind, 'conflict')
      if (decision.kind === 'conflict') assert.equal(decision.currentLock, '')
    }
  })

  test('unlocked | Unlock | always -> 409 with X-WOPI-Lock set to the empty string', () => {
    for (const stored of [null, expired]) {
      const decision = decideUnlock(stored, 'lock-A', NOW)
      assert.equal(decision.kind, 'conflict')
      if (decision.kind === 'conflict') assert.equal(decision.currentLock, '')
    }
  })

  test('locked | Unlock | X-WOPI-Lock differs -> 409 with current lock', () => {
    const decision = decideUnlock(held, 'lock-B', NOW)
    assert.equal(decision.kind, 'conflict')
    if (decision.kind === 'conflict') assert.equal(decision.currentLock, 'lock-A')
  })

  test('locked | 30 minutes pass without Unlock or RefreshLock -> unlocked (automatic expiry)', () => {
    const first = decideLock(null, 'lock-A', NOW)
    assert.equal(first.kind, 'grant')
    if (first.kind !== 'grant') return
    assert.equal(currentLock(first.lock, NOW + 30 * MINUTE - 1).state, 'locked')
    assert.deepEqual(currentLock(first.lock, NOW + 30 * MINUTE), { state: 'unlocked' })
    // Once expired, another client may take the lock.
    assert.equal(decideLock(first.lock, 'lock-B', NOW + 30 * MINUTE).kind, 'grant')
  })

  test('locked | PutFile, RenameFile or PutRelativeFile | X-WOPI-Lock differs -> 409 with ' + 'current lock', () => {
    for (const op of WRITES) {
      const decision = decideWrite(held, 'lock-B', 0, NOW, op)
      assert.equal(decision.kind, 'conflict', op)
      if (decision.kind === 'conflict') assert.equal(decision.currentLock, 'lock-A', op)
    }
  })

  test('unlocked | PutFile | current file size is 0 bytes -> request proceeds', () => {
    for (const stored of [null, expired]) {
      assert.deepEqual(decideWrite(stored, undefined, 0, NOW, 'put'), { kind: 'proceed' })
      assert.deepEqual(decideWrite(stored, 'lock-A', 0, NOW, 'put'), { kind: 'proceed' })
    }
  })

  test('unlocked | PutFile | file size is other than 0 bytes or is missing -> 409', () => {
    for (const size of [1, 4096, undefined]) {
      const decision = decideWrite(null, undefined, size, NOW, 'put')
      assert.equal(decision.kind, 'conflict', String(size))
      if (decision.kind === 'conflict') assert.equal(decision.currentLock, '')
    }
    // A lock header does not help when the file is not locked.
    assert.equal(decideWrite(expired, 'lock-A', 10, NOW, 'put').kind, 'conflict')
  })

  test('unlocked | RenameFile | always -> 200 OK and rename proceeds', () => {
    for (const stored of [null, expired]) {
      for (const id of [undefined, '', 'lock-A', 'anything']) {
        assert.deepEqual(decideWrite(stored, id, 123, NOW, 'rename'), { kind: 'proceed' })
      }
    }
  })
})

describe('outcomes the lock table leaves open (WOPI behaviour)', () => {
  test('locked | Unlock | X-WOPI-Lock equals current lock -> released', () => {
    assert.deepEqual(decideUnlock(held, 'lock-A', NOW), { kind: 'release' })
  })

  test('locked | PutFile, RenameFile or PutRelativeFile | X-WOPI-Lock matches -> proceeds', () => {
    for (const op of WRITES) {
      assert.deepEqual(decideWrite(held, 'lock-A', 999, NOW, op), { kind: 'proceed' }, op)
    }
  })

  test('unlocked | PutRelativeFile -> proceeds, with or without a header', () => {
    for (const id of [undefined, '', 'lock-B']) {
      assert.deepEqual(decideWrite(null, id, 999, NOW, 'put-relative'), { kind: 'proceed' })
    }
  })
})

describe('X-WOPI-Lock header presence on writes', () => {
  test('locked | PutRelativeFile without X-WOPI-Lock -> proceeds (ONLYOFFICE Save As)', () => {
    assert.deepEqual(decideWrite(held, undefined, 999, NOW, 'put-relative'), { kind: 'proceed' })
  })

  test('locked | PutRelativeFile with a different or empty X-WOPI-Lock -> 409', () => {
    for (const id of ['lock-B', '']) {
      const decision = decideWrite(held, id, 999, NOW, 'put-relative')
      assert.equal(decision.kind, 'conflict', JSON.stringify(id))
      if (decision.kind === 'conflict') assert.equal(decision.currentLock, 'lock-A')
    }
  })

  test('locked | PutFile or RenameFile without X-WOPI-Lock -> 409 with current lock', () => {
    const ops: WriteOperation[] = ['put', 'rename']
    for (const op of ops) {
      const decision = decideWrite(held, undefined, 0, NOW, op)
      assert.equal(decision.kind, 'conflict', op)
      if (decision.kind === 'conflict') assert.equal(decision.currentLock, 'lock-A')
    }
  })

  test('lock IDs compare byte for byte: case and whitespace matter', () => {
    for (const id of ['LOCK-A', 'lock-a', ' lock-A', 'lock-A ']) {
      assert.equal(decideWrite(held, id, 0, NOW, 'put').kind, 'conflict', JSON.stringify(id))
      assert.equal(decideLock(held, id, NOW).kind, 'conflict', JSON.stringify(id))
      assert.equal(decideUnlock(held, id, NOW).kind, 'conflict', JSON.stringify(id))
    }
  })
})

describe('expiry', () => {
  test('exactly at expiresAt the file is unlocked; 1 ms before it is locked', () => {
    const lock: HeldLock = { lockId: 'L', expiresAt: NOW }
    assert.deepEqual(currentLock(lock, NOW), { state: 'unlocked' })
    assert.deepEqual(currentLock(lock, NOW - 1), { state: 'locked', lockId: 'L', expiresAt: NOW })
    assert.deepEqual(currentLock(null, NOW), { state: 'unlocked' })
  })

  test('an expired lock blocks nothing', () => {
    const lock: HeldLock = { lockId: 'L', expiresAt: NOW }
    assert.equal(decideWrite(lock, 'other', 0, NOW, 'rename').kind, 'proceed')
    assert.equal(decideWrite(lock, 'other', 0, NOW - 1, 'rename').kind, 'conflict')
    assert.equal(decideLock(lock, 'other', NOW).kind, 'grant')
    assert.equal(decideLock(lock, 'other', NOW - 1).kind, 'conflict')
  })

  test('refresh extends to now + 30 minutes, not expiresAt + 30 minutes', () => {
    const later = NOW + 5 * MINUTE
    const decision = decideRefresh(held, 'lock-A', later)
    assert.equal(decision.kind, 'grant')
    if (decision.kind === 'grant') assert.equal(decision.lock.expiresAt, later + LOCK_TTL_MS)
  })

  test('LOCK_TTL_MS is 30 minutes', () => assert.equal(LOCK_TTL_MS, 1_800_000))
})

describe('decideUnlockAndRelock', () => {
  test('old ID matches -> new lock with a fresh expiry', () => {
    assert.deepEqual(decideUnlockAndRelock(held, 'lock-A', 'lock-B', NOW), {
      kind: 'grant',
      lock: { lockId: 'lock-B', expiresAt: NOW + LOCK_TTL_MS },
      refreshed: false,
    })
  })

  test('old and new ID the same -> refreshed', () => {
    const decision = decideUnlockAndRelock(held, 'lock-A', 'lock-A', NOW)
    assert.equal(decision.kind, 'grant')
    if (decision.kind === 'grant') assert.equal(decision.refreshed, true)
  })

  test('old ID differs -> 409 with current lock', () => {
    const decision = decideUnlockAndRelock(held, 'lock-X', 'lock-B', NOW)
    assert.equal(decision.kind, 'conflict')
    if (decision.kind === 'conflict') assert.equal(decision.currentLock, 'lock-A')
  })

  test('unlocked or expired -> 409 with the empty string', () => {
    for (const stored of [null, expired]) {
      const decision = decideUnlockAndRelock(stored, 'lock-A', 'lock-B', NOW)
      assert.equal(decision.kind, 'conflict')
      if (decision.kind === 'conflict') assert.equal(decision.currentLock, '')
    }
  })

  test('an invalid new ID is refused before anything else', () => {
    assert.throws(() => decideUnlockAndRelock(held, 'lock-A', '', NOW), isInvalidLockHeader)
  })
})

describe('decideDelete', () => {
  test('locked -> 409 with the current lock (a lock ID in the request changes nothing)', () => {
    assert.deepEqual(decideDelete(held, NOW), {
      kind: 'conflict',
      currentLock: 'lock-A',
      reason: 'a locked file cannot be deleted',
    })
  })

  test('unlocked or expired -> proceeds', () => {
    assert.deepEqual(decideDelete(null, NOW), { kind: 'proceed' })
    assert.deepEqual(decideDelete(expired, NOW), { kind: 'proceed' })
    assert.deepEqual(decideDelete(held, held.expiresAt), { kind: 'proceed' })
  })
})

describe('validateLockId', () => {
  test('returns a valid ID unchanged', () => {
    assert.equal(validateLockId('lock-A'), 'lock-A')
    assert.equal(validateLockId(' '), ' ')
    assert.equal(validateLockId('{"S":"1234","F":4}'), '{"S":"1234","F":4}')
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join('')
    assert.equal(validateLockId(printable), printable)
  })

  test('1024 characters is accepted, 1025 is refused', () => {
    assert.equal(MAX_LOCK_ID_LENGTH, 1024)
    const max = 'x'.repeat(1024)
    assert.equal(validateLockId(max), max)
    assert.throws(() => validateLockId('x'.repeat(1025)), isInvalidLockHeader)
  })

  test('missing or empty is refused', () => {
    assert.throws(() => validateLockId(undefined), isInvalidLockHeader)
    assert.throws(() => validateLockId(''), isInvalidLockHeader)
  })

  test('non-ASCII and control characters are refused', () => {
    for (const id of ['lock-é', 'замок', '😀', 'a\tb', 'a\u0000', 'a\u007f', 'a\nb']) {
      assert.throws(() => validateLockId(id), isInvalidLockHeader, JSON.stringify(id))
    }
  })

  test('decideLock refuses an invalid ID instead of storing it', () => {
    assert.throws(() => decideLock(null, '', NOW), isInvalidLockHeader)
    assert.throws(() => decideLock(null, 'x'.repeat(1025), NOW), isInvalidLockHeader)
  })
})
