import type { FastifyInstance } from 'fastify'
import * as z from 'zod/mini'
import type { AdapterContext, FolderLink } from '../../app/index.js'
import { DomainError } from '../../core/errors.js'
import { isoWithOffset } from '../http/timestamps.js'
import { me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { parseInput, text, wholeNumber } from './schema.js'

const folderIdParams = z.object({ folderId: text(1, 128) })

/**
 * DocSpace's FolderLinkRequest. Folio keeps one link per folder, so `linkId`, `title` and
 * `primary` are taken and not used; a password and a members-only link are refused, as
 * Folio has neither.
 */
const folderLinkBody = z.object({
  linkId: z.optional(z.nullable(text(0, 64))),
  access: z.optional(wholeNumber(0, 11)),
  expirationDate: z.optional(z.nullable(text(0, 64))),
  denyDownload: z.optional(z.nullable(z.boolean())),
  title: z.optional(z.nullable(text(0, 255))),
  password: z.optional(z.nullable(text(0, 255))),
  internal: z.optional(z.nullable(z.boolean())),
  primary: z.optional(z.nullable(z.boolean())),
})

type FolderLinkInput = z.output<typeof folderLinkBody>

/** The settings a request asks for: Read when no access is named, no expiry when none is given. */
function settingsOf(body: FolderLinkInput) {
  if (body.password !== undefined && body.password !== null && body.password !== '') {
    throw new DomainError('INVALID_INPUT', 'Folio links have no password; leave password out', { field: 'password' })
  }
  if (body.internal === true) {
    throw new DomainError('INVALID_INPUT', 'Folio links are for people without an account; internal must be false', {
      field: 'internal',
    })
  }
  let expiresAt: number | null = null
  if (body.expirationDate !== undefined && body.expirationDate !== null && body.expirationDate !== '') {
    expiresAt = Date.parse(body.expirationDate)
    if (Number.isNaN(expiresAt)) {
      throw new DomainError('INVALID_INPUT', 'expirationDate must be an ISO 8601 date and time', {
        field: 'expirationDate',
      })
    }
  }
  return { access: body.access ?? 2, denyDownload: body.denyDownload === true, expiresAt }
}

/** A folder link in DocSpace's FileShareWrapper shape, its address in sharedTo.shareLink. */
function presentFolderLink(ctx: AdapterContext, link: FolderLink) {
  const url = `${ctx.config.publicUrl}/s/${encodeURIComponent(link.folderId)}?doc=${encodeURIComponent(link.key)}`
  const expired = link.expiresAt !== null && link.expiresAt <= ctx.clock.now()
  return {
    access: link.access,
    sharedTo: {
      id: link.folderId,
      title: 'Link',
      shareLink: url,
      linkType: 1,
      denyDownload: link.denyDownload,
      ...(link.expiresAt === null ? {} : { expirationDate: isoWithOffset(link.expiresAt) }),
      isExpired: expired,
      primary: true,
      internal: false,
    },
    isOwner: false,
    isLocked: false,
    canEditAccess: true,
  }
}

/**
 * A folder's external link as DocSpace names it (owner and admins): `GET files/folder/{id}/link`
 * (the link, or null when it is off: Folio makes none on a read), `GET .../links` (a list of
 * at most one), `POST .../link` (makes it when off, else answers it as it is) and
 * `PUT .../links` (sets every setting; access 0 turns it off and answers null).
 */
export function folderLinkRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('preHandler', requirePortalUser(ctx))

    app.get('/files/folder/:folderId/link', async (request) => {
      const { folderId } = parseInput(folderIdParams, request.params)
      const link = await ctx.app.sharing.getFolderLink(me(request), folderId)
      return success(link ? presentFolderLink(ctx, link) : null)
    })

    app.get('/files/folder/:folderId/links', async (request) => {
      const { folderId } = parseInput(folderIdParams, request.params)
      const link = await ctx.app.sharing.getFolderLink(me(request), folderId)
      return success(link ? [presentFolderLink(ctx, link)] : [])
    })

    app.post('/files/folder/:folderId/link', async (request) => {
      const { folderId } = parseInput(folderIdParams, request.params)
      const settings = settingsOf(parseInput(folderLinkBody, request.body))
      const existing = await ctx.app.sharing.getFolderLink(me(request), folderId)
      const link = existing ?? (await ctx.app.sharing.setFolderLink(me(request), folderId, settings))
      return success(link ? presentFolderLink(ctx, link) : null)
    })

    app.put('/files/folder/:folderId/links', async (request) => {
      const { folderId } = parseInput(folderIdParams, request.params)
      const settings = settingsOf(parseInput(folderLinkBody, request.body))
      const link = await ctx.app.sharing.setFolderLink(me(request), folderId, settings)
      return success(link ? presentFolderLink(ctx, link) : null)
    })
  }
}
