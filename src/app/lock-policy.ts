import { DomainError } from '../core/errors.js'
import { currentLock, decideDelete, decideWrite, type LockConflict } from '../core/lock/lock-rules.js'
import type { FileRecord } from '../core/entities.js'

/**
 * Which writes honour a WOPI lock. A WOPI lock is how WOPI clients keep each other (and
 * themselves across sessions) from overwriting a document one of them is editing, so every
 * write that arrives through WOPI is judged against it. Writes through the portal, the web
 * UI, the CLI and the ONLYOFFICE callback are the owner's (or, for the callback, the
 * document server saving what the owner's editors typed): they are not WOPI clients, hold
 * no lock ID, and are not refused by one. They do tell open ONLYOFFICE editors about a
 * rename or a delete.
 */
export type LockClaim =
  /** A WOPI client, with the X-WOPI-Lock it sent (undefined when it sent none). */
  | { kind: 'wopi'; lockId: string | undefined }
  /** A door that takes no WOPI locks (portal, web UI, CLI, ONLYOFFICE callback). */
  | { kind: 'unlocked-door' }

/** The claim of a write that does not come through WOPI. */
export const NO_LOCK_CLAIM: LockClaim = { kind: 'unlocked-door' }

/** The writes a lock is asked about. */
export type LockedWrite = 'put' | 'rename' | 'put-relative' | 'delete' | 'overwrite'

/** The error a lost lock decision becomes (WOPI: 409 with X-WOPI-Lock = the current lock). */
export function lockConflictError(conflict: LockConflict): DomainError {
  return new DomainError('LOCK_MISMATCH', conflict.reason, { currentLock: conflict.currentLock })
}

/**
 * Throws LOCK_MISMATCH unless the lock on `file` lets `claim` do `write` at `now`:
 * - put, rename, put-relative (the source file): the core lock table (decideWrite); a put
 *   on an unlocked file that is not empty is FILE_NOT_EMPTY;
 * - delete: refused while any lock is held (decideDelete);
 * - overwrite (PutRelativeFile onto an existing file): refused while it is locked.
 */
export function assertLockAllows(file: FileRecord, claim: LockClaim, write: LockedWrite, now: number): void {
  if (claim.kind !== 'wopi') return
  if (write === 'delete') {
    const decision = decideDelete(file.lock, now)
    if (decision.kind === 'conflict') throw lockConflictError(decision)
    return
  }
  if (write === 'overwrite') {
    const view = currentLock(file.lock, now)
    if (view.state === 'locked') {
      throw new DomainError('LOCK_MISMATCH', 'the target file is locked', { currentLock: view.lockId })
    }
    return
  }
  const decision = decideWrite(file.lock, claim.lockId, file.size, now, write)
  if (decision.kind !== 'conflict') return
  // PutFile on an unlocked file is refused only because it is not empty.
  if (write === 'put' && decision.currentLock === '') {
    throw new DomainError('FILE_NOT_EMPTY', decision.reason, { currentLock: '' })
  }
  throw lockConflictError(decision)
}

/**
 * A restore (a new version made outside any editor) waits for the WOPI session to end:
 * while a WOPI client holds the lock, its next PutFile would replace the restored version
 * without anyone having seen it (WOPI saves carry no base version to detect that). So the
 * restore is refused with LOCK_MISMATCH naming the lock; the owner or an admin can release
 * a lock left behind (DELETE /api/2.0/files/file/{id}/lock).
 */
export function assertNoWopiSession(file: FileRecord, now: number): void {
  const view = currentLock(file.lock, now)
  if (view.state !== 'locked') return
  throw new DomainError(
    'LOCK_MISMATCH',
    'a WOPI editor has this document open (it holds the lock); close it, or release the lock, and restore again',
    { currentLock: view.lockId },
  )
}
