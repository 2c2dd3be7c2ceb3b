import { createHash } from 'node:crypto'

/**
 * The lock ID of a user editing a file on a device (ONLYOFFICE's apps without Docs): the
 * same for every start by that user on that file, so reopening the document refreshes
 * their own lock instead of conflicting with it. Lock IDs are not secrets (WOPI answers a
 * conflict with the current one); the right to write comes from the caller's access.
 */
export function deviceEditLockId(fileId: string, userId: string): string {
  const digest = createHash('sha256').update(`${fileId}\u0000${userId}`).digest('base64url').slice(0, 22)
  return `folio-device-edit.${digest}`
}
