/**
 * Access levels and what each allows. The numbers are ONLYOFFICE's FileShare values, the
 * ones the portal API speaks; the levels are what Folio decides with.
 */

/** ONLYOFFICE FileShare numbers as the portal API sends and returns them. */
export const FILE_SHARE = {
  None: 0,
  ReadWrite: 1,
  Read: 2,
  Restrict: 3,
  Review: 5,
  Comment: 6,
  FillForms: 7,
} as const

/** What a caller may do with one file, from most to least. */
export type AccessLevel = 'owner' | 'readwrite' | 'review' | 'comment' | 'fillForms' | 'read' | 'none'

/** What a principal may want to do with a file. */
export type FileAction =
  | 'read'
  | 'download'
  | 'edit'
  | 'rename'
  | 'delete'
  /** Delete into the owner's trash (see allowsTrashing); 'delete' is for good. */
  | 'trash'
  | 'move'
  | 'share'
  | 'comment'
  | 'review'
  | 'fillForms'

const VIEW: readonly FileAction[] = ['read', 'download']

const ALLOWED: Record<AccessLevel, ReadonlySet<FileAction>> = {
  owner: new Set<FileAction>([
    ...VIEW,
    'edit',
    'rename',
    'delete',
    'trash',
    'move',
    'share',
    'comment',
    'review',
    'fillForms',
  ]),
  readwrite: new Set<FileAction>([...VIEW, 'edit', 'rename', 'comment', 'review', 'fillForms']),
  review: new Set<FileAction>([...VIEW, 'review', 'comment']),
  comment: new Set<FileAction>([...VIEW, 'comment']),
  fillForms: new Set<FileAction>([...VIEW, 'fillForms']),
  read: new Set<FileAction>(VIEW),
  none: new Set<FileAction>(),
}

/** True when `level` allows `action`. */
export function allows(level: AccessLevel, action: FileAction): boolean {
  return ALLOWED[level].has(action)
}

/**
 * Whether a caller with `level` on an item may delete it into the trash, given their level on the folder
 * it lies in. The owner may; so may full access (ReadWrite) on an item inside a folder the
 * caller also has full access to, as ONLYOFFICE's "Full access" to a shared folder lets
 * people delete what is in it. An item shared on its own, and the shared folder itself
 * (whose parent is not shared), are deleted by their owner alone. Deleting moves the item
 * into its owner's trash.
 */
export function allowsTrashing(level: AccessLevel, parentLevel: AccessLevel): boolean {
  if (level === 'owner') return true
  return level === 'readwrite' && parentLevel === 'readwrite'
}

/** The level a stored FileShare number grants; Restrict (and anything unknown) grants none. */
export function levelOfShare(share: number): AccessLevel {
  switch (share) {
    case FILE_SHARE.ReadWrite:
      return 'readwrite'
    case FILE_SHARE.Read:
      return 'read'
    case FILE_SHARE.Review:
      return 'review'
    case FILE_SHARE.Comment:
      return 'comment'
    case FILE_SHARE.FillForms:
      return 'fillForms'
    default:
      return 'none'
  }
}

/** The FileShare number presented for a level (the owner shows as full access, ReadWrite). */
export function shareOfLevel(level: AccessLevel): number {
  switch (level) {
    case 'owner':
    case 'readwrite':
      return FILE_SHARE.ReadWrite
    case 'review':
      return FILE_SHARE.Review
    case 'comment':
      return FILE_SHARE.Comment
    case 'fillForms':
      return FILE_SHARE.FillForms
    case 'read':
      return FILE_SHARE.Read
    case 'none':
      return FILE_SHARE.Restrict
  }
}

/** FileShare numbers a person may be given (None removes the entry and is not one). */
export const GRANTABLE_SHARES: ReadonlySet<number> = new Set([1, 2, 3, 5, 6, 7])

/** FileShare numbers a link may carry. */
export const LINK_SHARES: ReadonlySet<number> = new Set([1, 2, 5, 6])

/**
 * The effective level of a user on a file: the owner has every right; otherwise the most
 * specific share entry wins (`entries` nearest first: the file's own, then its folder's,
 * then each folder further up; undefined where an item has no entry for the user), so a
 * Restrict on a file hides it even inside a folder shared ReadWrite; no entry, no access.
 */
export function userLevel(isOwner: boolean, entries: readonly (number | undefined)[]): AccessLevel {
  if (isOwner) return 'owner'
  for (const entry of entries) if (entry !== undefined) return levelOfShare(entry)
  return 'none'
}

/**
 * Whether the editor may change the document at all for this level: edit, review,
 * comment and fill forms are all done in ONLYOFFICE's edit mode.
 */
export function editsInEditor(level: AccessLevel): boolean {
  return allows(level, 'edit') || allows(level, 'review') || allows(level, 'comment') || allows(level, 'fillForms')
}
