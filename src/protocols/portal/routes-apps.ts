import type { FastifyInstance } from 'fastify'
import * as z from 'zod/mini'
import type { AdapterContext } from '../../app/create-app.js'
import type { UserSettings } from '../../ports/metadata-store.js'
import { me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { parseInput } from './schema.js'

/** A boolean from JSON or a form/query ('true' / 'false'). */
const flag = z.union([z.boolean(), z.pipe(z.enum(['true', 'false', 'True', 'False']), z.transform((v) => v.toLowerCase() === 'true'))])

const setBody = z.object({ set: flag })

/**
 * The files settings as ONLYOFFICE's `GET files/settings` reports them: the caller's own
 * choices, and fixed answers for what Folio always does (originals kept, no forcesave
 * copies, the recent and favourites sections not offered).
 */
function presentSettings(settings: UserSettings) {
  return {
    updateIfExist: settings.updateIfExist,
    storeOriginalFiles: true,
    confirmDelete: true,
    forcesave: false,
    storeForcesave: false,
    recentSection: false,
    favoritesSection: false,
    templatesSection: false,
    hideConfirmConvertOpen: true,
    hideConfirmConvertSave: true,
    externalShare: true,
  }
}

/**
 * Calls ONLYOFFICE's own apps make beside browsing: the files settings, and the choice
 * of what a same-named upload does (`files/updateifexist`). Each also answers with a
 * '.json' suffix.
 */
export function appRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('preHandler', requirePortalUser(ctx))

    for (const path of ['/files/settings', '/files/settings.json']) {
      app.get(path, async (request) => success(presentSettings(await ctx.app.files.settings(me(request)))))
    }

    for (const path of ['/files/updateifexist', '/files/updateifexist.json']) {
      app.put(path, async (request) => {
        const { set } = parseInput(setBody, request.body)
        const settings = await ctx.app.files.setUpdateIfExist(me(request), set)
        return success(settings.updateIfExist)
      })
    }
  }
}
