/**
 * What the signed-in person may do with an item, from its `access` field (ONLYOFFICE's
 * FileShare number): 0 on one's own items, else what a share gives. Folio decides on every
 * call; this only keeps buttons that would be refused off the screen.
 */

import { allows, allowsTrashing, levelOfShare, type AccessLevel } from '../../src/core/sharing/access-levels.js'
import { t } from './i18n/index.js'

/** FileShare numbers the share dialog offers, with the catalog keys of the names people see. */
export const SHARE_LEVELS = [
  { access: 1, labelKey: 'access.full' },
  { access: 5, labelKey: 'access.review' },
  { access: 6, labelKey: 'access.comment' },
  { access: 7, labelKey: 'access.fillForms' },
  { access: 2, labelKey: 'access.readOnly' },
] as const

/** FileShare numbers a link may carry. */
export const LINK_LEVELS = [
  { access: 2, labelKey: 'link.view' },
  { access: 6, labelKey: 'link.comment' },
  { access: 5, labelKey: 'link.review' },
  { access: 1, labelKey: 'link.edit' },
] as const

/** The name of a FileShare number ("Read only"). */
export function accessLabel(access: number): string {
  if (access === 0) return t('access.owner')
  if (access === 3) return t('access.none')
  return t(SHARE_LEVELS.find((level) => level.access === access)?.labelKey ?? 'access.readOnly')
}

/** The buttons an item gets. */
export interface Allowed {
  /** Rename and new contents (ReadWrite and the owner). */
  rename: boolean
  /** Move and share: the owner's alone. */
  manage: boolean
  /**
   * Delete into the trash: the owner, and full access inside a folder also shared with full
   * access (Folio's own rule, allowsTrashing, decides both here and on the server).
   */
  trash: boolean
  /** Open in the editor (every level reads; the editor gets that level's permissions). */
  open: boolean
  /** Copy elsewhere: reading the item is enough (the destination is checked on its own). */
  copy: boolean
  /**
   * Convert a legacy document to OOXML beside it ("Convert and edit"): the file's download
   * right and the right to add files to its folder (full access to it, or one's own).
   */
  convert: boolean
}

/** The level a FileShare number stands for (0: the owner's own). */
function levelOf(access: number): AccessLevel {
  return access === 0 ? 'owner' : levelOfShare(access)
}

/**
 * What `access` allows, as the portal's access policy decides it; `parentAccess` is the
 * caller's access to the folder the item is listed in (undefined in a section such as
 * Shared with me, which is no folder).
 */
export function allowed(access: number | undefined, parentAccess?: number): Allowed {
  const level = access ?? 0
  const trash = allowsTrashing(levelOf(level), parentAccess === undefined ? 'none' : levelOf(parentAccess))
  const reads = allows(levelOf(level), 'read')
  // Adding files to the folder: full access to it, or (no folder known, as in Shared with
  // me) one's own item, whose folder is one's own.
  const mayAdd = parentAccess === undefined ? level === 0 : parentAccess === 0 || parentAccess === 1
  const convert = allows(levelOf(level), 'download') && mayAdd
  return { rename: level === 0 || level === 1, manage: level === 0, open: level !== 3, trash, copy: reads, convert }
}
