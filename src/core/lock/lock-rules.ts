/**
 * The WOPI file-lock state machine (MS-WOPI Lock, Unlock, RefreshLock, UnlockAndRelock,
 * GetLock and the lock rules of PutFile, RenameFile, PutRelativeFile and DeleteFile;
 * https://learn.microsoft.com/microsoft-365/cloud-storage-partner-program/rest/concepts#lock),
 * as pure decisions over the stored lock and `now`. A conflict is a normal outcome, returned rather than thrown: the WOPI adapter turns
 * it into 409 with X-WOPI-Lock = currentLock ('' when unlocked) and may log `reason` as
 * X-WOPI-LockFailureReason. Lock IDs are opaque and compared byte for byte (===).
 */
import type { FileLock } from '../entities.js'
import { DomainError } from '../errors.js'

/** Lock lifetime: 30 minutes after the last Lock, RefreshLock or UnlockAndRelock. */
export const LOCK_TTL_MS = 30 * 60 * 1000

/** Longest lock ID accepted (the WOPI spec allows up to 1024 ASCII characters). */
export const MAX_LOCK_ID_LENGTH = 1024

/** A lock as stored; it may already have expired. */
export type HeldLock = FileLock

/** The lock as it stands at `now`. */
export type LockView = { state: 'unlocked' } | { state: 'locked'; lockId: string; expiresAt: number }

/** The file is (or stays) locked under `lock`; `refreshed` when the same ID was already held. */
export interface LockGrant {
  kind: 'grant'
  lock: HeldLock
  refreshed: boolean
}

/** The request loses: answer 409 with X-WOPI-Lock = currentLock ('' when unlocked). */
export interface LockConflict {
  kind: 'conflict'
  currentLock: string
  reason: string
}

/** The lock is released (the file becomes unlocked). */
export interface LockRelease {
  kind: 'release'
}

/** A write operation may go ahead as far as the lock is concerned. */
export interface WriteProceed {
  kind: 'proceed'
}

/** The lock-aware writes: PutFile, RenameFile, PutRelativeFile. */
export type WriteOperation = 'put' | 'rename' | 'put-relative'

/** What `stored` means at `now`: expired (now >= expiresAt) counts as unlocked. */
export function currentLock(stored: HeldLock | null, now: number): LockView {
  if (stored === null || now >= stored.expiresAt) return { state: 'unlocked' }
  return { state: 'locked', lockId: stored.lockId, expiresAt: stored.expiresAt }
}

/**
 * Returns `id` when it is a usable lock ID: present, 1–1024 characters, printable ASCII
 * (0x20–0x7E). Throws DomainError('INVALID_INPUT', …, { field: 'X-WOPI-Lock' }) otherwise.
 */
export function validateLockId(id: string | undefined): string {
  const fail = (message: string): DomainError => new DomainError('INVALID_INPUT', message, { field: 'X-WOPI-Lock' })
  if (id === undefined || id === '') throw fail('X-WOPI-Lock is missing or empty')
  if (id.length > MAX_LOCK_ID_LENGTH) {
    throw fail(`X-WOPI-Lock is longer than ${MAX_LOCK_ID_LENGTH} characters`)
  }
  if (!/^[\x20-\x7e]+$/.test(id)) throw fail('X-WOPI-Lock must be printable ASCII')
  return id
}

function grant(lockId: string, now: number, refreshed: boolean): LockGrant {
  return { kind: 'grant', lock: { lockId, expiresAt: now + LOCK_TTL_MS }, refreshed }
}

function conflict(currentLockId: string, reason: string): LockConflict {
  return { kind: 'conflict', currentLock: currentLockId, reason }
}

const NOT_LOCKED = 'file is not locked'
const OTHER_LOCK = 'file is locked under a different lock ID'

/**
 * WOPI Lock. Grants a lock expiring at now + 30 min, or conflicts. Throws INVALID_INPUT when
 * `requestedId` is not a valid lock ID, so an invalid ID is never stored.
 */
export function decideLock(stored: HeldLock | null, requestedId: string, now: number): LockGrant | LockConflict {
  validateLockId(requestedId)
  const view = currentLock(stored, now)
  // unlocked | Lock | always | locked under the X-WOPI-Lock value | 200 OK
  if (view.state === 'unlocked') return grant(requestedId, now, false)
  // locked | Lock | X-WOPI-Lock equals current lock | locked, same lock |
  // lock timer refreshed; 200 OK
  if (view.lockId === requestedId) return grant(requestedId, now, true)
  // locked | Lock | X-WOPI-Lock differs | locked, unchanged | 409 Conflict with current lock
  return conflict(view.lockId, OTHER_LOCK)
}

/** WOPI RefreshLock. Grants the same lock with a new expiry (now + 30 min), or conflicts. */
export function decideRefresh(stored: HeldLock | null, requestedId: string, now: number): LockGrant | LockConflict {
  const view = currentLock(stored, now)
  // unlocked | RefreshLock | always | unlocked | 409 Conflict with X-WOPI-Lock set to ''
  if (view.state === 'unlocked') return conflict('', NOT_LOCKED)
  // locked | RefreshLock | X-WOPI-Lock equals current lock | locked, same lock |
  // expiry timer reset to 30 minutes
  if (view.lockId === requestedId) return grant(view.lockId, now, true)
  // locked | RefreshLock | X-WOPI-Lock differs | unchanged | 409 Conflict with current lock
  return conflict(view.lockId, OTHER_LOCK)
}

/** WOPI Unlock. Releases the lock when `requestedId` holds it, otherwise conflicts. */
export function decideUnlock(stored: HeldLock | null, requestedId: string, now: number): LockRelease | LockConflict {
  const view = currentLock(stored, now)
  // unlocked | Unlock | always | unlocked | 409 Conflict with X-WOPI-Lock set to ''
  if (view.state === 'unlocked') return conflict('', NOT_LOCKED)
  // locked | Unlock | X-WOPI-Lock differs | unchanged | 409 Conflict with current lock
  if (view.lockId !== requestedId) return conflict(view.lockId, OTHER_LOCK)
  // locked | Unlock | X-WOPI-Lock matches | unlocked | 200 OK (WOPI releases the lock).
  return { kind: 'release' }
}

/**
 * WOPI UnlockAndRelock (LOCK with X-WOPI-OldLock): when `oldId` is the current lock, grants
 * `newId` expiring at now + 30 min; otherwise conflicts ('' when unlocked), as the WOPI
 * UnlockAndRelock operation says. Throws INVALID_INPUT when `newId` is not a valid lock ID.
 */
export function decideUnlockAndRelock(
  stored: HeldLock | null,
  oldId: string,
  newId: string,
  now: number,
): LockGrant | LockConflict {
  validateLockId(newId)
  const view = currentLock(stored, now)
  if (view.state === 'unlocked') return conflict('', NOT_LOCKED)
  if (view.lockId !== oldId) return conflict(view.lockId, OTHER_LOCK)
  return grant(newId, now, newId === view.lockId)
}

/**
 * Whether PutFile ('put'), RenameFile ('rename') or PutRelativeFile ('put-relative') may
 * proceed. `requestedId` is X-WOPI-Lock, undefined when the header is absent (an empty
 * header is '' and counts as present). `fileSize` is the stored size in bytes, undefined
 * when unknown.
 */
export function decideWrite(
  stored: HeldLock | null,
  requestedId: string | undefined,
  fileSize: number | undefined,
  now: number,
  op: WriteOperation,
): WriteProceed | LockConflict {
  const view = currentLock(stored, now)
  if (view.state === 'locked') {
    // ONLYOFFICE Docs sends Save As (PUT_RELATIVE) without X-WOPI-Lock while it holds the
    // lock, and X-WOPI-Lock is optional on PutRelativeFile (it only serves a lock check
    // there). So only a present-but-different ID blocks put-relative.
    if (op === 'put-relative' && requestedId === undefined) return { kind: 'proceed' }
    // locked | PutFile, RenameFile or PutRelativeFile | X-WOPI-Lock matches | unchanged |
    // request proceeds (WOPI lets the lock holder write).
    if (view.lockId === requestedId) return { kind: 'proceed' }
    // locked | PutFile, RenameFile or PutRelativeFile | X-WOPI-Lock differs | unchanged |
    // 409 Conflict with current lock in X-WOPI-Lock
    return conflict(view.lockId, requestedId === undefined ? 'X-WOPI-Lock is missing' : OTHER_LOCK)
  }
  if (op === 'put') {
    // unlocked | PutFile | current file size is 0 bytes | unlocked | request proceeds
    if (fileSize === 0) return { kind: 'proceed' }
    // unlocked | PutFile | file size is other than 0 bytes or is missing | unlocked | 409 Conflict
    return conflict('', 'file is not locked and not empty')
  }
  // unlocked | RenameFile | always | unlocked | 200 OK and rename proceeds
  // PutRelativeFile rule 2: if the file is unlocked, take the name from X-WOPI-SuggestedTarget.
  return { kind: 'proceed' }
}

/**
 * WOPI DeleteFile. Microsoft's DeleteFile answers 409 with the
 * current lock while the file is locked, whatever X-WOPI-Lock says, so only an unlocked
 * (or expired) file may be deleted.
 */
export function decideDelete(stored: HeldLock | null, now: number): WriteProceed | LockConflict {
  const view = currentLock(stored, now)
  if (view.state === 'locked') return conflict(view.lockId, 'a locked file cannot be deleted')
  return { kind: 'proceed' }
}
