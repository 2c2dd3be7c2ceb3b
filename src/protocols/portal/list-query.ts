import type { FastifyRequest } from 'fastify'
import type { FolderListQuery } from '../../app/index.js'
import { suffixesOf } from '../../core/documents/portal-file-types.js'
import { folderListQuery, parseInput } from './schema.js'

type FilterName = ReturnType<typeof parseInput<typeof folderListQuery>>['filterType']

function listFilter(kind: FilterName): FolderListQuery['filter'] {
  switch (kind) {
    case 'files':
      return { kind: 'files-only' }
    case 'folders':
      return { kind: 'folders-only' }
    case 'documents':
      return { kind: 'files-only', suffixes: suffixesOf(7) }
    case 'presentations':
      return { kind: 'files-only', suffixes: suffixesOf(6) }
    case 'spreadsheets':
      return { kind: 'files-only', suffixes: suffixesOf(5) }
    case 'images':
      return { kind: 'files-only', suffixes: suffixesOf(4) }
    case 'media':
      return { kind: 'files-only', suffixes: [...suffixesOf(2), ...suffixesOf(3)] }
    case 'archives':
      return { kind: 'files-only', suffixes: suffixesOf(1) }
    case 'pdf':
      return { kind: 'files-only', suffixes: ['.pdf'] }
    // No suffix matches: an empty list.
    case 'nothing':
      return { kind: 'files-only', suffixes: [] }
    default:
      return { kind: 'all' }
  }
}

/**
 * A listing's paging, sort and filters from the query string, the same for a folder and
 * for the '@share' section. Newest first by default; names A to Z by default.
 * `sharedByMe=true` (Folio's own) keeps only the caller's items shared with someone or by
 * a link, over the whole folder, so paging and the total count the filtered items.
 */
export function listQueryOf(request: FastifyRequest): FolderListQuery {
  const query = parseInput(folderListQuery, request.query)
  const sortBy = query.sortBy ?? 'updated'
  return {
    offset: query.startIndex,
    limit: query.count,
    sortBy,
    descending: query.sortOrder ?? sortBy !== 'title',
    titleContains: query.filterValue || undefined,
    filter: listFilter(query.filterType),
    ...(query.sharedByMe ? { sharedOnly: true } : {}),
  }
}
