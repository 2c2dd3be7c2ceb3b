import type { FastifyInstance } from 'fastify'
import { signIn, signOut } from '../../app/accounts.js'
import type { AppContext } from '../../app/context.js'
import { isoWithOffset } from '../http/timestamps.js'
import { requirePortalUser, currentUser } from './authenticate.js'
import { success } from './envelope.js'
import { presentProfile } from './presenters.js'
import { authenticationBody, parseInput } from './schema.js'

/** Token authentication (seed: "Portal API token") and the caller's profile. */
export function authRoutes(ctx: AppContext) {
  return async (app: FastifyInstance): Promise<void> => {
    const authenticate = async (request: import('fastify').FastifyRequest) => {
      const { userName, password } = parseInput(authenticationBody, request.body)
      const session = await signIn(ctx, userName, password, request.ip)
      return success({ token: session.token, expires: isoWithOffset(session.expiresAt) }, 201)
    }
    for (const path of ['/authentication.json', '/authentication']) {
      app.post(path, async (request, reply) => reply.code(201).send(await authenticate(request)))
    }

    const requireUser = requirePortalUser(ctx)
    for (const path of ['/authentication/logout', '/authentication/logout.json']) {
      app.post(path, { preHandler: requireUser }, async (request) => {
        if (request.portalToken) await signOut(ctx, request.portalToken)
        return success(null)
      })
    }
    for (const path of ['/people/@self.json', '/people/@self']) {
      app.get(path, { preHandler: requireUser }, async (request) =>
        success(presentProfile(currentUser(request))),
      )
    }
  }
}
