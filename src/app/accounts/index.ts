import { bind, type Bound } from '../bind.js'
import type { AppContext } from '../context.js'
import * as accounts from './accounts.js'
import * as quota from './quota.js'

/** Accounts, sessions and the people admin (see accounts.ts). */
export interface AccountsService {
  createUser: Bound<typeof accounts.createUser>
  ensureAdmin: Bound<typeof accounts.ensureAdmin>
  signIn: Bound<typeof accounts.signIn>
  authenticateToken: Bound<typeof accounts.authenticateToken>
  signOut: Bound<typeof accounts.signOut>
  requireUser: Bound<typeof accounts.requireUser>
  changePassword: Bound<typeof accounts.changePassword>
  setAdmin: Bound<typeof accounts.setAdmin>
  removeUser: Bound<typeof accounts.removeUser>
  requireUserById: Bound<typeof accounts.requireUserById>
  listUsers: Bound<typeof accounts.listUsers>
  assertAdmin: typeof accounts.assertAdmin
  setPassword: Bound<typeof accounts.setPassword>
  changeOwnPassword: Bound<typeof accounts.changeOwnPassword>
  signOutOtherSessions: Bound<typeof accounts.signOutOtherSessions>
  updateUser: Bound<typeof accounts.updateUser>
  removeUserById: Bound<typeof accounts.removeUserById>
  unlockUser: Bound<typeof accounts.unlockUser>
  setUserDisabled: Bound<typeof accounts.setUserDisabled>
  setUsersDisabled: Bound<typeof accounts.setUsersDisabled>
  /** One's own used space and quota, or anyone's for an admin (see quota.ts). */
  storageUsage: Bound<typeof quota.storageUsage>
  /** An admin sets people's storage quotas (PUT people/userquota). */
  setQuotas: Bound<typeof quota.setQuotas>
  /** The console sets one user's quota (`folio user quota`). */
  setUserQuota: Bound<typeof quota.setUserQuota>
  /** Every account's used space and quota, for the console (`folio user list`). */
  everyonesUsage: Bound<typeof quota.everyonesUsage>
  /** Display names of the given user ids (deduplicated lookups; unknown ids map to ''). */
  displayNames(ids: Iterable<string>): Promise<Map<string, string>>
}

export function createAccountsService(ctx: AppContext): AccountsService {
  return {
    createUser: bind(ctx, accounts.createUser),
    ensureAdmin: bind(ctx, accounts.ensureAdmin),
    signIn: bind(ctx, accounts.signIn),
    authenticateToken: bind(ctx, accounts.authenticateToken),
    signOut: bind(ctx, accounts.signOut),
    requireUser: bind(ctx, accounts.requireUser),
    changePassword: bind(ctx, accounts.changePassword),
    setAdmin: bind(ctx, accounts.setAdmin),
    removeUser: bind(ctx, accounts.removeUser),
    requireUserById: bind(ctx, accounts.requireUserById),
    listUsers: bind(ctx, accounts.listUsers),
    assertAdmin: accounts.assertAdmin,
    setPassword: bind(ctx, accounts.setPassword),
    changeOwnPassword: bind(ctx, accounts.changeOwnPassword),
    signOutOtherSessions: bind(ctx, accounts.signOutOtherSessions),
    updateUser: bind(ctx, accounts.updateUser),
    removeUserById: bind(ctx, accounts.removeUserById),
    unlockUser: bind(ctx, accounts.unlockUser),
    setUserDisabled: bind(ctx, accounts.setUserDisabled),
    setUsersDisabled: bind(ctx, accounts.setUsersDisabled),
    storageUsage: bind(ctx, quota.storageUsage),
    setQuotas: bind(ctx, quota.setQuotas),
    setUserQuota: bind(ctx, quota.setUserQuota),
    everyonesUsage: bind(ctx, quota.everyonesUsage),
    displayNames: async (ids) => {
      const names = new Map<string, string>()
      for (const id of new Set(ids)) {
        const user = await ctx.store.users.findById(id)
        names.set(id, user?.displayName ?? '')
      }
      return names
    },
  }
}
