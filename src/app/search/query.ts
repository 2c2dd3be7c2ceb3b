import type { FileRecord, FolderRecord } from '../../core/entities.js'
import { DomainError } from '../../core/errors.js'
import { namePiecesOf, queryTermsOf, snippetOf } from '../../core/search/terms.js'
import type { SearchScope } from '../../ports/search-index.js'
import { accessLevel, folderView, shareEntriesOf, type AccessLevel, type Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { rootFolder } from '../roots.js'

/** Where a search looks. */
export type SearchPlace =
  /** The caller's documents and everything shared with them (not the trash). */
  | { kind: 'everywhere' }
  /** The caller's trash. */
  | { kind: 'trash' }
  /** One folder's subtree; the caller has been allowed to read it. */
  | { kind: 'subtree'; folder: FolderRecord }

export interface SearchInput {
  text: string
  /** Match the words inside documents too, not only names. */
  inContent: boolean
  where: SearchPlace
  /** Most items returned (folders and files together). */
  limit: number
}

export type SearchItem =
  | { kind: 'folder'; folder: FolderRecord; level: AccessLevel }
  | {
      kind: 'file'
      file: FileRecord
      level: AccessLevel
      /** Its name matched (name matches come first). */
      byName: boolean
      /** Where its words matched, when they did. */
      snippet?: string
    }

/** The folders and files the search runs over, read now from the caller's shares. */
async function scopeOf(ctx: AppContext, by: Principal, where: SearchPlace): Promise<SearchScope> {
  const userId = by.user.id
  if (where.kind === 'subtree') return { folderIds: [where.folder.id], fileIds: [] }
  if (where.kind === 'trash') return { folderIds: [(await rootFolder(ctx, userId, 'trash')).id], fileIds: [] }
  const folderIds = [(await rootFolder(ctx, userId, 'my')).id]
  const fileIds: string[] = []
  for (const [item] of await shareEntriesOf(ctx, userId)) {
    if (item.startsWith('folder:')) folderIds.push(item.slice('folder:'.length))
    else if (item.startsWith('file:')) fileIds.push(item.slice('file:'.length))
  }
  return { folderIds, fileIds }
}

/**
 * Searches what `by` may read, by name and (with inContent) by the words inside: folders
 * whose names match, then files whose names match, then files whose words match, best
 * first. Every item found is put to the access policy before it is shown, so a share
 * removed a moment ago hides its items at once. A query with no words finds nothing.
 */
export async function searchItems(ctx: AppContext, by: Principal, input: SearchInput): Promise<SearchItem[]> {
  if (by.kind !== 'user') throw new DomainError('FORBIDDEN', 'a share link does not allow searching')
  const namePieces = namePiecesOf(input.text)
  const terms = input.inContent ? queryTermsOf(input.text) : []
  if (namePieces.length === 0 && terms.length === 0) return []
  const results = await ctx.store.search.search({
    scope: await scopeOf(ctx, by, input.where),
    namePieces,
    // Everywhere, files are found by their indexed words (title and text), so a search does
    // not read the title of every file the caller may see; a folder's filter scans its subtree.
    scanFileTitles: input.where.kind !== 'everywhere',
    ...(input.inContent ? { contentTerms: terms } : {}),
    limit: input.limit,
  })
  const items: SearchItem[] = []
  for (const folder of results.folders) {
    const { level } = await folderView(ctx, by, folder)
    if (level !== 'none') items.push({ kind: 'folder', folder, level })
  }
  for (const hit of results.files) {
    const level = await accessLevel(ctx, by, hit.file)
    if (level === 'none') continue
    const snippet = hit.textStart === undefined ? undefined : snippetOf(hit.textStart, terms)
    items.push({
      kind: 'file',
      file: hit.file,
      level,
      byName: hit.byName,
      ...(snippet === undefined ? {} : { snippet }),
    })
  }
  return items.slice(0, input.limit)
}
