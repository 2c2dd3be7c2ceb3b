import type { FileRecord, FolderCounts, FolderRecord } from '../core/entities.js'
import type { AccessLevel, Principal } from './access.js'
import type { AppContext } from './context.js'
import type { FolderListQuery } from './folders.js'
import { sharedWith } from './sharing.js'

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
  updatedAt: number
  size: number
}

// The same order the stores give a folder's listing: the field, then the id, one direction.
function compare(a: Sortable, b: Sortable, sortBy: FolderListQuery['sortBy']): number {
  const x = sortBy === 'title' ? a.title.toLowerCase() : sortBy === 'created' ? a.createdAt : sortBy === 'size' ? a.size : a.updatedAt
  const y = sortBy === 'title' ? b.title.toLowerCase() : sortBy === 'created' ? b.createdAt : sortBy === 'size' ? b.size : b.updatedAt
  if (x < y) return -1
  if (x > y) return 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/**
 * What others shared with `by`, filtered, sorted and paged as any folder listing is
 * (folders first, then files). The whole list is one person's share entries, so it is
 * read and ordered here; the counts are read for the page's folders only.
 */
export async function sharedPage(ctx: AppContext, by: Principal, query: FolderListQuery): Promise<SharedPage> {
  const { files: sharedFiles, folders: sharedFolders } = await sharedWith(ctx, by)
  const needle = (query.titleContains ?? '').toLowerCase()
  const named = (title: string) => needle === '' || title.toLowerCase().includes(needle)
  const filter = query.filter
  const suffixes = filter.kind === 'files-only' ? filter.suffixes : undefined
  const direction = query.descending ? -1 : 1

  const folders = filter.kind === 'files-only'
    ? []
    : sharedFolders
      .filter((s) => named(s.folder.title))
      .sort((a, b) => direction * compare({ ...a.folder, size: 0 }, { ...b.folder, size: 0 }, query.sortBy))
  const files = filter.kind === 'folders-only'
    ? []
    : sharedFiles
      .filter((s) => named(s.file.title))
      .filter((s) => suffixes === undefined || suffixes.some((suffix) => s.file.title.toLowerCase().endsWith(suffix)))
      .sort((a, b) => direction * compare(a.file, b.file, query.sortBy))

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
  const counts = pageFolders.length === 0 ? new Map<string, FolderCounts>() : await ctx.store.folders.counts(pageFolders.map((f) => f.id))
  return {
    folders: pageFolders,
    counts,
    files: pageFiles,
    access,
    total: folders.length + files.length,
    sectionCounts: { files: sharedFiles.length, folders: sharedFolders.length },
  }
}
