import { DomainError } from '../../core/errors.js'
import type { FileRecord, FolderRootType, UserRecord } from '../../core/entities.js'
import { isWellFormedId } from '../../core/ids.js'
import { allows as allowsAction } from '../../core/sharing/access-levels.js'
import type { Permission } from '../../core/tokens/signed-token.js'
import { linkGrant, userAccessFrom, type AccessLevel, type Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { inTrashSection } from '../folders/folders.js'
import { guestUser } from '../sharing/sharing.js'
import type { Tokens } from '../tokens.js'

/** One authorized WOPI request: the file, the token's user and what the token allows. */
export interface WopiAccess {
  file: FileRecord
  user: UserRecord
  /** The token's permission, narrowed to 'read' when the user's access does not allow editing. */
  permission: Permission
  principal: Principal
  /** The user's access level on the file now. */
  level: AccessLevel
  /** A link guest whose link denies downloads (the client is asked to hide print and export). */
  viewOnly?: boolean
}

/**
 * A trashed file is gone as far as editors are concerned, until it is restored (the access
 * policy refuses it to anyone but its owner already).
 */
function refuseTrashed(file: FileRecord, rootType: FolderRootType | undefined): void {
  if (inTrashSection(file, rootType)) throw new DomainError('NOT_FOUND', 'file not found')
}

/**
 * A WOPI call with a link guest's token: the link's access is read on every call, so
 * turning the link off (or making a new one) refuses the very next call, and a lowered
 * access stops writes at once.
 */
async function linkGuestAccess(
  ctx: AppContext,
  file: FileRecord,
  guestId: string,
  name: string,
  keyHash: string,
  granted: Permission,
  address: string | undefined,
): Promise<WopiAccess> {
  const { level, denyDownload } = await linkGrant(ctx, file, keyHash)
  if (level === 'none') throw new DomainError('NOT_FOUND', 'file not found')
  const user = guestUser(guestId, name, ctx.clock.now())
  const permission = granted === 'write' && allowsAction(level, 'edit') ? 'write' : 'read'
  const principal: Principal = { kind: 'link', user, fileId: file.id, keyHash, grant: permission, address }
  return { file, user, permission, principal, level, viewOnly: denyDownload }
}

/**
 * Checks an access token sent for `fileId`: genuine, unexpired and issued for this file
 * (UNAUTHENTICATED), the file present (NOT_FOUND), the token's user present (UNAUTHENTICATED).
 * `address`, the client's, rides with the principal for the audit trail.
 */
export async function wopiAccess(
  ctx: AppContext,
  tokens: Tokens,
  token: string,
  fileId: string,
  address?: string,
): Promise<WopiAccess> {
  const claims = tokens.verifyWopi(token, ctx.clock.now())
  if (claims.fileId !== fileId) {
    throw new DomainError('UNAUTHENTICATED', 'the access token was issued for another file')
  }
  // One read for the whole check: the file, the token's user, the section of the
  // file's folder and, for anyone but the owner, the share that reaches the file.
  const read = isWellFormedId(fileId) ? await ctx.store.files.findWithAccess(fileId, claims.userId) : undefined
  if (!read) throw new DomainError('NOT_FOUND', 'file not found')
  const { file } = read
  if (claims.link !== undefined) {
    refuseTrashed(file, read.rootType)
    return linkGuestAccess(ctx, file, claims.userId, claims.name ?? '', claims.link, claims.permission, address)
  }
  // Read on every call: a removed user's tokens stop working at once, on every instance.
  const { user } = read
  if (!user) throw new DomainError('UNAUTHENTICATED', 'the user of this token no longer exists')
  // Disabling moves the generation on too; the flag is in the row already read.
  if (user.disabled) throw new DomainError('UNAUTHENTICATED', 'the user of this token is disabled')
  // Compared with the row read now, so the verified-token memo cannot outlive a bump.
  if ((claims.generation ?? 0) !== user.tokenGeneration) {
    throw new DomainError('UNAUTHENTICATED', 'the access token was ended by a change to its user')
  }
  // The user's access is decided from the stored shares read now, never from the
  // token: a revoked share refuses the very next request, and a token issued for
  // writing writes only while the user's access still allows editing.
  const level = userAccessFrom(file, user.id, read)
  if (level === 'none') throw new DomainError('NOT_FOUND', 'file not found')
  if (level === 'owner') refuseTrashed(file, read.rootType)
  const permission = claims.permission === 'write' && allowsAction(level, 'edit') ? 'write' : 'read'
  const principal: Principal = { kind: 'user', user, grant: permission, address, checked: { fileId: file.id, level } }
  return { file, user, permission, principal, level }
}
