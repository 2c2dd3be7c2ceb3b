/**
 * Lock, UnlockAndRelock, RefreshLock, Unlock and GetLock. Each decision is a pure function
 * of core/lock applied inside mutateFile, whose compare-and-set on the row's revision makes
 * it atomic: of any number of concurrent Locks with different IDs exactly one wins, and
 * every loser re-reads, decides again and gets 409 naming the winner. The first attempt
 * starts from the row authorize read (no second read per call); the CAS still guards it.
 * Expiry is computed from the stored timestamps and the clock; there are no timers.
 */
import type { FastifyReply } from 'fastify'
import { mutateFile } from '../../app/files.js'
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
import type { FilePatch, FileRecord } from '../../ports/metadata-store.js'
import { requireWrite, type WopiCall } from './authorize.js'
import { readOldLock, requireLock } from './headers.js'
import { itemVersion } from './presenters.js'

/** The error a lost lock decision becomes: 409 with X-WOPI-Lock = the current lock. */
export function lockConflictError(conflict: LockConflict): DomainError {
  return new DomainError('LOCK_MISMATCH', conflict.reason, { currentLock: conflict.currentLock })
}

function grantedLock(decision: LockGrant | LockConflict): HeldLock {
  if (decision.kind === 'conflict') throw lockConflictError(decision)
  return decision.lock
}

/** 200 with X-WOPI-ItemVersion and no X-WOPI-Lock (a 200 never carries it). */
function lockReply(call: WopiCall, file: FileRecord): FastifyReply {
  return call.reply.code(200).header('X-WOPI-ItemVersion', itemVersion(file)).send()
}

/**
 * LOCK: a plain Lock, or UnlockAndRelock when X-WOPI-OldLock is present (Microsoft: the two
 * share the override and are told apart by that header). Lock IDs are validated first (400).
 */
export async function lock(call: WopiCall): Promise<FastifyReply> {
  const { ctx, request } = call
  const lockId = requireLock(request.headers)
  const oldLockId = readOldLock(request.headers)
  requireWrite(call)
  const decide = (file: FileRecord): FilePatch => {
    const now = ctx.clock.now()
    const decision =
      oldLockId === undefined
        ? decideLock(file.lock, lockId, now)
        : decideUnlockAndRelock(file.lock, oldLockId, lockId, now)
    return { lock: grantedLock(decision) }
  }
  const file = await mutateFile(ctx, call.file.id, decide, call.file)
  return lockReply(call, file)
}

/** REFRESH_LOCK: resets the 30-minute expiry of the lock the caller holds. */
export async function refreshLock(call: WopiCall): Promise<FastifyReply> {
  const { ctx, request } = call
  const lockId = requireLock(request.headers)
  requireWrite(call)
  const refresh = (file: FileRecord): FilePatch => ({
    lock: grantedLock(decideRefresh(file.lock, lockId, ctx.clock.now())),
  })
  await mutateFile(ctx, call.file.id, refresh, call.file)
  return call.reply.code(200).send()
}

/** UNLOCK: releases the lock the caller holds (decided: 200, the file becomes unlocked). */
export async function unlock(call: WopiCall): Promise<FastifyReply> {
  const { ctx, request } = call
  const lockId = requireLock(request.headers)
  requireWrite(call)
  const release = (current: FileRecord): FilePatch => {
    const decision = decideUnlock(current.lock, lockId, ctx.clock.now())
    if (decision.kind === 'conflict') throw lockConflictError(decision)
    return { lock: null }
  }
  const file = await mutateFile(ctx, call.file.id, release, call.file)
  return lockReply(call, file)
}

/** GET_LOCK: always 200 with X-WOPI-Lock, the current lock or '' when unlocked. */
export async function getLock(call: WopiCall): Promise<FastifyReply> {
  const view = currentLock(call.file.lock, call.ctx.clock.now())
  const value = view.state === 'locked' ? view.lockId : ''
  return call.reply.code(200).header('X-WOPI-Lock', value).send()
}
