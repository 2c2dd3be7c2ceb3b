import { DomainError } from '../core/errors.js'
import type { Permission } from '../core/tokens/signed-token.js'
import type { FileRecord, FolderRecord, FolderRootType, UserRecord } from '../core/entities.js'
import {
  allows,
  allowsTrashing,
  levelOfShare,
  userLevel,
  type AccessLevel,
  type FileAction,
} from '../core/sharing/access-levels.js'
import type { AppContext } from './context.js'

export type { AccessLevel, FileAction } from '../core/sharing/access-levels.js'

/**
 * Who is acting: a signed-in user, or a guest who came in through a file's link. `grant`
 * narrows what they may do through the door they came in by (a read-only WOPI token
 * grants 'read'). A link principal carries a guest identity in `user` (a stable id per
 * browser and the name the guest typed), never an account.
 */
export type Principal =
  | {
      kind: 'user'
      user: UserRecord
      /** The most the credential allows ('write' when absent). */
      grant?: Permission
      /** The client address the request came from, as the adapter saw it (for the audit trail). */
      address?: string
      /**
       * The level the WOPI gate decided on `fileId` from the one read of this request
       * (wopi.access), so the use case the request runs does not read the shares again.
       */
      checked?: { fileId: string; level: AccessLevel }
    }
  | { kind: 'link'; user: UserRecord; fileId: string; keyHash: string; grant?: Permission; address?: string }

/** A principal for a signed-in user acting with full rights of their account. */
export function userPrincipal(user: UserRecord, grant?: Permission): Principal {
  return grant === undefined ? { kind: 'user', user } : { kind: 'user', user, grant }
}

/**
 * What a user's access to a file is decided from, besides the file: the section its
 * folder lies in and the most specific share entry naming the user (the file's own, else
 * the nearest folder's above it). The store reads them in one statement on every WOPI call
 * (FileRepository.findWithAccess); accessLevel reads them one by one otherwise.
 */
export interface UserAccessFacts {
  rootType: FolderRootType | undefined
  shareAccess: number | undefined
}

/**
 * The rule for a user, written once: the owner has every right (in their trash too);
 * nobody else reaches a file in a trash; anyone else has the level of the most specific
 * share entry naming them, and no access without one.
 */
export function userAccessFrom(file: FileRecord, userId: string, facts: UserAccessFacts): AccessLevel {
  if (file.ownerId === userId) return 'owner'
  if (facts.rootType === 'trash') return 'none'
  return facts.shareAccess === undefined ? 'none' : userLevel(false, [facts.shareAccess])
}

/**
 * The share facts of a user who does not own `file`, read from the stored path and shares:
 * the walk stops at the first entry, nearest first (and is not made in a trash).
 */
async function readUserFacts(ctx: AppContext, file: FileRecord, userId: string): Promise<UserAccessFacts> {
  const path = await ctx.store.folders.path(file.folderId)
  const rootType = path[0]?.rootType ?? undefined
  if (rootType === 'trash') return { rootType, shareAccess: undefined }
  const own = await ctx.store.shares.find('file', file.id, userId)
  if (own !== undefined) return { rootType, shareAccess: own.access }
  for (let i = path.length - 1; i >= 0; i--) {
    const folder = path[i]
    const entry = folder === undefined ? undefined : await ctx.store.shares.find('folder', folder.id, userId)
    if (entry !== undefined) return { rootType, shareAccess: entry.access }
  }
  return { rootType, shareAccess: undefined }
}

/**
 * What `principal` may do with `file`, read from the stored shares and link on every call
 * (nothing is remembered between calls, so a revoked share or link is refused at once).
 * A user: see userAccessFrom. A link guest: the link's current access while the link is
 * on and its key is the one presented, for that file only.
 */
export async function accessLevel(ctx: AppContext, principal: Principal, file: FileRecord): Promise<AccessLevel> {
  return levelWithoutReading(principal, file) ?? readAccessLevel(ctx, principal, file)
}

/**
 * The level of a user decided without reading anything, or undefined: the owner's, from the
 * file alone, and the level the WOPI gate decided for this request's file from its one read.
 */
function levelWithoutReading(principal: Principal, file: FileRecord): AccessLevel | undefined {
  if (principal.kind !== 'user') return undefined
  // A disabled account reaches nothing, its own files included, whichever door it comes
  // through with a user record read now (a callback of an editor it had open, say).
  if (principal.user.disabled) return 'none'
  if (file.ownerId === principal.user.id) return 'owner'
  if (principal.checked?.fileId === file.id) return principal.checked.level
  return undefined
}

/** accessLevel for what levelWithoutReading cannot decide: a link guest, a sharee. */
async function readAccessLevel(ctx: AppContext, principal: Principal, file: FileRecord): Promise<AccessLevel> {
  if (principal.kind === 'link') {
    if (principal.fileId !== file.id) return 'none'
    return workingLinkLevel(ctx, file, principal.keyHash)
  }
  const userId = principal.user.id
  return userAccessFrom(file, userId, await readUserFacts(ctx, file, userId))
}

/** What a link with a given key gives on one item now. */
export interface LinkGrant {
  level: AccessLevel
  /** True when the link leaves its guests viewing only (no download). */
  denyDownload: boolean
  /** The folder a folder link was made on, when the grant comes from one. */
  linkedFolderId?: string
}

const NO_GRANT: LinkGrant = { level: 'none', denyDownload: false }

/**
 * The access the link with this key hash gives to `file` now: the file's own link, else a
 * folder link on a folder above it (see folderLinkGrant). 'none' once the link is off or
 * replaced, and while its owner is disabled (a disabled user's links end with their
 * sessions, and work again when they are enabled).
 */
export async function linkGrant(ctx: AppContext, file: FileRecord, keyHash: string): Promise<LinkGrant> {
  const link = await ctx.store.shareLinks.find(file.id)
  if (link && link.revokedAt === null && link.keyHash === keyHash) {
    const owner = await ctx.store.users.findById(file.ownerId)
    if (!owner || owner.disabled) return NO_GRANT
    return { level: levelOfShare(link.access), denyDownload: false }
  }
  if (file.folderId === null) return NO_GRANT
  const { grant } = await folderLinkGrant(ctx, file.folderId, keyHash)
  return grant
}

/**
 * The rule of folder links, written once: the folder link whose key has this hash reaches
 * `folderId` when it works (not turned off, not expired, its folder's owner not disabled)
 * and its folder is `folderId` or a folder above it on the path read now, outside any
 * trash. So an item moved out of the linked folder, or trashed with it or on its own, is
 * out of reach at the very next request. `visiblePath` runs from the linked folder down to
 * `folderId` (a guest never sees above the linked folder).
 */
export async function folderLinkGrant(
  ctx: AppContext,
  folderId: string,
  keyHash: string,
): Promise<{ grant: LinkGrant; visiblePath: FolderRecord[] }> {
  const none = { grant: NO_GRANT, visiblePath: [] }
  const link = await ctx.store.folderLinks.findByKeyHash(keyHash)
  if (!link || link.revokedAt !== null) return none
  if (link.expiresAt !== null && link.expiresAt <= ctx.clock.now()) return none
  const path = await ctx.store.folders.path(folderId)
  if (path[0]?.rootType !== 'my') return none
  const at = path.findIndex((folder) => folder.id === link.folderId)
  const linked = path[at]
  if (at < 0 || linked === undefined) return none
  const owner = await ctx.store.users.findById(linked.ownerId)
  if (!owner || owner.disabled) return none
  return {
    grant: { level: levelOfShare(link.access), denyDownload: link.denyDownload, linkedFolderId: link.folderId },
    visiblePath: path.slice(at),
  }
}

/** The level linkGrant gives (what WOPI tokens and editor links of a guest are checked against). */
export async function workingLinkLevel(ctx: AppContext, file: FileRecord, keyHash: string): Promise<AccessLevel> {
  return (await linkGrant(ctx, file, keyHash)).level
}

const READ_ACTIONS: ReadonlySet<FileAction> = new Set(['read', 'download'])

/**
 * The one access decision of Folio: may `principal` do `action` on `file`? Returns the
 * caller's access level when yes. Someone with no access at all gets NOT_FOUND exactly
 * like for a missing file, so ids of other people's files cannot be probed; someone who
 * may see the file but not do this gets FORBIDDEN. Administrators manage the sharing of
 * any file (action 'share') but otherwise see only what is theirs or shared with them.
 * A read-only credential may only read and download.
 */
export async function authorize(
  ctx: AppContext,
  principal: Principal,
  action: FileAction,
  file: FileRecord,
): Promise<AccessLevel> {
  if (principal.kind === 'link') return authorizeLink(ctx, principal, action, file)
  // Awaited only when something must be read (every WOPI call knows its level already).
  const level = levelWithoutReading(principal, file) ?? (await readAccessLevel(ctx, principal, file))
  const admin = principal.kind === 'user' && principal.user.isAdmin
  if (admin && action === 'share') return level
  if (level === 'none') throw new DomainError('NOT_FOUND', 'file not found')
  if (principal.grant === 'read' && !READ_ACTIONS.has(action)) {
    throw new DomainError('FORBIDDEN', 'this access token is read-only')
  }
  if (action === 'trash' && level !== 'owner') {
    if (!allowsTrashing(level, await folderLevel(ctx, principal, file.folderId))) {
      throw new DomainError('FORBIDDEN', 'your access to this file does not allow delete')
    }
    return level
  }
  if (!allows(level, action)) {
    throw new DomainError('FORBIDDEN', `your access to this file does not allow ${action}`)
  }
  return level
}

/**
 * authorize for a link guest: the grant of their link on this file only (a folder link's
 * guest names the file inside it they act on), never delete, trash, move or share, and no
 * download (nor anything that hands the contents out) when the link denies downloads.
 */
async function authorizeLink(
  ctx: AppContext,
  principal: Extract<Principal, { kind: 'link' }>,
  action: FileAction,
  file: FileRecord,
): Promise<AccessLevel> {
  const grant = principal.fileId === file.id ? await linkGrant(ctx, file, principal.keyHash) : NO_GRANT
  if (grant.level === 'none') throw new DomainError('NOT_FOUND', 'file not found')
  if (principal.grant === 'read' && !READ_ACTIONS.has(action)) {
    throw new DomainError('FORBIDDEN', 'this access token is read-only')
  }
  if (grant.denyDownload && action === 'download') {
    throw new DomainError('FORBIDDEN', 'this link does not allow downloads')
  }
  if (!allows(grant.level, action)) {
    throw new DomainError('FORBIDDEN', `your access to this file does not allow ${action}`)
  }
  return grant.level
}

/** The caller's level on a folder by its id ('none' when it is gone or out of reach). */
async function folderLevel(ctx: AppContext, principal: Principal, folderId: string | null): Promise<AccessLevel> {
  if (folderId === null || principal.kind !== 'user') return 'none'
  const folder = await ctx.store.folders.findById(folderId)
  return folder === undefined ? 'none' : (await folderView(ctx, principal, folder)).level
}

/**
 * The file `fileId` names, when `by` may do `action` on it: the one way a use case reads a
 * file it acts on by id (NOT_FOUND for a missing file and for one `by` may not see, alike;
 * FORBIDDEN when `by` sees it but may not do this).
 */
export async function fileFor(ctx: AppContext, by: Principal, fileId: string, action: FileAction): Promise<FileRecord> {
  const file = await ctx.store.files.findById(fileId)
  if (!file) throw new DomainError('NOT_FOUND', 'file not found')
  await authorize(ctx, by, action, file)
  return file
}

/** What a principal may want to do with a folder. */
export type FolderAction = 'read' | 'create' | 'rename' | 'delete' | 'trash' | 'move'

/** The file action each folder action needs: adding to a folder is editing it. */
const FOLDER_NEEDS: Record<FolderAction, FileAction> = {
  read: 'read',
  create: 'edit',
  rename: 'rename',
  delete: 'delete',
  trash: 'trash',
  move: 'move',
}

/** A user's share entries by item (`file:<id>` or `folder:<id>`), read in one query. */
export async function shareEntriesOf(ctx: AppContext, userId: string): Promise<Map<string, number>> {
  const entries = new Map<string, number>()
  for (const share of await ctx.store.shares.listForUser(userId)) {
    entries.set(`${share.itemKind}:${share.itemId}`, share.access)
  }
  return entries
}

/** How a caller sees a folder: their level, the part of its path they can see, its section. */
export interface FolderView {
  level: AccessLevel
  /**
   * The folders from the highest one the caller can see down to this one: from the root
   * for the owner, from the shared folder for someone it reaches through a share.
   */
  visiblePath: FolderRecord[]
  /** 'my' or 'trash' for the owner; 'share' for everyone else. */
  section: 'my' | 'trash' | 'share'
  /** The caller's share entries as read for this decision (not read for the owner). */
  entries?: Map<string, number>
}

/**
 * What `principal` may do with `folder`, by the rule files follow: the owner everything
 * (in their trash too), anyone else the most specific share entry on the folder or a folder
 * above it, nothing inside a trash, and nothing at all for a link guest (a link opens one
 * file). Read from the stored shares on every call, so a removed share is refused at once.
 */
export async function folderView(ctx: AppContext, principal: Principal, folder: FolderRecord): Promise<FolderView> {
  const path = await ctx.store.folders.path(folder.id)
  const rootType = path[0]?.rootType
  if (folder.ownerId === principal.user.id && principal.kind === 'user') {
    return { level: 'owner', visiblePath: path, section: rootType === 'trash' ? 'trash' : 'my' }
  }
  const none: FolderView = { level: 'none', visiblePath: [], section: 'share' }
  if (principal.kind !== 'user' || rootType !== 'my') return none
  const entries = await shareEntriesOf(ctx, principal.user.id)
  // Root first: each folder's level is its own entry, else the nearest one above.
  const levels: AccessLevel[] = []
  let nearest: number | undefined
  for (const step of path) {
    nearest = entries.get(`folder:${step.id}`) ?? nearest
    levels.push(userLevel(false, [nearest]))
  }
  const level = levels[levels.length - 1] ?? 'none'
  if (level === 'none') return none
  let top = levels.length - 1
  while (top > 0 && levels[top - 1] !== 'none') top--
  return { level, visiblePath: path.slice(top), section: 'share', entries }
}

/**
 * The access decision for folders: the caller's view of the folder when their level allows
 * `action` (reading needs any access, adding files or folders ReadWrite, renaming
 * ReadWrite, deleting and moving ownership). No access at all answers NOT_FOUND, as for
 * a missing folder; a read-only credential may only read (FORBIDDEN).
 */
export async function authorizeFolder(
  ctx: AppContext,
  principal: Principal,
  action: FolderAction,
  folder: FolderRecord,
): Promise<FolderView> {
  const view = await folderView(ctx, principal, folder)
  if (view.level === 'none') throw new DomainError('NOT_FOUND', 'folder not found')
  if (principal.grant === 'read' && action !== 'read') {
    throw new DomainError('FORBIDDEN', 'this access token is read-only')
  }
  if (action === 'trash' && view.level !== 'owner') {
    if (!allowsTrashing(view.level, await folderLevel(ctx, principal, folder.parentId))) {
      throw new DomainError('FORBIDDEN', 'your access to this folder does not allow delete')
    }
    return view
  }
  if (!allows(view.level, FOLDER_NEEDS[action])) {
    throw new DomainError('FORBIDDEN', `your access to this folder does not allow ${action}`)
  }
  return view
}
