import { DomainError } from '../../core/errors.js'
import {
  currentLock,
  decideLock,
  decideRefresh,
  decideUnlock,
  decideUnlockAndRelock,
  type HeldLock,
  type LockConflict,
  type LockGrant,
} from '../../core/lock/lock-rules.js'
import type { FileLock, FileRecord } from '../../core/entities.js'
import type { FilePatch } from '../../ports/metadata-store.js'
import { authorize, fileFor, type Principal } from '../access.js'
import { CONSOLE_ACTOR, fileSubject, principalActor, recordAudit } from '../audit.js'
import type { AppContext } from '../context.js'
import { mutateFile } from '../files/files.js'
import { lockConflictError } from '../lock-policy.js'

/**
 * The WOPI lock table as use cases: Lock, UnlockAndRelock, RefreshLock, Unlock and GetLock.
 * Each decision is a pure function of core/lock applied inside mutateFile, whose
 * compare-and-set on the row's revision makes it atomic: of any number of concurrent Locks
 * with different IDs exactly one wins, and every loser re-reads, decides again and gets
 * LOCK_MISMATCH naming the winner. Expiry is computed from the stored timestamps and the
 * clock; there are no timers. `current` (the row the caller read moments ago) saves the
 * first read; the compare-and-set still guards it.
 */

/** Who took a lock and when, as stored (nothing for a lock older than these fields). */
function holderOf(lock: FileLock | null): Pick<FileLock, 'holderId' | 'lockedAt'> {
  const holder: Pick<FileLock, 'holderId' | 'lockedAt'> = {}
  if (lock?.holderId !== undefined) holder.holderId = lock.holderId
  if (lock?.lockedAt !== undefined) holder.lockedAt = lock.lockedAt
  return holder
}

function granted(decision: LockGrant | LockConflict): HeldLock {
  if (decision.kind === 'conflict') throw lockConflictError(decision)
  return decision.lock
}

/** Takes the lock for `lockId`, or swaps `oldLockId` for it (UnlockAndRelock) when given. */
export async function lockFile(
  ctx: AppContext,
  by: Principal,
  current: FileRecord,
  lockId: string,
  oldLockId?: string,
): Promise<FileRecord> {
  await authorize(ctx, by, 'edit', current)
  const decide = (file: FileRecord): FilePatch => {
    const now = ctx.clock.now()
    const decision =
      oldLockId === undefined
        ? decideLock(file.lock, lockId, now)
        : decideUnlockAndRelock(file.lock, oldLockId, lockId, now)
    const lock = granted(decision)
    // The same lock taken again is a refresh: it keeps who took it and since when.
    const held = currentLock(file.lock, now).state === 'locked' ? file.lock : null
    if (held !== null && held.lockId === lock.lockId) return { lock: { ...holderOf(held), ...lock } }
    return { lock: { ...lock, holderId: by.user.id, lockedAt: now } }
  }
  return mutateFile(ctx, current.id, decide, current)
}

/** Resets the expiry of the lock `lockId` holds. */
export async function refreshLock(
  ctx: AppContext,
  by: Principal,
  current: FileRecord,
  lockId: string,
): Promise<FileRecord> {
  await authorize(ctx, by, 'edit', current)
  const refresh = (file: FileRecord): FilePatch => ({
    lock: { ...holderOf(file.lock), ...granted(decideRefresh(file.lock, lockId, ctx.clock.now())) },
  })
  return mutateFile(ctx, current.id, refresh, current)
}

/** Releases the lock `lockId` holds; the file becomes unlocked. */
export async function unlockFile(
  ctx: AppContext,
  by: Principal,
  current: FileRecord,
  lockId: string,
): Promise<FileRecord> {
  await authorize(ctx, by, 'edit', current)
  const release = (file: FileRecord): FilePatch => {
    const decision = decideUnlock(file.lock, lockId, ctx.clock.now())
    if (decision.kind === 'conflict') throw lockConflictError(decision)
    return { lock: null }
  }
  return mutateFile(ctx, current.id, release, current)
}

/** The lock currently held on the file ('' when unlocked). */
export async function lockOf(ctx: AppContext, by: Principal, file: FileRecord): Promise<string> {
  await authorize(ctx, by, 'read', file)
  const view = currentLock(file.lock, ctx.clock.now())
  return view.state === 'locked' ? view.lockId : ''
}

/** Keeps the text a WOPI client stores for the user (PutUserInfo); at most 1024 characters. */
export async function setWopiUserInfo(ctx: AppContext, by: Principal, text: string): Promise<void> {
  if (text.length > 1024) throw new DomainError('INVALID_INPUT', 'UserInfo is too long')
  await ctx.store.users.update(by.user.id, { wopiUserInfo: text, updatedAt: ctx.clock.now() })
}

/** A file's WOPI lock as the owner and admins see it: who holds it and since when. */
export interface LockInfo {
  fileId: string
  locked: boolean
  /** The user whose WOPI client took the lock (absent for locks older than this record). */
  holderId?: string
  /** When it was taken and when it lapses unless refreshed, ms since epoch. */
  lockedAt?: number
  expiresAt?: number
}

/** Who may see and release a file's lock: the server's operator (CLI), or a signed-in user. */
export type LockSteward = Principal | 'operator'

/**
 * The file, when `by` may see and release its WOPI lock: the operator and admins for any
 * file (a lock left by a closed browser must never need the owner), otherwise its owner
 * only. Someone who cannot see the file gets NOT_FOUND, as for any file; a sharee who can
 * (even ReadWrite) gets FORBIDDEN: the lock is the owner's editor's, not theirs to end.
 */
async function lockedFileFor(ctx: AppContext, by: LockSteward, fileId: string): Promise<FileRecord> {
  if (by !== 'operator' && !by.user.isAdmin) {
    const file = await fileFor(ctx, by, fileId, 'read')
    if (file.ownerId !== by.user.id || by.kind !== 'user') {
      throw new DomainError('FORBIDDEN', 'only the owner of the file or an administrator may see or release its lock')
    }
    return file
  }
  const file = await ctx.store.files.findById(fileId)
  if (!file) throw new DomainError('NOT_FOUND', 'file not found')
  return file
}

function infoOf(ctx: AppContext, file: FileRecord): LockInfo {
  const held = currentLock(file.lock, ctx.clock.now()).state === 'locked' ? file.lock : null
  if (held === null) return { fileId: file.id, locked: false }
  return { fileId: file.id, locked: true, ...holderOf(held), expiresAt: held.expiresAt }
}

/** Who holds the file's WOPI lock and since when (see lockedFileFor for who may ask). */
export async function lockInfo(ctx: AppContext, by: LockSteward, fileId: string): Promise<LockInfo> {
  return infoOf(ctx, await lockedFileFor(ctx, by, fileId))
}

/**
 * Releases a file's WOPI lock whoever holds it: the way out of a lock left by a closed
 * browser or a crashed client, for the owner, admins and the operator (API, web UI, CLI).
 * Answers what was held (locked: false when there was nothing to release). The client
 * that held it gets 409 on its next locked call and reloads.
 */
export async function releaseLock(ctx: AppContext, by: LockSteward, fileId: string): Promise<LockInfo> {
  const file = await lockedFileFor(ctx, by, fileId)
  let released: LockInfo = { fileId: file.id, locked: false }
  await mutateFile(
    ctx,
    file.id,
    (fresh) => {
      released = infoOf(ctx, fresh)
      return fresh.lock === null ? undefined : { lock: null }
    },
    file,
  )
  if (released.locked) {
    const actor = by === 'operator' ? CONSOLE_ACTOR : principalActor(by)
    await recordAudit(ctx, 'lock-released', actor, fileSubject(file))
  }
  return released
}
