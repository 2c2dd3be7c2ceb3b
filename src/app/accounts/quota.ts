import { assertWithinQuota, formatBytes } from '../../core/accounts/quota.js'
import { DomainError } from '../../core/errors.js'
import type { StorageUsage, UserRecord } from '../../ports/metadata-store.js'
import type { Principal } from '../access.js'
import { CONSOLE_ACTOR, principalActor, recordAudit, userSubject, type AuditActor } from '../audit.js'
import type { AppContext } from '../context.js'
import { requireUser, requireUserById } from './accounts.js'

/**
 * Storage quotas: the one check every write of file contents passes (files.ts
 * createFileFromBlob and commitNewVersion, the copy in file-ops.ts), the figures people
 * and admins see, and the admin's limits. The used space is the store's (kept in the
 * transaction of every version added or removed), so every instance decides alike.
 */

/**
 * QUOTA_EXCEEDED when storing `adding` bytes for files `ownerId` owns (while `freeing`
 * bytes of his older versions go in the same change) would take him past his limit. The
 * owner's, whoever writes: a sharee's save into the owner's file counts against the owner.
 * Two writes of one owner racing on two instances may both pass and end a little over.
 */
export async function assertRoomFor(ctx: AppContext, ownerId: string, adding: number, freeing = 0): Promise<void> {
  if (adding <= freeing) return
  assertWithinQuota(await ctx.store.quotas.get(ownerId), adding, freeing)
}

/**
 * The used space and limit of each of `userIds`: one's own, or anyone's for an admin
 * (FORBIDDEN otherwise).
 */
export async function storageUsage(
  ctx: AppContext,
  by: Principal,
  userIds: readonly string[],
): Promise<Map<string, StorageUsage>> {
  if (by.kind !== 'user') throw new DomainError('FORBIDDEN', 'only signed-in people have storage')
  const others = userIds.some((id) => id !== by.user.id)
  if (others && !(await requireUserById(ctx, by.user.id)).isAdmin) {
    throw new DomainError('FORBIDDEN', "only an admin may see other people's storage")
  }
  return ctx.store.quotas.getMany(userIds)
}

/**
 * Sets the storage limit (bytes; undefined removes it) of each of `userIds`, for an admin
 * (FORBIDDEN otherwise). Every id is checked before anything changes; returns the users.
 */
export async function setQuotas(
  ctx: AppContext,
  by: Principal,
  userIds: readonly string[],
  quotaLimit: number | undefined,
): Promise<UserRecord[]> {
  if (by.kind !== 'user' || by.grant === 'read' || !(await requireUserById(ctx, by.user.id)).isAdmin) {
    throw new DomainError('FORBIDDEN', 'only an admin may set storage quotas')
  }
  return applyQuota(ctx, userIds, quotaLimit, principalActor(by))
}

/** setQuotas for one user named by user name, at the console (`folio user quota`). */
export async function setUserQuota(
  ctx: AppContext,
  userName: string,
  quotaLimit: number | undefined,
  actor: AuditActor = CONSOLE_ACTOR,
): Promise<{ user: UserRecord; usage: StorageUsage }> {
  const user = await requireUser(ctx, userName)
  await applyQuota(ctx, [user.id], quotaLimit, actor)
  return { user, usage: await ctx.store.quotas.get(user.id) }
}

/** Every account's used space and limit, at the console (`folio user list`). */
export async function everyonesUsage(ctx: AppContext): Promise<Map<string, StorageUsage>> {
  const users = await ctx.store.users.list()
  return ctx.store.quotas.getMany(users.map((u) => u.id))
}

async function applyQuota(
  ctx: AppContext,
  userIds: readonly string[],
  quotaLimit: number | undefined,
  actor: AuditActor,
): Promise<UserRecord[]> {
  const users: UserRecord[] = []
  for (const id of new Set(userIds)) users.push(await requireUserById(ctx, id))
  await ctx.store.quotas.setLimit(
    users.map((u) => u.id),
    quotaLimit,
  )
  const detail = quotaLimit === undefined ? 'no storage quota' : `storage quota ${formatBytes(quotaLimit)}`
  for (const user of users) await recordAudit(ctx, 'user-changed', actor, userSubject(user), detail)
  return users
}
