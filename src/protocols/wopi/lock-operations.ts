/**
 * Lock, UnlockAndRelock, RefreshLock, Unlock and GetLock: headers in, the application's lock
 * use cases (app/wopi/locks.ts, atomic compare-and-set decisions of core/lock), headers out.
 */
import type { FileRecord } from '../../core/entities.js'
import type { WopiCall } from './authorize.js'
import { readOldLock, requireLock } from './headers.js'
import { itemVersion } from './presenters.js'

/** 200 with X-WOPI-ItemVersion and no X-WOPI-Lock (a 200 never carries it). */
function lockReply(call: WopiCall, file: FileRecord): void {
  call.reply.header('X-WOPI-ItemVersion', itemVersion(file)).empty(200)
}

/**
 * LOCK: a plain Lock, or UnlockAndRelock when X-WOPI-OldLock is present (Microsoft: the two
 * share the override and are told apart by that header). Lock IDs are validated first (400).
 */
export async function lock(call: WopiCall): Promise<void> {
  const lockId = requireLock(call.request.headers)
  const oldLockId = readOldLock(call.request.headers)
  const file = await call.ctx.app.locks.lock(call.principal, call.file, lockId, oldLockId)
  lockReply(call, file)
}

/** REFRESH_LOCK: resets the 30-minute expiry of the lock the caller holds. */
export async function refreshLock(call: WopiCall): Promise<void> {
  const lockId = requireLock(call.request.headers)
  await call.ctx.app.locks.refresh(call.principal, call.file, lockId)
  call.reply.empty(200)
}

/** UNLOCK: releases the lock the caller holds (decided: 200, the file becomes unlocked). */
export async function unlock(call: WopiCall): Promise<void> {
  const lockId = requireLock(call.request.headers)
  const file = await call.ctx.app.locks.unlock(call.principal, call.file, lockId)
  lockReply(call, file)
}

/** GET_LOCK: always 200 with X-WOPI-Lock, the current lock or '' when unlocked. */
export async function getLock(call: WopiCall): Promise<void> {
  const value = await call.ctx.app.locks.current(call.principal, call.file)
  call.reply.header('X-WOPI-Lock', value).empty(200)
}
