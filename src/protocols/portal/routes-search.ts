import type { FastifyInstance, FastifyRequest } from 'fastify'
import * as z from 'zod/mini'
import type { AdapterContext, Principal, SearchItem } from '../../app/index.js'
import type { FolderCounts } from '../../core/entities.js'
import { me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { itemPresenter, type Section } from './present-items.js'
import { parseInput, text, wholeNumber } from './schema.js'

/** Most items one search answers. */
const MAX_RESULTS = 1000

const queryFlag = z.pipe(
  z.optional(z.enum(['true', 'false', 'True', 'False', '1', '0'])),
  z.transform((value) => value === 'true' || value === 'True' || value === '1'),
)

/** The search parameters of a folder listing (DocSpace's names). */
const listingSearchQuery = z.object({
  withsubfolders: queryFlag,
  withSubfolders: queryFlag,
  searchInContent: queryFlag,
  filterValue: z._default(text(0, 256), ''),
  startIndex: z._default(wholeNumber(0), 0),
  count: z._default(wholeNumber(1, MAX_RESULTS), 100),
})

/**
 * `@search/{text}`: the text is the rest of the path, taken as a wildcard so a long query
 * (up to 4 KiB; the words past the first kilobyte are ignored) is not refused as a long
 * path parameter.
 */
const searchParams = z.object({ '*': text(0, 4096) })

/**
 * True when a folder listing asks for a search: a `filterValue` over the whole subtree
 * (`withsubfolders=true`) or over the words inside documents (`searchInContent=true`).
 * Without words to look for it is a plain listing (ONLYOFFICE's Android app sends
 * `withSubfolders=true` with every filtered listing of a folder).
 */
export function isListingSearch(request: FastifyRequest): boolean {
  const query = request.query
  if (typeof query !== 'object' || query === null) return false
  const flagged = (name: string) => name in query && /^(true|1)$/i.test(String(Reflect.get(query, name)))
  const words = String(Reflect.get(query, 'filterValue') ?? '').trim()
  if (words === '') return false
  return flagged('withsubfolders') || flagged('withSubfolders') || flagged('searchInContent')
}

/**
 * Presents search results in their order: files carry `snippet` where their words matched.
 * `ownSection` is the section of the caller's own items found ('my', or 'trash' when the
 * trash was searched); everyone else's are in 'share'. Known, so not looked up per item.
 */
async function presentItems(ctx: AdapterContext, by: Principal, items: SearchItem[], ownSection: Section) {
  const present = itemPresenter(ctx, by)
  const folders = items.flatMap((item) => (item.kind === 'folder' ? [item.folder] : []))
  const counts = new Map<string, FolderCounts>()
  for (const folder of folders) counts.set(folder.id, (await ctx.app.folders.get(by, folder.id)).counts)
  const fileItems = items.flatMap((item) => (item.kind === 'file' ? [item] : []))
  const levels = new Map(fileItems.map((item) => [item.file.id, item.level]))
  const own = fileItems.filter((item) => item.file.ownerId === by.user.id)
  const others = fileItems.filter((item) => item.file.ownerId !== by.user.id)
  const presented = new Map<string, object>()
  const add = async (group: typeof fileItems, section: Section) => {
    const shown = await present.files(
      group.map((item) => item.file),
      section,
      levels,
    )
    for (const [i, file] of shown.entries()) {
      const snippet = group[i]?.snippet
      presented.set(group[i]?.file.id ?? '', snippet === undefined ? file : { ...file, snippet })
    }
  }
  await add(own, ownSection)
  await add(others, 'share')
  return {
    folders: await present.folders(folders, counts),
    files: fileItems.flatMap((item) => presented.get(item.file.id) ?? []),
  }
}

/**
 * A folder listing that searches: the folder's whole subtree by name (`withsubfolders`),
 * and with `searchInContent` the words inside its documents, best first; the folder
 * itself as `current`.
 */
export async function searchListing(ctx: AdapterContext, request: FastifyRequest, ref: string) {
  const by = me(request)
  const query = parseInput(listingSearchQuery, request.query)
  const { folder, path, rootType, level, counts } = await ctx.app.folders.get(by, ref)
  const items = await ctx.app.search.inFolder(by, ref, {
    text: query.filterValue,
    inContent: query.searchInContent,
    // One page more than asked for, so `total` tells a client there is a next page without
    // every match of a common word being read and checked.
    limit: Math.min(MAX_RESULTS, query.startIndex + 2 * query.count),
  })
  const page = items.slice(query.startIndex, query.startIndex + query.count)
  const { folders, files } = await presentItems(ctx, by, page, rootType === 'trash' ? 'trash' : 'my')
  const [current] = await itemPresenter(ctx, by).folders(
    [folder],
    new Map([[folder.id, counts]]),
    rootType,
    new Map([[folder.id, level]]),
  )
  const pathParts = path.map((f) => f.id)
  return {
    files,
    folders,
    current,
    pathParts: rootType === 'share' ? ['@share', ...pathParts] : pathParts,
    startIndex: query.startIndex,
    count: files.length + folders.length,
    total: items.length,
    new: 0,
  }
}

/**
 * `GET files/@search/{text}`: every folder and file the caller may read whose name (or
 * words inside) match, their documents and what is shared with them, the trash left out;
 * one list of folder and file entries, best first.
 */
export function searchRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('preHandler', requirePortalUser(ctx))
    app.get('/files/@search/*', async (request) => {
      const by = me(request)
      const raw = parseInput(searchParams, request.params)['*']
      const searchText = raw.endsWith('.json') ? raw.slice(0, -'.json'.length) : raw
      const items = await ctx.app.search.everywhere(by, { text: searchText, inContent: true, limit: 100 })
      const { folders, files } = await presentItems(ctx, by, items, 'my')
      return success([...folders, ...files])
    })
  }
}
