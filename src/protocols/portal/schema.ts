import { z } from 'zod'
import { DomainError } from '../../core/errors.js'
import type { FileSortField } from '../../core/entities.js'

/**
 * Request shapes of the portal API. ONLYOFFICE's own sample sends `username`
 * in lower case; the documented name is `userName`. Both are accepted.
 */
export const authenticationBody = z
  .object({
    userName: z.string().min(1).max(256).optional(),
    username: z.string().min(1).max(256).optional(),
    password: z.string().min(1).max(1024),
  })
  .refine((body) => body.userName !== undefined || body.username !== undefined, {
    message: 'userName is required',
    path: ['userName'],
  })
  .transform((body) => ({ userName: body.userName ?? body.username ?? '', password: body.password }))

export const titleBody = z.object({ title: z.string().min(1).max(1024) })

export const fileListQuery = z.object({
  startIndex: z.coerce.number().int().min(0).default(0),
  count: z.coerce.number().int().min(1).max(1000).default(100),
  sortBy: z
    .enum(['DateAndTime', 'DateAndTimeCreation', 'AZ', 'Title', 'Size', 'updated', 'created', 'title', 'size'])
    .default('DateAndTime'),
  sortOrder: z.enum(['ascending', 'descending']).optional(),
  filterValue: z.string().max(256).optional(),
})

export const fileIdParams = z.object({ fileId: z.string().min(1).max(128) })

export const versionParams = z.object({
  fileId: z.string().min(1).max(128),
  version: z.coerce.number().int().min(1),
})

/** Parses with a schema, turning problems into one INVALID_INPUT naming the fields. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value ?? {})
  if (result.success) return result.data
  const message = result.error.issues
    .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
    .join('; ')
  throw new DomainError('INVALID_INPUT', message)
}

/** Names and numbers of ONLYOFFICE's SortedByType, and what Folio sorts by for each. */
const SORTS: Record<string, FileSortField> = {
  dateandtime: 'updated', '0': 'updated', updated: 'updated',
  az: 'title', '1': 'title', title: 'title',
  size: 'size', '2': 'size',
  author: 'author', '3': 'author',
  type: 'type', '4': 'type',
  new: 'updated', '5': 'updated',
  dateandtimecreation: 'created', '6': 'created', created: 'created',
}

/** Names and numbers of the FilterType values Folio serves. */
const FILTERS: Record<string, 'none' | 'files' | 'folders' | 'documents' | 'presentations' | 'spreadsheets'> = {
  none: 'none', '0': 'none',
  filesonly: 'files', '1': 'files',
  foldersonly: 'folders', '2': 'folders',
  documentsonly: 'documents', '3': 'documents',
  presentationsonly: 'presentations', '4': 'presentations',
  spreadsheetsonly: 'spreadsheets', '5': 'spreadsheets',
}

/** Query of a folder listing: paging, sort (names or numbers, any case) and filters. */
export const folderListQuery = z.object({
  startIndex: z.coerce.number().int().min(0).default(0),
  count: z.coerce.number().int().min(1).max(1000).default(100),
  sortBy: z
    .string()
    .max(64)
    .optional()
    .refine((value) => value === undefined || value === '' || Object.hasOwn(SORTS, value.toLowerCase()), {
      message: 'unknown sortBy (DateAndTime, AZ, Size, Author, Type, New, DateAndTimeCreation or 0-6)',
    })
    .transform((value) => (value ? SORTS[value.toLowerCase()] : undefined)),
  sortOrder: z
    .string()
    .max(16)
    .optional()
    .refine((value) => value === undefined || ['ascending', 'descending', 'asc', 'desc', ''].includes(value.toLowerCase()), {
      message: 'sortOrder is ascending or descending',
    })
    .transform((value) => (value ? value.toLowerCase().startsWith('desc') : undefined)),
  filterValue: z.string().max(256).optional(),
  filterType: z
    .string()
    .max(32)
    .optional()
    .refine((value) => value === undefined || value === '' || Object.hasOwn(FILTERS, value.toLowerCase()), {
      message: 'unsupported filterType (None, FilesOnly, FoldersOnly, DocumentsOnly, PresentationsOnly, SpreadsheetsOnly or 0-5)',
    })
    .transform((value) => (value ? FILTERS[value.toLowerCase()] ?? 'none' : 'none')),
})

/** An id in a path: a folder id, or an @ alias with an optional .json suffix. */
export const folderRefParams = z.object({ folderId: z.string().min(1).max(128) })

const idList = z.array(z.string().min(1).max(128)).max(10_000).default([])

/** ONLYOFFICE's conflictResolveType: Skip 0, Overwrite 1, Duplicate 2 (names also accepted). */
const conflict = z
  .union([z.number().int(), z.string().max(16)])
  .optional()
  .transform((value, ctx) => {
    const key = String(value ?? 2).toLowerCase()
    const found = ({ '0': 'skip', skip: 'skip', '1': 'overwrite', overwrite: 'overwrite', '2': 'duplicate', duplicate: 'duplicate' } as const)[key]
    if (found === undefined) {
      ctx.addIssue({ code: 'custom', message: 'conflictResolveType is 0 (Skip), 1 (Overwrite) or 2 (Duplicate)' })
      return z.NEVER
    }
    return found
  })

export const moveCopyBody = z.object({
  destFolderId: z.union([z.string().min(1).max(128), z.number()]).transform(String),
  folderIds: idList,
  fileIds: idList,
  conflictResolveType: conflict,
  deleteAfter: z.boolean().optional(),
})

export const deleteItemsBody = z.object({
  folderIds: idList,
  fileIds: idList,
  immediately: z.boolean().default(false),
  deleteAfter: z.boolean().optional(),
})

/** `immediately` of a DELETE, in the body or the query (true/false). */
export const immediatelyInput = z.object({
  immediately: z.union([z.boolean(), z.enum(['true', 'false'])]).optional()
    .transform((value) => value === true || value === 'true'),
})

/** Ids in a query: repeated (`fileIds=a&fileIds=b`), bracketed (`fileIds[]=a`) or comma-separated. */
const queryIds = z
  .union([z.string().max(100_000), z.array(z.string().max(128)).max(10_000)])
  .optional()
  .transform((value) => (value === undefined ? [] : (Array.isArray(value) ? value : [value]))
    .flatMap((entry) => entry.split(','))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== ''))
  .pipe(z.array(z.string().min(1).max(128)).max(10_000))

/** Query of Workspace's conflict check, `GET files/fileops/move`. */
export const moveCheckQuery = z
  .object({
    destFolderId: z.string().min(1).max(128),
    folderIds: queryIds,
    fileIds: queryIds,
    'folderIds[]': queryIds,
    'fileIds[]': queryIds,
  })
  .transform((q) => ({
    destFolderId: q.destFolderId,
    folderIds: [...q.folderIds, ...q['folderIds[]']],
    fileIds: [...q.fileIds, ...q['fileIds[]']],
  }))

/**
 * Body of `PUT files/fileops/bulkdownload`: the files and folders to download as one
 * archive. Folio sends files as stored: a request to convert some (ONLYOFFICE's
 * fileConvertIds) is refused rather than answered with unconverted files.
 */
export const bulkDownloadBody = z.object({
  folderIds: idList,
  fileIds: idList,
  fileConvertIds: z
    .array(z.unknown())
    .max(0, 'Folio downloads files as they are stored: fileConvertIds is not supported')
    .optional(),
})

/** Query of the archive download itself: the same ids, as in `GET files/fileops/move`. */
export const archiveQuery = z
  .object({
    folderIds: queryIds,
    fileIds: queryIds,
    'folderIds[]': queryIds,
    'fileIds[]': queryIds,
  })
  .transform((q) => ({
    folderIds: [...q.folderIds, ...q['folderIds[]']],
    fileIds: [...q.fileIds, ...q['fileIds[]']],
  }))
