import type { FileRecord, FolderRecord } from '../../core/entities.js'
import { titleHas } from '../../core/search/terms.js'
import type { FileHit, SearchResults } from '../../ports/search-index.js'
import { FILE_COLUMNS, toFile, type FileRow } from './file-rows.js'

/** Characters of a document's text handed back for its snippet. */
export const TEXT_START_CHARS = 65_536

/** The file columns qualified with `files.`, for statements that join other tables. */
export const QUALIFIED_FILE_COLUMNS = FILE_COLUMNS.map((column) => `files.${column}`).join(', ')

export const FOLDER_COLUMNS = [
  'id',
  'owner_id',
  'parent_id',
  'title',
  'title_key',
  'root_type',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
  'revision',
  'trashed_at',
  'origin_folder_id',
]
  .map((column) => `folders.${column}`)
  .join(', ')

/** A content match as both drivers read it: the file's columns, its rank, its text's start. */
export type ContentRow = FileRow & { rank: number | string; text_start: string }

/** True when every term holds only letters and digits (what src/core/search/terms.ts makes). */
function plainTerms(terms: readonly string[]): boolean {
  return terms.every((term) => /^[\p{L}\p{N}]+$/u.test(term))
}

/**
 * The FTS5 query for folded terms: each one a quoted string (so no word is ever read as
 * an operator), all required, the last one a prefix. Refuses anything but plain words.
 */
export function fts5Query(terms: readonly string[]): string {
  if (!plainTerms(terms)) throw new Error('search terms must be plain words')
  return terms.map((term, i) => `"${term}"${i === terms.length - 1 ? ' *' : ''}`).join(' ')
}

/** The same query for PostgreSQL's to_tsquery: quoted lexemes joined by &, the last a prefix. */
export function tsQuery(terms: readonly string[]): string {
  if (!plainTerms(terms)) throw new Error('search terms must be plain words')
  return terms.map((term, i) => `'${term}'${i === terms.length - 1 ? ':*' : ''}`).join(' & ')
}

/**
 * Name matches first: the titles scanned (in the order read), then the indexed matches
 * whose current title holds the terms, then the rest by rank; each file once.
 */
export function mergeHits(
  folders: FolderRecord[],
  byName: FileRecord[],
  byContent: ContentRow[],
  terms: readonly string[],
): SearchResults {
  const hits = new Map<string, FileHit>()
  for (const file of byName) hits.set(file.id, { file, byName: true, rank: 0 })
  const indexed: FileHit[] = []
  for (const row of byContent) {
    const known = hits.get(row.id)
    const rank = Number(row.rank)
    if (known !== undefined) {
      known.rank = rank
      known.textStart = row.text_start
      continue
    }
    const file = toFile(row)
    indexed.push({ file, byName: titleHas(file.title, terms), rank, textStart: row.text_start })
  }
  // Stable: within each group the store's order (best rank first) stays.
  indexed.sort((a, b) => Number(b.byName) - Number(a.byName))
  for (const hit of indexed) hits.set(hit.file.id, hit)
  return { folders, files: [...hits.values()] }
}
