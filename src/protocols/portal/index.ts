import type { FastifyInstance } from 'fastify'
import type { AdapterContext } from '../../app/index.js'
import { portalErrorHandler } from './errors.js'
import { appRoutes } from './routes-apps.js'
import { auditRoutes } from './routes-audit.js'
import { authRoutes } from './routes-auth.js'
import { clientRoutes } from './routes-client.js'
import { editorRoutes, openEditRoutes, type EditorTools } from './routes-editor.js'
import { fileRoutes } from './routes-files.js'
import { folderRoutes } from './routes-folders.js'
import { searchRoutes } from './routes-search.js'
import { wopiTokenRoutes } from './routes-wopi.js'
import { sharingRoutes } from './routes-sharing.js'
import { folderLinkRoutes } from './routes-folder-links.js'
import { peopleRoutes } from './routes-people.js'

/**
 * The portal API (mounted under /api/2.0 by the composition root): envelope replies, token
 * authentication, files. `editorTools` are the ONLYOFFICE pieces the editor routes present.
 */
export function portalApi(ctx: AdapterContext, editorTools: EditorTools) {
  return async (app: FastifyInstance): Promise<void> => {
    app.decorateRequest('portalUser', null)
    app.decorateRequest('portalToken', null)
    app.setErrorHandler(portalErrorHandler(ctx.logger))
    app.setNotFoundHandler((request, reply) => {
      reply.code(404).send({
        count: 0,
        error: { message: `no such API method: ${request.method} ${request.url}`, type: 'NOT_FOUND' },
        status: 1,
        statusCode: 404,
      })
    })
    // ONLYOFFICE's portal accepts form posts as well as JSON.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 64 * 1024 },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))))
      },
    )
    // An empty JSON body is an empty object: ONLYOFFICE's apps send Content-Type:
    // application/json and no body on calls whose fields are all optional (emptytrash,
    // terminate, ...). Anything else goes to Fastify's own parser (which refuses
    // prototype poisoning).
    const json = app.getDefaultJsonParser('error', 'error')
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (String(body).trim() === '') {
        done(null, {})
        return
      }
      json(request, String(body), done)
    })
    // One line per route module; each protocol issue adds its own.
    await app.register(authRoutes(ctx))
    await app.register(clientRoutes(ctx, editorTools))
    await app.register(appRoutes(ctx, editorTools))
    await app.register(fileRoutes(ctx))
    await app.register(folderRoutes(ctx))
    await app.register(searchRoutes(ctx))
    await app.register(openEditRoutes(ctx, editorTools))
    await app.register(editorRoutes(ctx, editorTools))
    await app.register(wopiTokenRoutes(ctx))
    await app.register(sharingRoutes(ctx))
    await app.register(folderLinkRoutes(ctx))
    await app.register(peopleRoutes(ctx))
    await app.register(auditRoutes(ctx))
  }
}
