import type { SearchIndexRepository } from '../../ports/search-index.js'
import { toFile, type FileRow } from '../metadata-shared/file-rows.js'
import { toFolder, type FolderRow } from '../metadata-shared/folder-rows.js'
import {
  FOLDER_COLUMNS,
  mergeHits,
  QUALIFIED_FILE_COLUMNS,
  TEXT_START_CHARS,
  tsQuery,
  type ContentRow,
} from '../metadata-shared/search-rows.js'
import type { Database } from './database.js'
import { isProgramLimitExceeded } from './pg-errors.js'

/** The folders in scope ($1) and every folder under them; the files named in scope ($2). */
const SCOPE = `WITH RECURSIVE scope (id) AS (
    SELECT unnest($1::text[]) COLLATE "C"
    UNION SELECT folders.id FROM folders JOIN scope ON folders.parent_id = scope.id
  )`
const FILE_IN_SCOPE = '(files.folder_id IN (SELECT id FROM scope) OR files.id = ANY ($2::text[]))'

/** `strpos` matches each piece literally: % _ and \ are plain characters. Pieces from $4 on. */
function nameFilter(count: number, column: string): string {
  return Array.from({ length: count }, (_, i) => `AND strpos(${column}, $${i + 4}) > 0`).join(' ')
}

/**
 * Most characters of distinct words kept when a text's words with their positions do not
 * fit in one tsvector (PostgreSQL's limit is 1 MiB): each word then once, no positions.
 */
const DISTINCT_WORDS_CHARS = 512 * 1024

/** The distinct words of `terms`, in order of first use, up to DISTINCT_WORDS_CHARS. */
function distinctWords(terms: string): string[] {
  const words: string[] = []
  let chars = 0
  for (const word of new Set(terms.split(' '))) {
    if (word === '') continue
    chars += word.length + 1
    if (chars > DISTINCT_WORDS_CHARS) break
    words.push(word)
  }
  return words
}

/** PostgreSQL text cannot hold NUL: a text read with one keeps the rest. */
function withoutNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', ' ') : text
}

/** The search index in PostgreSQL: `search_documents` with a GIN-indexed tsvector. */
export function createSearchRepository(db: Database): SearchIndexRepository {
  return {
    async put(entry) {
      const upsert = (vector: string) => `INSERT INTO search_documents (file_id, version, body, terms)
          SELECT id, $2, $3, ${vector} FROM files WHERE id = $1
        ON CONFLICT (file_id) DO UPDATE SET version = excluded.version, body = excluded.body, terms = excluded.terms
          WHERE search_documents.version <= excluded.version`
      const values = [entry.fileId, entry.version, withoutNul(entry.text), entry.titleTerms]
      // The title's words weigh most (A), the text's least (D).
      const title = `setweight(to_tsvector('simple', $4), 'A')`
      try {
        // The words are Folio's own folded ones: the 'simple' configuration only splits them.
        await db.query(upsert(`${title} || setweight(to_tsvector('simple', $5), 'D')`), [...values, entry.terms])
      } catch (error) {
        if (!isProgramLimitExceeded(error)) throw error
        // Too many words with their positions for one tsvector: each word once instead.
        await db.query(upsert(`${title} || array_to_tsvector($5::text[])`), [...values, distinctWords(entry.terms)])
      }
    },
    async indexedVersion(fileId) {
      const { rows } = await db.query<{ version: number }>('SELECT version FROM search_documents WHERE file_id = $1', [
        fileId,
      ])
      return rows[0]?.version
    },
    async remove(fileId) {
      await db.query('DELETE FROM search_documents WHERE file_id = $1', [fileId])
    },
    async search(query) {
      const scope = [query.scope.folderIds, query.scope.fileIds, query.limit]
      const count = query.namePieces.length
      const folders =
        count === 0
          ? []
          : (
              await db.query<FolderRow>(
                `${SCOPE}
          SELECT ${FOLDER_COLUMNS} FROM folders
          WHERE folders.id IN (SELECT id FROM scope) AND folders.parent_id IS NOT NULL AND $2::text[] IS NOT NULL
            ${nameFilter(count, 'folders.title_key')}
          ORDER BY folders.title_key COLLATE "C", folders.id LIMIT $3`,
                [...scope, ...query.namePieces],
              )
            ).rows.map(toFolder)
      const files =
        count === 0 || !query.scanFileTitles
          ? []
          : (
              await db.query<FileRow>(
                `${SCOPE}
          SELECT ${QUALIFIED_FILE_COLUMNS} FROM files WHERE ${FILE_IN_SCOPE} ${nameFilter(count, 'files.title_key')}
          ORDER BY files.title_key COLLATE "C", files.id LIMIT $3`,
                [...scope, ...query.namePieces],
              )
            ).rows.map(toFile)
      const terms = query.contentTerms ?? []
      const byContent =
        terms.length === 0
          ? []
          : (
              await db.query<ContentRow>(
                `${SCOPE}
          SELECT ${QUALIFIED_FILE_COLUMNS}, ts_rank(d.terms, q.query) AS rank, left(d.body, ${TEXT_START_CHARS}) AS text_start
            FROM search_documents AS d
            JOIN files ON files.id = d.file_id
            CROSS JOIN (SELECT to_tsquery('simple', $4) AS query) AS q
          WHERE d.terms @@ q.query AND ${FILE_IN_SCOPE}
          ORDER BY rank DESC, files.title_key COLLATE "C", files.id LIMIT $3`,
                [...scope, tsQuery(terms)],
              )
            ).rows
      return mergeHits(folders, files, byContent, terms)
    },
    async fileIds(afterId, limit) {
      const { rows } = await db.query<{ id: string }>('SELECT id FROM files WHERE id > $1 ORDER BY id LIMIT $2', [
        afterId,
        limit,
      ])
      return rows.map((row) => row.id)
    },
    async staleFileIds(afterId, limit) {
      const { rows } = await db.query<{ id: string }>(
        `SELECT files.id FROM files LEFT JOIN search_documents AS d ON d.file_id = files.id
          WHERE files.id > $1 AND (d.version IS NULL OR d.version < files.version)
          ORDER BY files.id LIMIT $2`,
        [afterId, limit],
      )
      return rows.map((row) => row.id)
    },
    async stats() {
      const { rows } = await db.query<{ documents: number; chars: number }>(
        'SELECT count(*) AS documents, coalesce(sum(length(body)), 0)::bigint AS chars FROM search_documents',
      )
      return { documents: rows[0]?.documents ?? 0, textChars: rows[0]?.chars ?? 0 }
    },
  }
}
