import type { Readable } from 'node:stream'
import { DomainError, isDomainError } from '../../core/errors.js'
import type { FileRecord, FolderRecord } from '../../core/entities.js'
import { authorize, folderView, type Principal } from '../access.js'
import type { AppContext } from '../context.js'
import type { ItemSelection } from './file-ops.js'
import { openBlob } from '../files/files.js'
import { folderFor } from './folders.js'
import { canConvert, convertedName, type ConversionTarget } from '../../core/conversion/formats.js'
import { extensionOf } from '../../core/names/file-names.js'
import { targetOf } from '../conversion/index.js'
import { renditionsOf } from '../conversion/renditions.js'

/** The most items one download may hold: the plan is kept in memory before any byte goes out. */
export const MAX_ARCHIVE_ENTRIES = 10_000

/** One entry of a download: a folder (kept even when empty) or a file at its path. */
export type ArchiveEntry =
  { kind: 'folder'; path: string } | { kind: 'file'; path: string; file: FileRecord; converted?: ConvertedEntry }

/** A file sent converted: its kept rendition, made while planning (so its size is known). */
export interface ConvertedEntry {
  target: ConversionTarget
  blobKey: string
  size: number
}

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
  const converted = await convertEntries(ctx, entries, items.convert)
  const only = folders.length === 1 && files.length === 0 ? folders[0] : undefined
  return { name: `${only?.title ?? 'Documents'}.zip`, entries: converted, files, folders }
}

/**
 * The entries with the files `convert` names sent converted, as ONLYOFFICE's
 * fileConvertIds: `<base>.<target>`, the current version's rendition (made now when it
 * was not yet, kept for the next download). A pair outside the format table is
 * CONVERSION_UNSUPPORTED; no converter, CONVERTER_OFF; an id the download does not hold
 * is left aside. A document the converter cannot read refuses the download, as its own
 * download-as would.
 */
async function convertEntries(
  ctx: AppContext,
  entries: ArchiveEntry[],
  convert: ReadonlyMap<string, string> | undefined,
): Promise<ArchiveEntry[]> {
  if (convert === undefined || convert.size === 0) return entries
  const renditions = renditionsOf(ctx)
  const result: ArchiveEntry[] = []
  for (const entry of entries) {
    const wanted = entry.kind === 'file' ? convert.get(entry.file.id) : undefined
    if (entry.kind === 'folder' || wanted === undefined) {
      result.push(entry)
      continue
    }
    const target = targetOf(wanted)
    const extension = extensionOf(entry.file.title)
    if (extension === target) {
      result.push(entry)
      continue
    }
    if (!canConvert(extension, target)) {
      throw new DomainError(
        'CONVERSION_UNSUPPORTED',
        `a .${extension || 'file without an extension'} cannot be converted to .${target}`,
      )
    }
    const { record, stream } = await renditions.open({ blobKey: entry.file.blobKey, extension }, target)
    stream.destroy()
    const folder = entry.path.slice(0, entry.path.length - entry.file.title.length)
    result.push({
      ...entry,
      path: `${folder}${convertedName(entry.file.title, target)}`,
      converted: { target, blobKey: record.blobKey, size: record.size },
    })
  }
  return result
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
    const page = await ctx.store.files.list({
      folderId: folder.id,
      offset,
      limit: PAGE,
      sortBy: 'title',
      descending: false,
    })
    for (const file of page.items) {
      if (await mayDownload(ctx, by, file)) add({ kind: 'file', path: `${path}/${file.title}`, file })
    }
    if (page.items.length < PAGE) break
  }
  for (let offset = 0; ; offset += PAGE) {
    const page = await ctx.store.folders.list({
      parentId: folder.id,
      offset,
      limit: PAGE,
      sortBy: 'title',
      descending: false,
    })
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
  converted?: ConvertedEntry,
): Promise<Readable | undefined> {
  const current = await ctx.store.files.findById(planned.id)
  if (current === undefined || !(await mayDownload(ctx, by, current))) return undefined
  return openBlob(ctx, converted?.blobKey ?? planned.blobKey)
}
