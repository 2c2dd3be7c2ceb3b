/**
 * The operation table: which handler serves which (path, X-WOPI-Override). POST requests
 * are dispatched on X-WOPI-Override; a missing override is 400, an unknown one 501
 * (Microsoft: "501 Not Implemented – Operation not supported").
 */
import { DomainError } from '../../core/errors.js'
import type { WopiCall } from './authorize.js'
import { getFile, putFile } from './content-operations.js'
import { checkFileInfo, deleteFile, putUserInfo, renameFile } from './file-operations.js'
import { getLock, lock, refreshLock, unlock } from './lock-operations.js'
import { putRelativeFile } from './put-relative.js'

/** Answers through call.reply; throws DomainError for the error table (errors.ts). */
export type WopiHandler = (call: WopiCall) => Promise<void>

export interface WopiOperation {
  /** Microsoft's name of the operation, for logs and operation-specific error headers. */
  name: string
  handler: WopiHandler
}

/** GET /wopi/files/{id} and GET /wopi/files/{id}/contents. */
export const CHECK_FILE_INFO: WopiOperation = { name: 'CheckFileInfo', handler: checkFileInfo }
export const GET_FILE: WopiOperation = { name: 'GetFile', handler: getFile }

/** POST /wopi/files/{id}, by X-WOPI-Override; LOCK with X-WOPI-OldLock is UnlockAndRelock. */
export const FILE_OVERRIDES: ReadonlyMap<string, WopiOperation> = new Map([
  ['LOCK', { name: 'Lock', handler: lock }],
  ['UNLOCK', { name: 'Unlock', handler: unlock }],
  ['REFRESH_LOCK', { name: 'RefreshLock', handler: refreshLock }],
  ['GET_LOCK', { name: 'GetLock', handler: getLock }],
  ['PUT_RELATIVE', { name: 'PutRelativeFile', handler: putRelativeFile }],
  ['RENAME_FILE', { name: 'RenameFile', handler: renameFile }],
  ['DELETE', { name: 'DeleteFile', handler: deleteFile }],
  ['PUT_USER_INFO', { name: 'PutUserInfo', handler: putUserInfo }],
])

/** POST /wopi/files/{id}/contents, by X-WOPI-Override. */
export const CONTENTS_OVERRIDES: ReadonlyMap<string, WopiOperation> = new Map([
  ['PUT', { name: 'PutFile', handler: putFile }],
])

/** The operation for an override, or the 400/501 the request deserves. */
export function operationFor(table: ReadonlyMap<string, WopiOperation>, override: string | undefined): WopiOperation {
  if (override === undefined) {
    throw new DomainError('INVALID_INPUT', 'X-WOPI-Override is required', {
      field: 'X-WOPI-Override',
    })
  }
  const operation = table.get(override)
  if (!operation) {
    throw new DomainError('NOT_SUPPORTED', `X-WOPI-Override ${override} is not supported here`)
  }
  return operation
}
