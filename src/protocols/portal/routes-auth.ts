import type { FastifyInstance } from 'fastify'
import type { AdapterContext } from '../../app/index.js'
import { isoWithOffset } from '../http/timestamps.js'
import { requirePortalUser, currentUser, me } from './authenticate.js'
import { success } from './envelope.js'
import { presentProfile } from './presenters.js'
import { authenticationBody, parseInput } from './schema.js'

/**
 * Token authentication (POST /authentication: user name and password in, a portal token
 * out, sent back as `Authorization: <token>` or `Bearer <token>`) and the caller's profile.
 */
export function authRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    const authenticate = async (request: import('fastify').FastifyRequest) => {
      const { userName, password } = parseInput(authenticationBody, request.body)
      const session = await ctx.app.accounts.signIn(userName, password, request.ip)
      return success({ token: session.token, expires: isoWithOffset(session.expiresAt) }, 201)
    }
    for (const path of ['/authentication.json', '/authentication']) {
      app.post(path, async (request, reply) => reply.code(201).send(await authenticate(request)))
    }

    const requireUser = requirePortalUser(ctx)
    for (const path of ['/authentication/logout', '/authentication/logout.json']) {
      app.post(path, { onRequest: requireUser }, async (request) => {
        if (request.portalToken) await ctx.app.accounts.signOut(request.portalToken, request.ip)
        return success(null)
      })
    }
    for (const path of ['/people/@self.json', '/people/@self']) {
      app.get(path, { onRequest: requireUser }, async (request) => {
        const user = currentUser(request)
        const usage = await ctx.app.accounts.storageUsage(me(request), [user.id])
        return success(presentProfile(user, usage.get(user.id), await ctx.app.files.settings(me(request))))
      })
    }
  }
}
