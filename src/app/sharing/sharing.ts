import { deriveLinkKey, hashLinkKey } from '../../core/sharing/link-keys.js'
import { DomainError } from '../../core/errors.js'
import type { FileRecord, FolderRecord, ShareItemKind, ShareLinkRecord, UserRecord } from '../../core/entities.js'
import {
  FILE_SHARE,
  GRANTABLE_SHARES,
  LINK_SHARES,
  levelOfShare,
  type AccessLevel,
} from '../../core/sharing/access-levels.js'
import {
  accessLevel,
  authorize,
  fileFor,
  linkGrant,
  userPrincipal,
  workingLinkLevel,
  type Principal,
} from '../access.js'
import type { AppContext } from '../context.js'
import { fileSubject, principalActor, recordAudit } from '../audit.js'
import { prepareShareDrop } from '../editor-notices.js'
import { getFile } from '../files/files.js'

/** One line of a file's sharing list. */
export interface ShareEntry {
  user: Pick<UserRecord, 'id' | 'displayName'>
  /** FileShare number (the owner shows as ReadWrite). */
  access: number
  isOwner: boolean
}

/** One change asked for: give `userId` this FileShare number (None, 0, removes their entry). */
export interface ShareChange {
  userId: string
  access: number
}

/**
 * Who has access to a file: the owner first, then each person with an entry, oldest
 * grant first. Only the owner and admins see it (FORBIDDEN for others who can see the
 * file, NOT_FOUND for everyone else).
 */
export async function listFileShares(ctx: AppContext, by: Principal, fileId: string): Promise<ShareEntry[]> {
  const file = await fileFor(ctx, by, fileId, 'share')
  return sharesOf(ctx, { kind: 'file', id: file.id, ownerId: file.ownerId, title: file.title })
}

/** A file or folder whose sharing is read or changed. */
interface SharedItem {
  kind: ShareItemKind
  id: string
  ownerId: string
  /** The file's or folder's name, for the audit trail. */
  title: string
}

/**
 * A folder whose sharing `by` may manage: its owner or an admin (NOT_FOUND for anyone
 * else, and for a root folder, which is never shared: share the folders inside it).
 */
export async function manageableFolder(ctx: AppContext, by: Principal, folderId: string): Promise<SharedItem> {
  const folder = await ctx.store.folders.findById(folderId)
  const mayManage = by.kind === 'user' && (by.user.isAdmin || folder?.ownerId === by.user.id)
  if (!folder || !mayManage || folder.parentId === null) throw new DomainError('NOT_FOUND', 'folder not found')
  return { kind: 'folder', id: folder.id, ownerId: folder.ownerId, title: folder.title }
}

/** Who has access to a folder and everything below it: as listFileShares. */
export async function listFolderShares(ctx: AppContext, by: Principal, folderId: string): Promise<ShareEntry[]> {
  return sharesOf(ctx, await manageableFolder(ctx, by, folderId))
}

/**
 * Applies sharing changes to a folder (owner or admin only), as setFileShares. An entry
 * applies to everything below the folder unless a nearer folder or the file has its own.
 */
export async function setFolderShares(
  ctx: AppContext,
  by: Principal,
  folderId: string,
  changes: readonly ShareChange[],
): Promise<ShareEntry[]> {
  return applyShares(ctx, by, await manageableFolder(ctx, by, folderId), changes)
}

async function sharesOf(ctx: AppContext, item: SharedItem): Promise<ShareEntry[]> {
  const owner = await ctx.store.users.findById(item.ownerId)
  const entries: ShareEntry[] = [
    { user: { id: item.ownerId, displayName: owner?.displayName ?? '' }, access: FILE_SHARE.ReadWrite, isOwner: true },
  ]
  for (const share of await ctx.store.shares.listForItem(item.kind, item.id)) {
    const user = await ctx.store.users.findById(share.userId)
    // An entry of a removed account grants nothing to anyone and is not shown.
    if (!user) continue
    entries.push({ user: { id: user.id, displayName: user.displayName }, access: share.access, isOwner: false })
  }
  return entries
}

/**
 * Applies sharing changes to a file (owner or admin only) and returns the new list. Every
 * change is checked before any is stored: an unknown user or access number, or the owner
 * named, is INVALID_INPUT and changes nothing. Removing an entry takes effect on the very
 * next request of that person, through any door.
 */
export async function setFileShares(
  ctx: AppContext,
  by: Principal,
  fileId: string,
  changes: readonly ShareChange[],
): Promise<ShareEntry[]> {
  const file = await fileFor(ctx, by, fileId, 'share')
  return applyShares(ctx, by, { kind: 'file', id: file.id, ownerId: file.ownerId, title: file.title }, changes)
}

async function applyShares(
  ctx: AppContext,
  by: Principal,
  item: SharedItem,
  changes: readonly ShareChange[],
): Promise<ShareEntry[]> {
  for (const change of changes) {
    if (change.access !== FILE_SHARE.None && !GRANTABLE_SHARES.has(change.access)) {
      throw new DomainError('INVALID_INPUT', `access ${change.access} is not a FileShare value (0, 1, 2, 3, 5, 6, 7)`, {
        field: 'share',
      })
    }
    if (change.userId === item.ownerId) {
      throw new DomainError('INVALID_INPUT', 'the owner always has full access', { field: 'share' })
    }
    if (change.access !== FILE_SHARE.None && !(await ctx.store.users.findById(change.userId))) {
      throw new DomainError('INVALID_INPUT', 'no such user to share with', { field: 'share' })
    }
  }
  const now = ctx.clock.now()
  // Editors open for someone whose access this lowers are dropped once it is stored.
  const dropLowered = await prepareShareDrop(
    ctx,
    item,
    changes.map((change) => change.userId),
  )
  for (const change of changes) {
    if (change.access === FILE_SHARE.None) {
      await ctx.store.shares.remove(item.kind, item.id, change.userId)
    } else {
      await ctx.store.shares.put({
        itemKind: item.kind,
        itemId: item.id,
        userId: change.userId,
        access: change.access,
        grantedBy: by.user.id,
        grantedAt: now,
      })
    }
  }
  dropLowered()
  if (changes.length > 0) {
    const detail = changes.map((change) => `${change.userId}: ${change.access}`).join(', ')
    const subject = { targetType: item.kind, targetId: item.id, targetName: item.title }
    await recordAudit(ctx, 'share-changed', principalActor(by), subject, `access ${detail}`)
  }
  return sharesOf(ctx, item)
}

/** A file shared with the caller and the access they have to it now. */
export interface SharedFile {
  file: FileRecord
  access: AccessLevel
}

/** A folder shared with the caller and the access its entry gives. */
export interface SharedFolder {
  folder: FolderRecord
  access: AccessLevel
}

/**
 * What others have shared with `by`, newest grant first: the files `by` can still open,
 * and the folders whose entry gives access (not in a trash; Restrict entries are not listed).
 */
export async function sharedWith(
  ctx: AppContext,
  by: Principal,
): Promise<{ files: SharedFile[]; folders: SharedFolder[] }> {
  const files: SharedFile[] = []
  const folders: SharedFolder[] = []
  for (const share of await ctx.store.shares.listForUser(by.user.id)) {
    if (share.itemKind === 'folder') {
      const path = await ctx.store.folders.path(share.itemId)
      const folder = path[path.length - 1]
      const access = levelOfShare(share.access)
      if (folder && path[0]?.rootType !== 'trash' && access !== 'none') folders.push({ folder, access })
      continue
    }
    const file = await ctx.store.files.findById(share.itemId)
    if (!file) continue
    const access = await accessLevel(ctx, userPrincipal(by.user), file)
    if (access !== 'none') files.push({ file, access })
  }
  return { files, folders }
}

/**
 * A link's key, derived from the signing secret, the file and the moment the link was
 * made: it cannot be guessed, only its hash is stored, and the owner can be shown it again.
 * A link made anew (after being turned off) has a new key.
 */
function linkKey(ctx: AppContext, fileId: string, createdAt: number): string {
  return deriveLinkKey(ctx.signingSecret, fileId, createdAt)
}

/** A working link: its key and access. */
export interface ShareLink {
  fileId: string
  key: string
  access: number
}

function present(ctx: AppContext, link: ShareLinkRecord | undefined): ShareLink | undefined {
  if (!link || link.revokedAt !== null) return undefined
  return { fileId: link.fileId, key: linkKey(ctx, link.fileId, link.createdAt), access: link.access }
}

/** The file's working link, or undefined (owner and admins only). */
export async function getShareLink(ctx: AppContext, by: Principal, fileId: string): Promise<ShareLink | undefined> {
  const file = await fileFor(ctx, by, fileId, 'share')
  return present(ctx, await ctx.store.shareLinks.find(file.id))
}

/**
 * Turns the file's link on with `access` (Read 2, Comment 6, Review 5, ReadWrite 1), changes
 * the access of the working link (same key), or turns it off (None 0; undefined is
 * returned). Takes effect at once, for editors already opened through the link too.
 */
export async function setShareLink(
  ctx: AppContext,
  by: Principal,
  fileId: string,
  access: number,
): Promise<ShareLink | undefined> {
  const file = await fileFor(ctx, by, fileId, 'share')
  if (access === FILE_SHARE.None) {
    await ctx.store.shareLinks.revoke(file.id, ctx.clock.now())
    await recordAudit(ctx, 'link-changed', principalActor(by), fileSubject(file), 'link turned off')
    return undefined
  }
  if (!LINK_SHARES.has(access)) {
    throw new DomainError('INVALID_INPUT', 'a link carries Read (2), Comment (6), Review (5) or ReadWrite (1)', {
      field: 'share',
    })
  }
  if (!(await ctx.store.shareLinks.setAccess(file.id, access))) {
    const createdAt = ctx.clock.now()
    const keyHash = hashLinkKey(linkKey(ctx, file.id, createdAt))
    await ctx.store.shareLinks.put({ fileId: file.id, keyHash, access, createdAt, revokedAt: null })
  }
  await recordAudit(ctx, 'link-changed', principalActor(by), fileSubject(file), `link access ${access}`)
  return present(ctx, await ctx.store.shareLinks.find(file.id))
}

/** The id a link guest is known by: stable per browser, never an account's id. */
export const GUEST_ID_PREFIX = 'guest-'

/**
 * The identity of a link guest (`id` with its GUEST_ID_PREFIX): a user record that is no
 * account, has no password and is never stored.
 */
export function guestUser(id: string, name: string, now: number): UserRecord {
  return {
    id,
    userName: '',
    displayName: name,
    email: '',
    isAdmin: false,
    passwordHash: '',
    tokenGeneration: 0,
    wopiUserInfo: '',
    disabled: false,
    createdAt: now,
    updatedAt: now,
  }
}

/**
 * The principal of a guest who came in with `key`, through the file's own link or a link of
 * a folder above it. Each request checks the link's current state through the access
 * policy, so this only names who they are; NOT_FOUND when the key reaches no such file
 * (nothing is revealed). `denyDownload` and `linkedFolderId` say what the page offers.
 */
export async function linkPrincipal(
  ctx: AppContext,
  fileId: string,
  key: string,
  guest: { id: string; name: string },
): Promise<{
  principal: Principal
  file: FileRecord
  access: AccessLevel
  denyDownload: boolean
  linkedFolderId?: string
}> {
  const file = await getFile(ctx, fileId)
  const user = guestUser(GUEST_ID_PREFIX + guest.id, guest.name, ctx.clock.now())
  const principal: Principal = { kind: 'link', user, fileId: file.id, keyHash: hashLinkKey(key) }
  const grant = await linkGrant(ctx, file, principal.keyHash)
  if (grant.level === 'none') throw new DomainError('NOT_FOUND', 'file not found')
  return {
    principal,
    file,
    access: grant.level,
    denyDownload: grant.denyDownload,
    ...(grant.linkedFolderId === undefined ? {} : { linkedFolderId: grant.linkedFolderId }),
  }
}

/** The level a stored link gives, for presenting it. */
export function linkLevel(link: ShareLink): AccessLevel {
  return levelOfShare(link.access)
}

/** One person as every signed-in user may see them; the e-mail only for admins. */
export interface PersonRef {
  id: string
  displayName: string
  email?: string
}

/** Most people one search returns. */
const PEOPLE_LIMIT = 100

/**
 * People a signed-in user may share with: those whose display name or user name contains
 * `filter` (without regard to case; everyone when empty), ordered by display name. Others'
 * e-mail addresses are shown to admins only, so only an admin's search looks in them too.
 * A disabled account is not offered (the shares it has stay, and are listed with the item).
 */
export async function findPeople(ctx: AppContext, by: Principal, filter: string): Promise<PersonRef[]> {
  if (by.kind !== 'user') throw new DomainError('UNAUTHENTICATED', 'sign in to look people up')
  const needle = filter.trim().toLocaleLowerCase('en')
  const users = await ctx.store.users.list()
  return users
    .filter(
      (u) =>
        !u.disabled &&
        (needle === '' ||
          u.displayName.toLocaleLowerCase('en').includes(needle) ||
          u.userName.toLocaleLowerCase('en').includes(needle) ||
          (by.user.isAdmin && u.email.toLocaleLowerCase('en').includes(needle))),
    )
    .sort((a, b) => a.displayName.localeCompare(b.displayName, 'en', { sensitivity: 'base' }))
    .slice(0, PEOPLE_LIMIT)
    .map((u) =>
      by.user.isAdmin || u.id === by.user.id
        ? { id: u.id, displayName: u.displayName, email: u.email }
        : { id: u.id, displayName: u.displayName },
    )
}

/**
 * The access a share link with this key hash gives to the file now ('none' once it is off
 * or replaced, or while the file's owner is disabled): what the download and callback
 * links of an editor opened through it are checked against on every use.
 */
export async function linkAccess(ctx: AppContext, fileId: string, keyHash: string): Promise<AccessLevel> {
  const file = await ctx.store.files.findById(fileId)
  return file ? workingLinkLevel(ctx, file, keyHash) : 'none'
}

/** What an owner sees of the sharing of one of their items, for the marker on its row. */
export interface ItemSharing {
  /** The people it is shared with (their own entries on the item). */
  people: PersonRef[]
  /** The FileShare of the item's link while it is on (a folder's: and not expired). */
  link?: number
}

/**
 * The sharing of the caller's own items among `files` and `folders`, keyed `file:<id>` or
 * `folder:<id>` (items shared with nobody and others' items are left out: what a sharee
 * sees of someone else's sharing is nothing). Two reads for the whole listing, plus one
 * per distinct person named.
 */
export async function sharingOf(
  ctx: AppContext,
  by: Principal,
  files: readonly FileRecord[],
  folders: readonly FolderRecord[],
): Promise<Map<string, ItemSharing>> {
  const result = new Map<string, ItemSharing>()
  if (by.kind !== 'user') return result
  const fileIds = files.filter((f) => f.ownerId === by.user.id).map((f) => f.id)
  const folderIds = folders.filter((f) => f.ownerId === by.user.id).map((f) => f.id)
  const [fileShares, folderShares, links, folderLinks] = await Promise.all([
    ctx.store.shares.listForItems('file', fileIds),
    ctx.store.shares.listForItems('folder', folderIds),
    ctx.store.shareLinks.listWorking(fileIds),
    ctx.store.folderLinks.listWorking(folderIds),
  ])
  const names = new Map<string, string>()
  for (const share of [...fileShares, ...folderShares]) {
    if (names.has(share.userId)) continue
    names.set(share.userId, (await ctx.store.users.findById(share.userId))?.displayName ?? '')
  }
  const entry = (key: string): ItemSharing => {
    const known = result.get(key)
    if (known) return known
    const made: ItemSharing = { people: [] }
    result.set(key, made)
    return made
  }
  for (const share of [...fileShares, ...folderShares]) {
    entry(`${share.itemKind}:${share.itemId}`).people.push({
      id: share.userId,
      displayName: names.get(share.userId) ?? '',
    })
  }
  for (const link of links) entry(`file:${link.fileId}`).link = link.access
  const now = ctx.clock.now()
  for (const link of folderLinks) {
    if (link.expiresAt === null || link.expiresAt > now) entry(`folder:${link.folderId}`).link = link.access
  }
  return result
}
