import type { Readable } from 'node:stream'
import { DomainError } from '../../core/errors.js'
import { deviceEditLockId } from '../../core/lock/device-edit-key.js'
import { currentLock } from '../../core/lock/lock-rules.js'
import type { FileRecord } from '../../core/entities.js'
import type { Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { fileFor, storeNewContents } from '../files/file-changes.js'
import { isInTrash } from '../folders/folders.js'
import { NO_LOCK_CLAIM, type LockClaim } from '../lock-policy.js'
import { lockFile, unlockFile } from '../wopi/locks.js'

/**
 * Editing a document on the device, without ONLYOFFICE Docs, as ONLYOFFICE's iOS app does
 * it: it asks for a key (`startedit`), keeps it alive while the document is open
 * (`trackeditfile`), saves the whole file (`saveediting`) and lets go (`isFinish`). The key
 * is a lock in Folio's one lock table, taken the way a WOPI client takes one, so the lock
 * table keeps the app and WOPI clients from overwriting each other: a WOPI PutFile with
 * another lock is refused while the app edits, and the app cannot start while a WOPI
 * client (or another user's app) holds the file.
 */

/** The key handed to the app: its device-editing lock ID (see core/lock/device-edit-key.ts). */
export const localEditKey = deviceEditLockId

function requireUser(by: Principal): void {
  if (by.kind !== 'user') throw new DomainError('FORBIDDEN', 'a share link cannot edit on a device')
}

/** Takes (or refreshes) the caller's device-editing lock; LOCK_MISMATCH while someone else holds one. */
export async function startLocalEdit(
  ctx: AppContext,
  by: Principal,
  fileId: string,
): Promise<{ file: FileRecord; key: string }> {
  requireUser(by)
  const file = await fileFor(ctx, by, fileId, 'edit')
  // A trashed file opens in no editor until it is restored.
  if (await isInTrash(ctx, file))
    throw new DomainError('INVALID_INPUT', 'the file is in the trash: restore it to edit it')
  const key = localEditKey(file.id, by.user.id)
  return { file: await lockFile(ctx, by, file, key), key }
}

/**
 * Keeps the caller's device-editing lock alive (taken again if it lapsed and nobody else
 * took the file), or with `finish` releases it (nothing to do when it lapsed already).
 * INVALID_INPUT for a key that is not the caller's; LOCK_MISMATCH when another holds the file.
 */
export async function trackLocalEdit(
  ctx: AppContext,
  by: Principal,
  fileId: string,
  key: string,
  finish: boolean,
): Promise<void> {
  requireUser(by)
  const file = await fileFor(ctx, by, fileId, 'edit')
  if (key !== localEditKey(file.id, by.user.id)) {
    throw new DomainError('INVALID_INPUT', 'docKeyForTrack is not the key startedit gave you', {
      field: 'docKeyForTrack',
    })
  }
  const view = currentLock(file.lock, ctx.clock.now())
  if (!finish) {
    await lockFile(ctx, by, file, key)
    return
  }
  if (view.state === 'unlocked') return
  await unlockFile(ctx, by, file, key)
}

/**
 * Stores a document edited on the device as the file's newest version, through the same
 * "store new contents" as every save. While the file is locked the save is judged as the
 * caller's device lock claims it (refused with LOCK_MISMATCH when someone else holds the
 * lock); on an unlocked file it is a plain save of the portal.
 */
export async function saveLocalEdit(
  ctx: AppContext,
  by: Principal,
  fileId: string,
  body: Readable,
  expectedSize: number | undefined,
): Promise<FileRecord> {
  let file: FileRecord
  try {
    requireUser(by)
    file = await fileFor(ctx, by, fileId, 'edit')
  } catch (error) {
    body.resume()
    throw error
  }
  const locked = currentLock(file.lock, ctx.clock.now()).state === 'locked'
  const claim: LockClaim = locked ? { kind: 'wopi', lockId: localEditKey(file.id, by.user.id) } : NO_LOCK_CLAIM
  return storeNewContents(ctx, file.id, {
    by,
    body,
    ...(expectedSize !== undefined ? { expectedSize } : {}),
    source: 'upload',
    claim,
    current: file,
  })
}
