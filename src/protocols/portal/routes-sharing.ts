import type { FastifyInstance } from 'fastify'
import * as z from 'zod/mini'
import type { AdapterContext, ShareEntry, ShareLink } from '../../app/index.js'
import { me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { fileIdParams, parseInput, text, wholeNumber } from './schema.js'

const shareBody = z.object({
  share: z
    .array(
      z.object({
        shareTo: text(1, 128),
        access: wholeNumber(0, 7),
      }),
    )
    .check(z.maxLength(1000)),
  notify: z.optional(z.boolean()),
})

const folderIdParams = z.object({ folderId: text(1, 128) })

const linkBody = z.object({ share: wholeNumber(0, 7) })

// Workspace's search takes `query`; its filter takes `filterValue`. Either is accepted.
const peopleQuery = z.pipe(
  z.object({ filterValue: z.optional(text(0, 256)), query: z.optional(text(0, 256)) }),
  z.transform((q) => ({ filterValue: q.filterValue ?? q.query ?? '' })),
)

const searchParams = z.object({ query: text(0, 256) })

/** An entry of a sharing list in the portal's shape, the owner first. */
function presentShare(entry: ShareEntry) {
  return {
    access: entry.access,
    sharedTo: { id: entry.user.id, displayName: entry.user.displayName },
    isOwner: entry.isOwner,
    // The owner's line cannot be changed.
    isLocked: entry.isOwner,
  }
}

/** The link a guest opens: the browser page of the link, with the file id and its key. */
function presentLink(ctx: AdapterContext, link: ShareLink) {
  const url = `${ctx.config.publicUrl}/s/${encodeURIComponent(link.fileId)}?doc=${encodeURIComponent(link.key)}`
  return {
    access: link.access,
    sharedTo: { id: link.fileId, shareLink: url, title: 'Link' },
    isOwner: false,
    isLocked: false,
  }
}

/**
 * Sharing (ONLYOFFICE Workspace paths): the sharing list of a file or folder and changes to
 * it (owner and admins), a file's link, and the people search every signed-in user may use
 * to pick someone to share with. What others shared with the caller is `shareListing`
 * (share-listing.ts), which the folders API answers as the '@share' section.
 */
export function sharingRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('preHandler', requirePortalUser(ctx))

    app.get('/files/file/:fileId/share', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const entries = await ctx.app.sharing.list(me(request), fileId)
      return success(entries.map((e) => presentShare(e)))
    })

    app.put('/files/file/:fileId/share', async (request) => {
      const { fileId } = parseInput(fileIdParams, request.params)
      const body = parseInput(shareBody, request.body)
      const changes = body.share.map((s) => ({ userId: s.shareTo, access: s.access }))
      const entries = await ctx.app.sharing.set(me(request), fileId, changes)
      return success(entries.map((e) => presentShare(e)))
    })

    app.get('/files/folder/:folderId/share', async (request) => {
      const { folderId } = parseInput(folderIdParams, request.params)
      const entries = await ctx.app.sharing.listFolder(me(request), folderId)
      return success(entries.map((e) => presentShare(e)))
    })

    app.put('/files/folder/:folderId/share', async (request) => {
      const { folderId } = parseInput(folderIdParams, request.params)
      const body = parseInput(shareBody, request.body)
      const changes = body.share.map((s) => ({ userId: s.shareTo, access: s.access }))
      const entries = await ctx.app.sharing.setFolder(me(request), folderId, changes)
      return success(entries.map((e) => presentShare(e)))
    })

    for (const path of ['/files/:fileId/sharedlink', '/files/file/:fileId/sharedlink']) {
      app.get(path, async (request) => {
        const { fileId } = parseInput(fileIdParams, request.params)
        const link = await ctx.app.sharing.getLink(me(request), fileId)
        return success(link ? presentLink(ctx, link) : null)
      })

      app.put(path, async (request) => {
        const { fileId } = parseInput(fileIdParams, request.params)
        const { share } = parseInput(linkBody, request.body)
        const link = await ctx.app.sharing.setLink(me(request), fileId, share)
        return success(link ? presentLink(ctx, link) : null)
      })
    }

    for (const path of ['/people/filter', '/people/search', '/people/filter.json', '/people/search.json']) {
      app.get(path, async (request) => {
        const { filterValue } = parseInput(peopleQuery, request.query)
        return success(await ctx.app.sharing.findPeople(me(request), filterValue))
      })
    }
    // Workspace's GET people/search/{query}.
    app.get('/people/search/:query', async (request) => {
      const { query } = parseInput(searchParams, request.params)
      return success(await ctx.app.sharing.findPeople(me(request), query.replace(/\.json$/, '')))
    })
  }
}
