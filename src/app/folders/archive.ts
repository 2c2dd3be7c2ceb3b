import type { Readable } from 'node:stream'
import { DomainError, isDomainError } from '../../core/errors.js'
import type { FileRecord, FolderRecord } from '../../core/entities.js'
import { authorize, folderView, type Principal } from '../access.js'
import type { AppContext } from '../context.js'
import type { ItemSelection } from './file-ops.js'
import { openBlob } from '../files/files.js'
import { folderFor } from './folders.js'

/** The most items one download may hold: the plan is kept in memory before any byte goes out. */
export const MAX_ARCHIVE_ENTRIES = 10_000

/** One entry of a download: a folder (kept even when empty) or a file at its path. */
export type ArchiveEntry =
  | { kind: 'folder'; path: string }
  | { kind: 'file'; path: string; file: FileRecord }

/** What a download of several items holds, decided before its first byte is sent. */
export interface ArchivePlan {
  /** The archive's name: the one folder's title, else a name for a selection. */
  name: string
  entries: ArchiveEntry[]
  /** The items selected, as found (for the operation's report). */
  files: FileRecord[]
  folders: FolderRecord[]
}

/** Page size of the walk through a folder's children. */
const PAGE = 500

/** The error of a selection past MAX_ARCHIVE_ENTRIES, before anything is sent. */
function tooMany(): DomainError {
  return new DomainError(
    'INVALID_INPUT',
    `a download may hold at most ${MAX_ARCHIVE_ENTRIES.toLocaleString('en')} files and folders; download fewer at once`,
  )
}

/** True when the access policy lets `by` download `file` (others are left out, unseen). */
async function mayDownload(ctx: AppContext, by: Principal, file: FileRecord): Promise<boolean> {
  try {
    await authorize(ctx, by, 'download', file)
    return true
  } catch (error) {
    if (isDomainError(error) && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN')) return false
    throw error
  }
}

/**
 * Plans the download of files and folders as one archive: every selected item the caller
 * may download (a selected item they may not is refused, as its own download would be),
 * and inside each selected folder, all the way down, what the access policy lets them
 * read: what someone a folder is shared with cannot see is left out, not refused. Paths
 * are the items' titles joined by '/', which titles never contain.
 */
export async function planArchive(ctx: AppContext, by: Principal, items: ItemSelection): Promise<ArchivePlan> {
  if (items.fileIds.length + items.folderIds.length === 0) {
    throw new DomainError('INVALID_INPUT', 'choose at least one file or folder to download')
  }
  const entries: ArchiveEntry[] = []
  const add = (entry: ArchiveEntry) => {
    if (entries.length >= MAX_ARCHIVE_ENTRIES) throw tooMany()
    entries.push(entry)
  }
  const folders: FolderRecord[] = []
  for (const folderId of items.folderIds) {
    const folder = await folderFor(ctx, by, folderId, 'read')
    folders.push(folder)
    await addFolder(ctx, by, folder, folder.title, add)
  }
  const files: FileRecord[] = []
  for (const fileId of items.fileIds) {
    const file = await ctx.store.files.findById(fileId)
    if (file === undefined) throw new DomainError('NOT_FOUND', 'file not found')
    await authorize(ctx, by, 'download', file)
    files.push(file)
    add({ kind: 'file', path: file.title, file })
  }
  const only = folders.length === 1 && files.length === 0 ? folders[0] : undefined
  return { name: `${only?.title ?? 'Documents'}.zip`, entries, files, folders }
}

/** Adds `folder` at `path` and everything inside it the caller may read. */
async function addFolder(
  ctx: AppContext,
  by: Principal,
  folder: FolderRecord,
  path: string,
  add: (entry: ArchiveEntry) => void,
): Promise<void> {
  add({ kind: 'folder', path })
  for (let offset = 0; ; offset += PAGE) {
    const page = await ctx.store.files.list({ folderId: folder.id, offset, limit: PAGE, sortBy: 'title', descending: false })
    for (const file of page.items) {
      if (await mayDownload(ctx, by, file)) add({ kind: 'file', path: `${path}/${file.title}`, file })
    }
    if (page.items.length < PAGE) break
  }
  for (let offset = 0; ; offset += PAGE) {
    const page = await ctx.store.folders.list({ parentId: folder.id, offset, limit: PAGE, sortBy: 'title', descending: false })
    for (const child of page.items) {
      if (child.ownerId !== by.user.id && (await folderView(ctx, by, child)).level === 'none') continue
      await addFolder(ctx, by, child, `${path}/${child.title}`, add)
    }
    if (page.items.length < PAGE) break
  }
}

/**
 * The bytes of one planned file, opened when the archive reaches it. The file is read
 * again and the access policy asked again at that moment: a download takes minutes, and
 * a share removed, a file trashed or deleted meanwhile must keep that file's bytes from
 * the caller as it would keep a download of the file alone. Undefined when refused. The
 * bytes are the planned version's (its size is already in the archive's length).
 */
export async function openArchiveEntry(
  ctx: AppContext,
  by: Principal,
  planned: FileRecord,
): Promise<Readable | undefined> {
  const current = await ctx.store.files.findById(planned.id)
  if (current === undefined || !(await mayDownload(ctx, by, current))) return undefined
  return openBlob(ctx, planned.blobKey)
}
