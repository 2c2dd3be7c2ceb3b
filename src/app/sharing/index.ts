import { bind, type Bound } from '../bind.js'
import type { AppContext } from '../context.js'
import { sharedPage } from '../folders/shared-page.js'
import * as folderLinks from './folder-links.js'
import * as sharing from './sharing.js'

export type { ShareEntry, ShareLink } from './sharing.js'
export type { FolderLink, FolderLinkPage, FolderLinkSettings } from './folder-links.js'

/** Sharing with people and by link, and the people search behind it (see sharing.ts). */
export interface SharingService {
  list: Bound<typeof sharing.listFileShares>
  set: Bound<typeof sharing.setFileShares>
  listFolder: Bound<typeof sharing.listFolderShares>
  setFolder: Bound<typeof sharing.setFolderShares>
  sharedWith: Bound<typeof sharing.sharedWith>
  /** The '@share' section filtered, sorted and paged like a folder listing. */
  sharedPage: Bound<typeof sharedPage>
  getLink: Bound<typeof sharing.getShareLink>
  setLink: Bound<typeof sharing.setShareLink>
  linkPrincipal: Bound<typeof sharing.linkPrincipal>
  findPeople: Bound<typeof sharing.findPeople>
  sharingOf: Bound<typeof sharing.sharingOf>
  linkAccess: Bound<typeof sharing.linkAccess>
  /** A folder's link (owner and admins): read, set with its settings, turn off. */
  getFolderLink: Bound<typeof folderLinks.getFolderLink>
  setFolderLink: Bound<typeof folderLinks.setFolderLink>
  /** A folder below a folder link, as its guest sees it (folder-links.ts). */
  openFolderLink: Bound<typeof folderLinks.openFolderLink>
}

export function createSharingService(ctx: AppContext): SharingService {
  return {
    list: bind(ctx, sharing.listFileShares),
    set: bind(ctx, sharing.setFileShares),
    listFolder: bind(ctx, sharing.listFolderShares),
    setFolder: bind(ctx, sharing.setFolderShares),
    sharedWith: bind(ctx, sharing.sharedWith),
    sharedPage: bind(ctx, sharedPage),
    getLink: bind(ctx, sharing.getShareLink),
    setLink: bind(ctx, sharing.setShareLink),
    linkPrincipal: bind(ctx, sharing.linkPrincipal),
    findPeople: bind(ctx, sharing.findPeople),
    sharingOf: bind(ctx, sharing.sharingOf),
    linkAccess: bind(ctx, sharing.linkAccess),
    getFolderLink: bind(ctx, folderLinks.getFolderLink),
    setFolderLink: bind(ctx, folderLinks.setFolderLink),
    openFolderLink: bind(ctx, folderLinks.openFolderLink),
  }
}
