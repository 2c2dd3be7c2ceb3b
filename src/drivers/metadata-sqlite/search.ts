import type Database from 'better-sqlite3'
import type { FileRecord } from '../../core/entities.js'
import type { IndexedText, SearchIndexRepository, SearchQuery } from '../../ports/search-index.js'
import { toFile, type FileRow } from '../metadata-shared/file-rows.js'
import { toFolder, type FolderRow } from '../metadata-shared/folder-rows.js'
import {
  FOLDER_COLUMNS,
  fts5Query,
  mergeHits,
  QUALIFIED_FILE_COLUMNS,
  TEXT_START_CHARS,
  type ContentRow,
} from '../metadata-shared/search-rows.js'

/** The folders in scope and every folder under them; the files named in scope. */
const SCOPE = `WITH RECURSIVE scope (id) AS (
    SELECT value FROM json_each(@folders)
    UNION SELECT folders.id FROM folders JOIN scope ON folders.parent_id = scope.id
  )`
const FILE_IN_SCOPE = '(files.folder_id IN (SELECT id FROM scope) OR files.id IN (SELECT value FROM json_each(@files)))'

/** How much more a word of the title weighs than one of the text. */
const TITLE_WEIGHT = 10.0

/** `instr` matches each piece literally: % _ and \ are plain characters. */
function nameFilter(count: number): string {
  return Array.from({ length: count }, (_, i) => `AND instr(title_key, @p${i}) > 0`).join(' ')
}

/** The search index in SQLite: `search_documents` with its FTS5 table `search_terms`. */
export function createSearchRepository(db: Database.Database): SearchIndexRepository {
  const fileExists = db.prepare<[string], { found: number }>('SELECT 1 AS found FROM files WHERE id = ?')
  const stored = db.prepare<[string], { id: number; version: number }>(
    'SELECT id, version FROM search_documents WHERE file_id = ?',
  )
  const insertDocument = db.prepare<[string, number, string], { id: number }>(
    'INSERT INTO search_documents (file_id, version, body) VALUES (?, ?, ?) RETURNING id',
  )
  const updateDocument = db.prepare<[number, string, number]>(
    'UPDATE search_documents SET version = ?, body = ? WHERE id = ?',
  )
  const dropTerms = db.prepare<[number]>('DELETE FROM search_terms WHERE rowid = ?')
  const insertTerms = db.prepare<[number, string, string]>(
    'INSERT INTO search_terms (rowid, title, terms) VALUES (?, ?, ?)',
  )
  const remove = db.prepare<[string]>('DELETE FROM search_documents WHERE file_id = ?')
  const fileIds = db.prepare<[string, number], { id: string }>('SELECT id FROM files WHERE id > ? ORDER BY id LIMIT ?')
  const staleIds = db.prepare<[string, number], { id: string }>(`SELECT files.id FROM files
      LEFT JOIN search_documents AS d ON d.file_id = files.id
    WHERE files.id > ? AND (d.version IS NULL OR d.version < files.version)
    ORDER BY files.id LIMIT ?`)
  const stats = db.prepare<[], { documents: number; chars: number }>(
    'SELECT count(*) AS documents, coalesce(sum(length(body)), 0) AS chars FROM search_documents',
  )
  const content = db.prepare<{ folders: string; files: string; match: string; limit: number }, ContentRow>(`${SCOPE}
    SELECT ${QUALIFIED_FILE_COLUMNS}, -bm25(search_terms, ${TITLE_WEIGHT}, 1.0) AS rank, substr(d.body, 1, ${TEXT_START_CHARS}) AS text_start
      FROM search_terms
      JOIN search_documents AS d ON d.id = search_terms.rowid
      JOIN files ON files.id = d.file_id
    WHERE search_terms MATCH @match AND ${FILE_IN_SCOPE}
    ORDER BY rank DESC, files.title_key, files.id LIMIT @limit`)
  // One statement per number of name pieces (at most MAX_QUERY_TERMS), prepared on first use.
  const fileNameStatements = new Map<number, Database.Statement<Record<string, unknown>, FileRow>>()
  const folderNameStatements = new Map<number, Database.Statement<Record<string, unknown>, FolderRow>>()
  const filesByName = (count: number) => {
    let statement = fileNameStatements.get(count)
    if (statement === undefined) {
      statement = db.prepare<Record<string, unknown>, FileRow>(`${SCOPE}
        SELECT ${QUALIFIED_FILE_COLUMNS} FROM files WHERE ${FILE_IN_SCOPE} ${nameFilter(count)}
        ORDER BY files.title_key, files.id LIMIT @limit`)
      fileNameStatements.set(count, statement)
    }
    return statement
  }
  const foldersByName = (count: number) => {
    let statement = folderNameStatements.get(count)
    if (statement === undefined) {
      statement = db.prepare<Record<string, unknown>, FolderRow>(`${SCOPE}
        SELECT ${FOLDER_COLUMNS} FROM folders
        WHERE folders.id IN (SELECT id FROM scope) AND folders.parent_id IS NOT NULL ${nameFilter(count)}
        ORDER BY folders.title_key, folders.id LIMIT @limit`)
      folderNameStatements.set(count, statement)
    }
    return statement
  }
  const put = db.transaction((entry: IndexedText) => {
    if (fileExists.get(entry.fileId) === undefined) return
    const current = stored.get(entry.fileId)
    if (current !== undefined && current.version > entry.version) return
    if (current === undefined) {
      const row = insertDocument.get(entry.fileId, entry.version, entry.text)
      if (row !== undefined) insertTerms.run(row.id, entry.titleTerms, entry.terms)
      return
    }
    updateDocument.run(entry.version, entry.text, current.id)
    dropTerms.run(current.id)
    insertTerms.run(current.id, entry.titleTerms, entry.terms)
  })
  const search = (query: SearchQuery) => {
    const scope = { folders: JSON.stringify(query.scope.folderIds), files: JSON.stringify(query.scope.fileIds) }
    const pieces = Object.fromEntries(query.namePieces.map((piece, i) => [`p${i}`, piece]))
    const named = query.namePieces.length > 0
    const folders = named
      ? foldersByName(query.namePieces.length)
          .all({ ...scope, ...pieces, limit: query.limit })
          .map(toFolder)
      : []
    const files: FileRecord[] =
      named && query.scanFileTitles
        ? filesByName(query.namePieces.length)
            .all({ ...scope, ...pieces, limit: query.limit })
            .map(toFile)
        : []
    const terms = query.contentTerms ?? []
    const byContent = terms.length > 0 ? content.all({ ...scope, match: fts5Query(terms), limit: query.limit }) : []
    return mergeHits(folders, files, byContent, terms)
  }
  return {
    async put(entry) {
      put.immediate(entry)
    },
    async indexedVersion(fileId) {
      return stored.get(fileId)?.version
    },
    async remove(fileId) {
      remove.run(fileId)
    },
    async search(query) {
      return search(query)
    },
    async fileIds(afterId, limit) {
      return fileIds.all(afterId, limit).map((row) => row.id)
    },
    async staleFileIds(afterId, limit) {
      return staleIds.all(afterId, limit).map((row) => row.id)
    },
    async stats() {
      const row = stats.get()
      return { documents: row?.documents ?? 0, textChars: row?.chars ?? 0 }
    },
  }
}
