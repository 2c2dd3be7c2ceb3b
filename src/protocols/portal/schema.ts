import * as z from 'zod/mini'
import { DomainError } from '../../core/errors.js'
import type { FileSortField } from '../../core/entities.js'
import { describeIssues } from '../http/input-issues.js'

/**
 * A string of `min` to `max` characters (zod's minLength and maxLength checks; a `min` of 0
 * adds no minimum, as a bare `.max()` did).
 */
export function text(min: number, max: number) {
  return min > 0 ? z.string().check(z.minLength(min), z.maxLength(max)) : z.string().check(z.maxLength(max))
}

/** A whole number from a JSON number or query text, at least `min` and at most `max` when given. */
export function wholeNumber(min: number, max?: number) {
  const number = z.coerce.number()
  return max === undefined ? number.check(z.int(), z.gte(min)) : number.check(z.int(), z.gte(min), z.lte(max))
}

/**
 * Request shapes of the portal API. ONLYOFFICE's own sample sends `username`
 * in lower case; the documented name is `userName`. Both are accepted.
 */
export const authenticationBody = z.pipe(
  z
    .object({
      userName: z.optional(text(1, 256)),
      username: z.optional(text(1, 256)),
      password: text(1, 1024),
    })
    .check(
      z.refine((body) => body.userName !== undefined || body.username !== undefined, {
        message: 'userName is required',
        path: ['userName'],
      }),
    ),
  z.transform((body) => ({ userName: body.userName ?? body.username ?? '', password: body.password })),
)

export const titleBody = z.object({ title: text(1, 1024) })

export const fileListQuery = z.object({
  startIndex: z._default(wholeNumber(0), 0),
  count: z._default(wholeNumber(1, 1000), 100),
  sortBy: z._default(
    z.enum(['DateAndTime', 'DateAndTimeCreation', 'AZ', 'Title', 'Size', 'updated', 'created', 'title', 'size']),
    'DateAndTime',
  ),
  sortOrder: z.optional(z.enum(['ascending', 'descending'])),
  filterValue: z.optional(text(0, 256)),
})

export const fileIdParams = z.object({ fileId: text(1, 128) })

export const versionParams = z.object({
  fileId: text(1, 128),
  version: wholeNumber(1),
})

/** Parses with a schema, turning problems into one INVALID_INPUT naming the fields. */
export function parseInput<T extends z.ZodMiniType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value ?? {})
  if (result.success) return result.data
  throw new DomainError('INVALID_INPUT', describeIssues(result.error.issues))
}

/**
 * Names and numbers of ONLYOFFICE's SortedByType, the lower-case names its apps send
 * (Android: created, type, size, name; iOS: tag) and DocSpace's, and what Folio sorts by for
 * each. Folio has no tags, rooms or last-opened dates: those sort by the last change.
 */
const SORTS: Record<string, FileSortField> = {
  dateandtime: 'updated',
  '0': 'updated',
  updated: 'updated',
  lastopened: 'updated',
  az: 'title',
  '1': 'title',
  title: 'title',
  name: 'title',
  firstname: 'title',
  displayname: 'title',
  size: 'size',
  '2': 'size',
  usedspace: 'size',
  author: 'author',
  '3': 'author',
  type: 'type',
  '4': 'type',
  new: 'updated',
  '5': 'updated',
  dateandtimecreation: 'created',
  '6': 'created',
  created: 'created',
  tag: 'updated',
  tags: 'updated',
  roomtype: 'updated',
}

/** What Folio lists for a FilterType: a kind of item, or nothing (a filter it has no meaning for). */
export type ListFilterName =
  | 'none'
  | 'files'
  | 'folders'
  | 'documents'
  | 'presentations'
  | 'spreadsheets'
  | 'images'
  | 'media'
  | 'archives'
  | 'pdf'
  | 'nothing'

/**
 * Names and numbers of ONLYOFFICE's FilterType (Workspace's and DocSpace's). The ones about
 * people, departments, rooms and form templates have no meaning in Folio: they list nothing
 * rather than being refused, so an app's filter menu works.
 */
const FILTERS: Record<string, ListFilterName> = {
  none: 'none',
  '0': 'none',
  filesonly: 'files',
  '1': 'files',
  foldersonly: 'folders',
  '2': 'folders',
  documentsonly: 'documents',
  '3': 'documents',
  presentationsonly: 'presentations',
  '4': 'presentations',
  spreadsheetsonly: 'spreadsheets',
  '5': 'spreadsheets',
  imagesonly: 'images',
  '7': 'images',
  byuser: 'nothing',
  '8': 'nothing',
  bydepartment: 'nothing',
  '9': 'nothing',
  archiveonly: 'archives',
  '10': 'archives',
  byextension: 'nothing',
  '11': 'nothing',
  mediaonly: 'media',
  '12': 'media',
  fillingformsrooms: 'nothing',
  '13': 'nothing',
  editingrooms: 'nothing',
  '14': 'nothing',
  reviewrooms: 'nothing',
  '15': 'nothing',
  readonlyrooms: 'nothing',
  '16': 'nothing',
  customrooms: 'nothing',
  '17': 'nothing',
  oformtemplateonly: 'nothing',
  '18': 'nothing',
  oformonly: 'nothing',
  '19': 'nothing',
  virtualdatarooms: 'nothing',
  '20': 'nothing',
  publicrooms: 'nothing',
  '21': 'nothing',
  pdf: 'pdf',
  '22': 'pdf',
  pdfform: 'nothing',
  '23': 'nothing',
}

/** Query of a folder listing: paging, sort (names or numbers, any case) and filters. */
export const folderListQuery = z.object({
  startIndex: z._default(wholeNumber(0), 0),
  count: z._default(wholeNumber(1, 1000), 100),
  sortBy: z.pipe(
    z.optional(text(0, 64)).check(
      z.refine((value) => value === undefined || value === '' || Object.hasOwn(SORTS, value.toLowerCase()), {
        message:
          'unknown sortBy (DateAndTime, AZ, Size, Author, Type, New, DateAndTimeCreation, 0-6, or created, name, tag)',
      }),
    ),
    z.transform((value) => (value ? SORTS[value.toLowerCase()] : undefined)),
  ),
  sortOrder: z.pipe(
    z.optional(text(0, 16)).check(
      z.refine(
        (value) => value === undefined || ['ascending', 'descending', 'asc', 'desc', ''].includes(value.toLowerCase()),
        {
          message: 'sortOrder is ascending or descending',
        },
      ),
    ),
    z.transform((value) => (value ? value.toLowerCase().startsWith('desc') : undefined)),
  ),
  filterValue: z.optional(text(0, 256)),
  filterType: z.pipe(
    z.optional(text(0, 32)).check(
      z.refine((value) => value === undefined || value === '' || Object.hasOwn(FILTERS, value.toLowerCase()), {
        message:
          "unknown filterType (one of ONLYOFFICE's FilterType names or numbers: None, FilesOnly, FoldersOnly, DocumentsOnly, ImagesOnly, MediaOnly, ArchiveOnly, Pdf, ...)",
      }),
    ),
    z.transform((value) => (value ? (FILTERS[value.toLowerCase()] ?? 'none') : 'none')),
  ),
  /** Folio's own: only the caller's items shared with someone or by a link. */
  sharedByMe: z.pipe(
    z.optional(z.enum(['true', 'false', ''])),
    z.transform((value) => value === 'true'),
  ),
})

/** An id in a path: a folder id, or an @ alias with an optional .json suffix. */
export const folderRefParams = z.object({ folderId: text(1, 128) })

const idList = z._default(z.array(text(1, 128)).check(z.maxLength(10_000)), [])

/** ONLYOFFICE's conflictResolveType: Skip 0, Overwrite 1, Duplicate 2 (names also accepted). */
const conflict = z.pipe(
  z.optional(z.union([z.number().check(z.int()), text(0, 16)])),
  z.transform((value, ctx) => {
    const key = String(value ?? 2).toLowerCase()
    const found = (
      {
        '0': 'skip',
        skip: 'skip',
        '1': 'overwrite',
        overwrite: 'overwrite',
        '2': 'duplicate',
        duplicate: 'duplicate',
      } as const
    )[key]
    if (found === undefined) {
      ctx.issues.push({
        code: 'custom',
        message: 'conflictResolveType is 0 (Skip), 1 (Overwrite) or 2 (Duplicate)',
        input: value,
      })
      return z.NEVER
    }
    return found
  }),
)

export const moveCopyBody = z.object({
  destFolderId: z.pipe(z.union([text(1, 128), z.number()]), z.transform(String)),
  folderIds: idList,
  fileIds: idList,
  conflictResolveType: conflict,
  deleteAfter: z.optional(z.boolean()),
})

export const deleteItemsBody = z.object({
  folderIds: idList,
  fileIds: idList,
  immediately: z._default(z.boolean(), false),
  deleteAfter: z.optional(z.boolean()),
})

/** `immediately` of a DELETE, in the body or the query (true/false). */
export const immediatelyInput = z.object({
  immediately: z.pipe(
    z.optional(z.union([z.boolean(), z.enum(['true', 'false'])])),
    z.transform((value) => value === true || value === 'true'),
  ),
})

/** Ids in a query: repeated (`fileIds=a&fileIds=b`), bracketed (`fileIds[]=a`) or comma-separated. */
const queryIds = z.pipe(
  z.pipe(
    z.optional(z.union([text(0, 100_000), z.array(text(0, 128)).check(z.maxLength(10_000))])),
    z.transform((value) =>
      (value === undefined ? [] : Array.isArray(value) ? value : [value])
        .flatMap((entry) => entry.split(','))
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    ),
  ),
  z.array(text(1, 128)).check(z.maxLength(10_000)),
)

/** Query of Workspace's conflict check, `GET files/fileops/move`. */
export const moveCheckQuery = z.pipe(
  z.object({
    destFolderId: text(1, 128),
    folderIds: queryIds,
    fileIds: queryIds,
    'folderIds[]': queryIds,
    'fileIds[]': queryIds,
  }),
  z.transform((q) => ({
    destFolderId: q.destFolderId,
    folderIds: [...q.folderIds, ...q['folderIds[]']],
    fileIds: [...q.fileIds, ...q['fileIds[]']],
  })),
)

/** One of ONLYOFFICE's fileConvertIds: a file id and the format to send it in ('.pdf'). */
const convertPair = z.object({
  key: z.pipe(z.union([text(1, 128), z.number()]), z.transform(String)),
  value: text(1, 20),
})

/**
 * Body of `PUT files/fileops/bulkdownload`: the files and folders to download as one
 * archive, and (ONLYOFFICE's fileConvertIds) the files to send converted.
 */
export const bulkDownloadBody = z.object({
  folderIds: idList,
  fileIds: idList,
  fileConvertIds: z._default(z.array(convertPair).check(z.maxLength(10_000)), []),
})

/** Query of the archive download itself: the same ids, as in `GET files/fileops/move`. */
export const archiveQuery = z.pipe(
  z.object({
    folderIds: queryIds,
    fileIds: queryIds,
    'folderIds[]': queryIds,
    'fileIds[]': queryIds,
    // Files sent converted, as `<fileId>:<format>` (the operation's url carries them).
    convert: queryIds,
  }),
  z.transform((q) => ({
    folderIds: [...q.folderIds, ...q['folderIds[]']],
    fileIds: [...q.fileIds, ...q['fileIds[]']],
    convert: new Map(
      q.convert.flatMap((pair): Array<[string, string]> => {
        const colon = pair.lastIndexOf(':')
        return colon > 0 ? [[pair.slice(0, colon), pair.slice(colon + 1)]] : []
      }),
    ),
  })),
)
