import { DomainError } from '../../core/errors.js'
import type { FileRecord, FolderLinkRecord, FolderRecord } from '../../core/entities.js'
import { deriveLinkKey, hashLinkKey } from '../../core/sharing/link-keys.js'
import { FILE_SHARE, LINK_SHARES, type AccessLevel } from '../../core/sharing/access-levels.js'
import { folderLinkGrant, type Principal } from '../access.js'
import { principalActor, recordAudit } from '../audit.js'
import type { AppContext } from '../context.js'
import { manageableFolder } from './sharing.js'

/** A folder's working link as its owner (or an admin) sees it. */
export interface FolderLink {
  folderId: string
  /** The key a guest presents (`doc=` in the link's address). */
  key: string
  /** FileShare number: what the link gives on each file below the folder. */
  access: number
  denyDownload: boolean
  /** When it stops working (ms); null: never. */
  expiresAt: number | null
}

/** What a folder link is set to: access 0 (None) turns it off. */
export interface FolderLinkSettings {
  access: number
  denyDownload?: boolean
  /** When it stops working (ms); null or undefined: never. */
  expiresAt?: number | null
}

/**
 * The key of a folder's link, derived from the signing secret, the folder and the moment the
 * link was made (as a file link's, in a namespace of its own): only its hash is stored, the
 * owner can be shown it again, and a link made anew has a new key.
 */
function folderLinkKey(ctx: AppContext, folderId: string, createdAt: number): string {
  return deriveLinkKey(ctx.signingSecret, `folder:${folderId}`, createdAt)
}

function present(ctx: AppContext, link: FolderLinkRecord | undefined): FolderLink | undefined {
  if (!link || link.revokedAt !== null) return undefined
  return {
    folderId: link.folderId,
    key: folderLinkKey(ctx, link.folderId, link.createdAt),
    access: link.access,
    denyDownload: link.denyDownload,
    expiresAt: link.expiresAt,
  }
}

/** The folder's link while it is on (an expired one too: its owner sees it and may renew it). */
export async function getFolderLink(ctx: AppContext, by: Principal, folderId: string): Promise<FolderLink | undefined> {
  const folder = await manageableFolder(ctx, by, folderId)
  return present(ctx, await ctx.store.folderLinks.find(folder.id))
}

/**
 * Turns the folder's link on (Read 2, Comment 6, Review 5 or ReadWrite 1 on each file below
 * it; downloads allowed unless `denyDownload`; an expiry in the future or none), changes a
 * working link's settings (same key), or turns it off (None 0; undefined is returned).
 * Owner or admin only; bad settings are INVALID_INPUT and change nothing. A guest never
 * changes the folder itself (no upload, rename or delete through a link).
 */
export async function setFolderLink(
  ctx: AppContext,
  by: Principal,
  folderId: string,
  settings: FolderLinkSettings,
): Promise<FolderLink | undefined> {
  const folder = await manageableFolder(ctx, by, folderId)
  const subject = { targetType: 'folder' as const, targetId: folder.id, targetName: folder.title }
  if (settings.access === FILE_SHARE.None) {
    await ctx.store.folderLinks.revoke(folder.id, ctx.clock.now())
    await recordAudit(ctx, 'link-changed', principalActor(by), subject, 'link turned off')
    return undefined
  }
  if (!LINK_SHARES.has(settings.access)) {
    throw new DomainError('INVALID_INPUT', 'a link carries Read (2), Comment (6), Review (5) or ReadWrite (1)', {
      field: 'access',
    })
  }
  const now = ctx.clock.now()
  const expiresAt = settings.expiresAt ?? null
  if (expiresAt !== null && expiresAt <= now) {
    throw new DomainError('INVALID_INPUT', 'the expiration date must lie in the future', { field: 'expirationDate' })
  }
  const wanted = { access: settings.access, denyDownload: settings.denyDownload === true, expiresAt }
  if (!(await ctx.store.folderLinks.update(folder.id, wanted))) {
    const keyHash = hashLinkKey(folderLinkKey(ctx, folder.id, now))
    await ctx.store.folderLinks.put({ folderId: folder.id, keyHash, ...wanted, createdAt: now, revokedAt: null })
  }
  const detail = `link access ${wanted.access}${wanted.denyDownload ? ', no download' : ''}${
    expiresAt === null ? '' : `, until ${new Date(expiresAt).toISOString()}`
  }`
  await recordAudit(ctx, 'link-changed', principalActor(by), subject, detail)
  return present(ctx, await ctx.store.folderLinks.find(folder.id))
}

/** Most sub-folders and most files one link page lists (the rest are counted). */
export const LINK_PAGE_LIMIT = 500

/** A folder as a link's guest sees it. */
export interface FolderLinkPage {
  folder: FolderRecord
  /** From the linked folder down to this one: the guest sees nothing above it. */
  path: FolderRecord[]
  /** What the link gives on each file. */
  access: AccessLevel
  denyDownload: boolean
  /** The display name of the linked folder's owner. */
  ownerName: string
  folders: FolderRecord[]
  files: FileRecord[]
  /** How many of each there are (more than listed beyond LINK_PAGE_LIMIT). */
  folderTotal: number
  fileTotal: number
}

/**
 * The contents of `folderId` for whoever holds the folder link `key`: the linked folder or a
 * folder below it, read through the access policy's rule for folder links on every request
 * (folderLinkGrant), its sub-folders and files by title. NOT_FOUND for a key that reaches
 * no such folder (off, expired, unknown, moved out, trashed), alike.
 */
export async function openFolderLink(ctx: AppContext, folderId: string, key: string): Promise<FolderLinkPage> {
  const { grant, visiblePath } = await folderLinkGrant(ctx, folderId, hashLinkKey(key))
  const folder = visiblePath[visiblePath.length - 1]
  const linked = visiblePath[0]
  if (grant.level === 'none' || folder === undefined || linked === undefined) {
    throw new DomainError('NOT_FOUND', 'folder not found')
  }
  const order = { offset: 0, limit: LINK_PAGE_LIMIT, sortBy: 'title' as const, descending: false }
  const [folders, files, names] = await Promise.all([
    ctx.store.folders.list({ parentId: folder.id, ...order }),
    ctx.store.files.list({ folderId: folder.id, ...order }),
    ctx.store.users.findById(linked.ownerId),
  ])
  return {
    folder,
    path: visiblePath,
    access: grant.level,
    denyDownload: grant.denyDownload,
    ownerName: names?.displayName ?? '',
    folders: folders.items,
    files: files.items,
    folderTotal: folders.total,
    fileTotal: files.total,
  }
}
