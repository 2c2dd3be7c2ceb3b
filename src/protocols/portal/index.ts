import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.js'
import { portalErrorHandler } from './errors.js'
import { authRoutes } from './routes-auth.js'
import { editorRoutes } from './routes-editor.js'
import { fileRoutes } from './routes-files.js'
import { wopiTokenRoutes } from './routes-wopi.js'
import { peopleRoutes } from './routes-people.js'

/** The portal API under /api/2.0: envelope replies, token authentication, files. */
export function portalApi(ctx: AppContext) {
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
    // One line per route module; each protocol issue adds its own.
    await app.register(authRoutes(ctx))
    await app.register(fileRoutes(ctx))
    await app.register(editorRoutes(ctx))
    await app.register(wopiTokenRoutes(ctx))
    await app.register(peopleRoutes(ctx))
  }
}
