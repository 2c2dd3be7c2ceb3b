import type { FileRecord, FolderCounts, FolderRecord } from '../../core/entities.js'
import type { AccessLevel, Principal } from '../access.js'
import type { AppContext } from '../context.js'
import type { FolderListQuery } from './folders.js'
import { sharedWith } from '../sharing/sharing.js'

/** One page of the '@share' section, in the shape of a folder listing's contents. */
export interface SharedPage {
  folders: FolderRecord[]
  /** Direct content counts of the listed folders. */
  counts: Map<string, FolderCounts>
  files: FileRecord[]
  /** The caller's access to each listed folder and file, by id. */
  access: Map<string, AccessLevel>
  /** Folders and files matching the filter, over all pages. */
  total: number
  /** How many files and folders the whole section holds, unfiltered. */
  sectionCounts: FolderCounts
}

interface Sortable {
  id: string
  title: string
  createdAt: number
  createdBy: string
  updatedAt: number
  size: number
}

/** The extension a type sort orders by: after the last dot, '' when there is none. */
export function extensionOf(title: string): string {
  const key = title.toLowerCase()
  const dot = key.lastIndexOf('.')
  return dot < 0 ? '' : key.slice(dot + 1)
}

/** The text keys of the sorts that compare text; the stores order these by bytes. */
function textKeys(
  item: Sortable,
  sortBy: FolderListQuery['sortBy'],
  authors: ReadonlyMap<string, string>,
  isFile: boolean,
): string[] | undefined {
  const title = item.title.toLowerCase()
  if (sortBy === 'title' || (sortBy === 'size' && !isFile)) return [title]
  if (sortBy === 'type') return isFile ? [extensionOf(item.title), title] : [title]
  if (sortBy === 'author') return [authors.get(item.createdBy) ?? '', title]
  return undefined
}

// UTF-8 byte order, as SQLite and PostgreSQL's "C" collation compare text.
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

// The same order the stores give a folder's listing: the field, then the id, one direction.
function compare(
  a: Sortable,
  b: Sortable,
  sortBy: FolderListQuery['sortBy'],
  authors: ReadonlyMap<string, string>,
  isFile: boolean,
): number {
  const x = textKeys(a, sortBy, authors, isFile)
  const y = textKeys(b, sortBy, authors, isFile)
  if (x !== undefined && y !== undefined) {
    for (let i = 0; i < x.length; i++) {
      const order = compareBytes(x[i] ?? '', y[i] ?? '')
      if (order !== 0) return order
    }
  } else {
    const p = sortBy === 'created' ? a.createdAt : sortBy === 'size' ? a.size : a.updatedAt
    const q = sortBy === 'created' ? b.createdAt : sortBy === 'size' ? b.size : b.updatedAt
    if (p !== q) return p < q ? -1 : 1
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** Display names of the creators of what is listed, when the sort needs them. */
async function authorNames(
  ctx: AppContext,
  sortBy: FolderListQuery['sortBy'],
  ids: readonly string[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>()
  if (sortBy !== 'author') return names
  for (const id of new Set(ids)) {
    const user = await ctx.store.users.findById(id)
    if (user !== undefined) names.set(id, user.displayName)
  }
  return names
}

/**
 * What others shared with `by`, filtered, sorted and paged as any folder listing is
 * (folders first, then files). The whole list is one person's share entries, so it is
 * read and ordered here; the counts are read for the page's folders only.
 */
export async function sharedPage(ctx: AppContext, by: Principal, query: FolderListQuery): Promise<SharedPage> {
  // Everything here is someone else's: "shared by me" finds none of it.
  const { files: sharedFiles, folders: sharedFolders } =
    query.sharedOnly === true ? { files: [], folders: [] } : await sharedWith(ctx, by)
  const needle = (query.titleContains ?? '').toLowerCase()
  const named = (title: string) => needle === '' || title.toLowerCase().includes(needle)
  const filter = query.filter
  const suffixes = filter.kind === 'files-only' ? filter.suffixes : undefined
  const direction = query.descending ? -1 : 1
  const authors = await authorNames(ctx, query.sortBy, [
    ...sharedFolders.map((s) => s.folder.createdBy),
    ...sharedFiles.map((s) => s.file.createdBy),
  ])

  const folders =
    filter.kind === 'files-only'
      ? []
      : sharedFolders
          .filter((s) => named(s.folder.title))
          .sort(
            (a, b) =>
              direction * compare({ ...a.folder, size: 0 }, { ...b.folder, size: 0 }, query.sortBy, authors, false),
          )
  const files =
    filter.kind === 'folders-only'
      ? []
      : sharedFiles
          .filter((s) => named(s.file.title))
          .filter(
            (s) => suffixes === undefined || suffixes.some((suffix) => s.file.title.toLowerCase().endsWith(suffix)),
          )
          .sort((a, b) => direction * compare(a.file, b.file, query.sortBy, authors, true))

  const page = [...folders, ...files].slice(query.offset, query.offset + query.limit)
  const pageFolders: FolderRecord[] = []
  const pageFiles: FileRecord[] = []
  const access = new Map<string, AccessLevel>()
  for (const item of page) {
    if ('folder' in item) {
      pageFolders.push(item.folder)
      access.set(item.folder.id, item.access)
    } else {
      pageFiles.push(item.file)
      access.set(item.file.id, item.access)
    }
  }
  const counts =
    pageFolders.length === 0
      ? new Map<string, FolderCounts>()
      : await ctx.store.folders.counts(pageFolders.map((f) => f.id))
  return {
    folders: pageFolders,
    counts,
    files: pageFiles,
    access,
    total: folders.length + files.length,
    sectionCounts: { files: sharedFiles.length, folders: sharedFolders.length },
  }
}
