import type { FastifyInstance, FastifyRequest } from 'fastify'
import * as z from 'zod/mini'
import { DomainError } from '../../core/errors.js'
import { actorOf, type AdapterContext } from '../../app/index.js'
import type { UserRecord } from '../../core/entities.js'
import { checkedLimit } from '../../core/accounts/quota.js'
import { currentUser, me, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { presentProfile } from './presenters.js'
import { parseInput, text } from './schema.js'

// Request shapes of the people API (kept here: only these routes use them).
const displayName = z.string().check(z.trim(), z.minLength(1), z.maxLength(128))
const email = z.union([z.literal(''), z.email().check(z.maxLength(254))])

const newPersonBody = z.object({
  userName: text(1, 64),
  password: text(1, 1024),
  isAdmin: z._default(z.boolean(), false),
  displayName: z.optional(displayName),
  email: z.optional(email),
})

const personPatchBody = z
  .object({ isAdmin: z.optional(z.boolean()), displayName: z.optional(displayName), email: z.optional(email) })
  .check(
    z.refine((body) => Object.values(body).some((value) => value !== undefined), {
      message: 'nothing to change: send isAdmin, displayName or email',
    }),
  )

// ONLYOFFICE's body is {password}; changing one's own also needs the current password.
const passwordBody = z.object({ password: text(1, 1024), currentPassword: z.optional(text(1, 1024)) })

// DocSpace's PUT people/userquota: the limit in bytes, -1 for none.
const quotaBody = z.object({
  userIds: z.array(text(1, 128)).check(z.minLength(1), z.maxLength(1000)),
  quota: z.number().check(z.int(), z.gte(-1), z.lte(Number.MAX_SAFE_INTEGER)),
})

const userIdParams = z.object({ userId: text(1, 128) })

// ONLYOFFICE's body of PUT people/{userid}/culture; '' goes back to the browser's language.
const cultureBody = z.object({ cultureName: text(0, 35) })

const listQuery = z.object({ filterValue: z._default(text(0, 256), '') })

const statusParams = z.object({ status: text(1, 32) })

const statusBody = z.object({ userIds: z.array(text(1, 128)).check(z.minLength(1), z.maxLength(1000)) })

/**
 * ONLYOFFICE's EmployeeStatus in the path of PUT people/status/{status}, as a name or a
 * number: Active (1) enables, Terminated (2) disables; any other status is refused.
 */
function disabledByStatus(status: string): boolean {
  const name = status.toLowerCase().replace(/\.json$/, '')
  if (name === 'active' || name === '1') return false
  if (name === 'terminated' || name === '2') return true
  throw new DomainError('INVALID_INPUT', 'status is Active (1) or Terminated (2)', { field: 'status' })
}

/**
 * The people API (ONLYOFFICE portal paths under /people). Every signed-in user may list
 * people to pick someone to share with: `GET /people` answers everyone else's id and
 * display name only (see sharing.findPeople). Managing accounts is for admins (403 to
 * others): the full list with e-mail addresses, add, change, reset a password, remove.
 */
export function peopleRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('onRequest', requirePortalUser(ctx))
    const adminOnly = {
      onRequest: async (request: FastifyRequest) => ctx.app.accounts.assertAdmin(currentUser(request)),
    }

    // Profiles with their used space and quota (the caller is an admin, or they are his own).
    const profiles = async (request: FastifyRequest, users: UserRecord[]) => {
      const usage = await ctx.app.accounts.storageUsage(
        me(request),
        users.map((u) => u.id),
      )
      return users.map((u) => presentProfile(u, usage.get(u.id)))
    }
    const profile = async (request: FastifyRequest, user: UserRecord) => (await profiles(request, [user]))[0]

    for (const path of ['/people', '/people.json']) {
      app.get(path, async (request) => {
        const user = currentUser(request)
        if (user.isAdmin) return success(await profiles(request, await ctx.app.accounts.listUsers()))
        const { filterValue } = parseInput(listQuery, request.query)
        return success(await ctx.app.sharing.findPeople(me(request), filterValue))
      })
      app.post(path, adminOnly, async (request, reply) => {
        const input = parseInput(newPersonBody, request.body)
        const user = await ctx.app.accounts.createUser(input, actorOf(currentUser(request), request.ip))
        return reply.code(201).send(success(await profile(request, user), 201))
      })
    }

    app.get('/people/:userId', adminOnly, async (request) => {
      const { userId } = parseInput(userIdParams, request.params)
      return success(await profile(request, await ctx.app.accounts.requireUserById(userId)))
    })

    // DocSpace's storage quota of several people at once: admins only, every id checked
    // before any changes; the reply lists them with their used space and new quota.
    for (const path of ['/people/userquota', '/people/userquota.json']) {
      app.put(path, adminOnly, async (request) => {
        const { userIds, quota } = parseInput(quotaBody, request.body)
        const users = await ctx.app.accounts.setQuotas(me(request), userIds, checkedLimit(quota))
        return success(await profiles(request, users))
      })
    }

    app.put('/people/:userId', adminOnly, async (request) => {
      const { userId } = parseInput(userIdParams, request.params)
      const changes = parseInput(personPatchBody, request.body)
      const user = await ctx.app.accounts.updateUser(currentUser(request), userId, changes, request.ip)
      return success(await profile(request, user))
    })

    // One's own password (`@self` or one's id): the current password is required (an admin
    // who leaves it out resets it as for anyone, ending every session of theirs). Someone
    // else's: admins only.
    app.put('/people/:userId/password', async (request) => {
      const { userId } = parseInput(userIdParams, request.params)
      const { password, currentPassword } = parseInput(passwordBody, request.body)
      const user = currentUser(request)
      const own = userId === '@self' || userId === user.id
      if (own && (currentPassword !== undefined || !user.isAdmin)) {
        if (currentPassword === undefined) {
          throw new DomainError('INVALID_INPUT', 'send currentPassword to change your own password', {
            field: 'currentPassword',
          })
        }
        await ctx.app.accounts.changeOwnPassword(me(request), request.portalToken ?? '', currentPassword, password)
        return success(await profile(request, await ctx.app.accounts.requireUserById(user.id)))
      }
      ctx.app.accounts.assertAdmin(user)
      await ctx.app.accounts.setPassword(userId, password, actorOf(currentUser(request), request.ip))
      return success(await profile(request, await ctx.app.accounts.requireUserById(userId)))
    })

    // The language of one's own interface (ONLYOFFICE's path); kept with the account so it
    // follows the person to every browser. Only one's own (`@self` or one's id).
    app.put('/people/:userId/culture', async (request) => {
      const { userId } = parseInput(userIdParams, request.params)
      const { cultureName } = parseInput(cultureBody, request.body)
      const user = currentUser(request)
      if (userId !== '@self' && userId !== user.id) {
        throw new DomainError('FORBIDDEN', 'only your own language can be set')
      }
      const settings = await ctx.app.files.setCultureName(me(request), cultureName)
      return success(presentProfile(user, undefined, settings))
    })

    // DocSpace's "log out of all other sessions": every session of the caller but this one.
    app.put('/security/activeconnections/logoutallexceptthis', async (request) => {
      await ctx.app.accounts.signOutOtherSessions(me(request), request.portalToken ?? '')
      return success(currentUser(request).id)
    })

    // Disables (Terminated) or enables (Active) accounts without removing them; every id is
    // checked before any changes, and the reply lists the accounts as they are now.
    app.put('/people/status/:status', adminOnly, async (request) => {
      const { status } = parseInput(statusParams, request.params)
      const disabled = disabledByStatus(status)
      const { userIds } = parseInput(statusBody, request.body)
      const actor = currentUser(request)
      const users = await ctx.app.accounts.setUsersDisabled(userIds, disabled, actorOf(actor, request.ip), actor.id)
      return success(await profiles(request, users))
    })

    app.delete('/people/:userId', adminOnly, async (request) => {
      const { userId } = parseInput(userIdParams, request.params)
      await ctx.app.accounts.removeUserById(currentUser(request), userId, request.ip)
      return success({ id: userId, deleted: true })
    })
  }
}
