import { DomainError } from '../../core/errors.js'
import { newId } from '../../core/ids.js'
import {
  generatePassword,
  hashPassword,
  passwordProblem,
  userNameProblem,
  verifyPassword,
} from '../../core/accounts/passwords.js'
import {
  DEFAULT_BASE_LOCK_MS,
  releaseAttempt,
  reserveAttempt,
  type ThrottlePolicy,
} from '../../core/accounts/throttle.js'
import { hashSessionToken, newSessionToken } from '../../core/tokens/session-token.js'
import type { UserRecord } from '../../ports/metadata-store.js'
import { dropEditorsOf } from '../editor-notices.js'
import {
  actorOf,
  principalActor,
  recordAudit,
  SYSTEM_ACTOR,
  CONSOLE_ACTOR,
  userSubject,
  type AuditActor,
} from '../audit.js'
import type { Principal } from '../access.js'
import type { AppContext } from '../context.js'

export interface NewUserInput {
  userName: string
  password: string
  isAdmin?: boolean
  displayName?: string
  email?: string
}

/** Creates an account. Throws INVALID_INPUT for a bad name or password, USER_EXISTS. */
export async function createUser(
  ctx: AppContext,
  input: NewUserInput,
  actor: AuditActor = SYSTEM_ACTOR,
): Promise<UserRecord> {
  const problem = userNameProblem(input.userName) ?? passwordProblem(input.password)
  if (problem) throw new DomainError('INVALID_INPUT', problem)
  const now = ctx.clock.now()
  const user: UserRecord = {
    id: newId(),
    userName: input.userName,
    displayName: input.displayName ?? input.userName,
    email: input.email ?? '',
    isAdmin: input.isAdmin ?? false,
    passwordHash: await hashPassword(input.password),
    tokenGeneration: 0,
    wopiUserInfo: '',
    disabled: false,
    createdAt: now,
    updatedAt: now,
  }
  await ctx.store.users.create(user)
  await recordAudit(ctx, 'user-created', actor, userSubject(user), user.isAdmin ? 'admin' : '')
  return user
}

/**
 * Makes sure the configured admin account exists. Returns the generated
 * password when one had to be made up (the caller logs it once), else undefined.
 */
export async function ensureAdmin(ctx: AppContext): Promise<string | undefined> {
  const { adminUser, adminPassword } = ctx.config
  if (await ctx.store.users.findByUserName(adminUser)) return undefined
  const password = adminPassword ?? generatePassword()
  try {
    await createUser(ctx, { userName: adminUser, password, isAdmin: true })
  } catch (error) {
    // Another instance created it first: that is fine.
    if (error instanceof DomainError && error.code === 'USER_EXISTS') return undefined
    throw error
  }
  return adminPassword ? undefined : password
}

export interface SignIn {
  token: string
  expiresAt: number
  user: UserRecord
}

/** Failed sign-ins one client address may make: this many times the per-user limit. */
const ADDRESS_BUDGET_FACTOR = 5

const DUMMY_HASH_PASSWORD = 'folio-timing-equaliser'
// Per process: a hash of a fixed text, only to spend the same time as a real check.
let dummyHash: Promise<string> | undefined

/** The throttle key of a user name (names are unique without regard to case). */
function userThrottleKey(userName: string): string {
  return `user:${userName.toLowerCase()}`
}

/** The throttle policies for user names and for client addresses. */
function throttlePolicies(ctx: AppContext): { perUser: ThrottlePolicy; perAddress: ThrottlePolicy } {
  const windowMs = ctx.config.loginWindowMs
  const baseLockMs = Math.min(DEFAULT_BASE_LOCK_MS, windowMs)
  const perUser = { maxFailures: ctx.config.loginMaxFailures, windowMs, baseLockMs }
  // An address may be a NAT or proxy shared by many people: it gets a larger budget.
  const perAddress = { ...perUser, maxFailures: ctx.config.loginMaxFailures * ADDRESS_BUDGET_FACTOR }
  return { perUser, perAddress }
}

/** Counts one attempt on the key before the password is checked; 429 while it is locked. */
async function reserve(ctx: AppContext, key: string, policy: ThrottlePolicy, now: number): Promise<void> {
  const outcome = await ctx.store.throttle.update(key, (current) => {
    const reservation = reserveAttempt(current, policy, now)
    return { next: reservation.next, result: reservation }
  })
  if (!outcome.allowed) {
    throw new DomainError('TOO_MANY_ATTEMPTS', 'too many failed sign-in attempts; try again later', {
      retryAfterSeconds: outcome.retryAfterSeconds,
    })
  }
}

/**
 * Checks a user name and password and opens a session. Every attempt is counted per
 * user name and per client address in the store before the password is checked (one
 * atomic step, so a burst of parallel attempts, even spread over instances sharing the
 * store, gets at most the limit through); over the limit -> 429 at once, without
 * hashing. A successful sign-in clears the user name's count and gives back the
 * address's. The error for a wrong password and an unknown user is the same.
 */
export async function signIn(
  ctx: AppContext,
  userName: string,
  password: string,
  clientAddress: string,
): Promise<SignIn> {
  const now = ctx.clock.now()
  const { perUser, perAddress } = throttlePolicies(ctx)
  const userKey = userThrottleKey(userName)
  const addressKey = `addr:${clientAddress}`
  // A failure names the user name tried (no account may have it) and no id.
  const failed = (detail: string) =>
    recordAudit(ctx, 'sign-in-failed', { id: '', name: userName, address: clientAddress }, undefined, detail)
  try {
    await reserve(ctx, userKey, perUser, now)
  } catch (error) {
    await failed('throttled')
    throw error
  }
  try {
    await reserve(ctx, addressKey, perAddress, now)
  } catch (error) {
    // The address is locked: this attempt checks nothing, so the user name gets it back.
    await ctx.store.throttle.update(userKey, (current) => ({
      next: releaseAttempt(current, perUser, now),
      result: undefined,
    }))
    await failed('throttled')
    throw error
  }
  const user = await ctx.store.users.findByUserName(userName)
  // Hash even for unknown users so response time does not reveal which names exist.
  dummyHash ??= hashPassword(DUMMY_HASH_PASSWORD)
  const matches = await verifyPassword(password, user?.passwordHash ?? (await dummyHash))
  if (!user || !matches) {
    await failed(user ? 'wrong password' : 'unknown user')
    throw new DomainError('INVALID_CREDENTIALS', 'user name or password is wrong')
  }
  await ctx.store.throttle.clear(userKey)
  await ctx.store.throttle.update(addressKey, (current) => ({
    next: releaseAttempt(current, perAddress, now),
    result: undefined,
  }))
  // Said only after the password checked out, so a disabled account is no clue to a
  // guesser; the right password is no failure, so it does not count towards a lock-out.
  if (user.disabled) {
    await failed('disabled')
    throw new DomainError('USER_DISABLED', 'this account is disabled; an admin can enable it again')
  }
  const token = newSessionToken()
  const expiresAt = now + ctx.config.sessionTtlMs
  await ctx.store.sessions.create({
    tokenHash: hashSessionToken(token),
    userId: user.id,
    createdAt: now,
    expiresAt,
  })
  await recordAudit(ctx, 'sign-in', actorOf(user, clientAddress))
  return { token, expiresAt, user }
}

/** Lifts the sign-in lock-out of a user name (an admin's way out). Throws NOT_FOUND. */
export async function unlockUser(ctx: AppContext, userName: string, actor: AuditActor = CONSOLE_ACTOR): Promise<void> {
  const user = await requireUser(ctx, userName)
  await ctx.store.throttle.clear(userThrottleKey(user.userName))
  await recordAudit(ctx, 'user-unlocked', actor, userSubject(user))
}

/**
 * Deletes expired sessions and throttle keys that have started over. Returns how many
 * of each went.
 */
export async function purgeExpiredAccountsState(
  ctx: Pick<AppContext, 'store' | 'clock' | 'config'>,
): Promise<{ sessions: number; throttleKeys: number }> {
  const now = ctx.clock.now()
  const sessions = await ctx.store.sessions.purgeExpired(now)
  const throttleKeys = await ctx.store.throttle.purgeStale(now, ctx.config.loginWindowMs)
  return { sessions, throttleKeys }
}

/** The user a portal token belongs to; UNAUTHENTICATED when unknown, expired or revoked. */
export async function authenticateToken(ctx: AppContext, token: string): Promise<UserRecord> {
  const session = await ctx.store.sessions.find(hashSessionToken(token))
  if (!session || ctx.clock.now() >= session.expiresAt) {
    throw new DomainError('UNAUTHENTICATED', 'the token is unknown, expired or revoked')
  }
  const user = await ctx.store.users.findById(session.userId)
  // Disabling ends the sessions too; the flag also covers one opened while it happened.
  if (!user || user.disabled) throw new DomainError('UNAUTHENTICATED', 'the token is unknown, expired or revoked')
  return user
}

/** Ends the session of this token (from `address`, for the audit trail). */
export async function signOut(ctx: AppContext, token: string, address: string): Promise<void> {
  const tokenHash = hashSessionToken(token)
  const session = await ctx.store.sessions.find(tokenHash)
  await ctx.store.sessions.revoke(tokenHash)
  const user = session ? await ctx.store.users.findById(session.userId) : undefined
  if (user) await recordAudit(ctx, 'sign-out', actorOf(user, address))
}

/** Finds a user by name or throws NOT_FOUND. */
export async function requireUser(ctx: AppContext, userName: string): Promise<UserRecord> {
  const user = await ctx.store.users.findByUserName(userName)
  if (!user) throw new DomainError('NOT_FOUND', `no user named ${userName}`)
  return user
}

/** Sets a new password and ends every session of the user. */
export async function changePassword(
  ctx: AppContext,
  userName: string,
  password: string,
  actor: AuditActor = CONSOLE_ACTOR,
): Promise<void> {
  const user = await requireUser(ctx, userName)
  await setPassword(ctx, user.id, password, actor)
}

/** Grants or withdraws admin rights; withdrawing them ends the user's WOPI access tokens. */
export async function setAdmin(
  ctx: AppContext,
  userName: string,
  isAdmin: boolean,
  actor: AuditActor = CONSOLE_ACTOR,
): Promise<void> {
  const user = await requireUser(ctx, userName)
  await ctx.store.users.update(user.id, {
    isAdmin,
    updatedAt: ctx.clock.now(),
    bumpTokenGeneration: endsTokens(user, isAdmin),
  })
  await recordAudit(ctx, isAdmin ? 'admin-granted' : 'admin-withdrawn', actor, userSubject(user))
}

/** True when taking away admin rights: the user's WOPI access tokens must end too. */
function endsTokens(user: UserRecord, isAdmin: boolean | undefined): boolean {
  return user.isAdmin && isAdmin === false
}

/** Removes an account and its sessions. */
export async function removeUser(ctx: AppContext, userName: string, actor: AuditActor = CONSOLE_ACTOR): Promise<void> {
  const user = await requireUser(ctx, userName)
  await ctx.store.users.remove(user.id)
  await recordAudit(ctx, 'user-removed', actor, userSubject(user))
}

/** Finds a user by id or throws NOT_FOUND. */
export async function requireUserById(ctx: AppContext, userId: string): Promise<UserRecord> {
  const user = await ctx.store.users.findById(userId)
  if (!user) throw new DomainError('NOT_FOUND', 'no such user')
  return user
}

/** Every account, sorted by user name (case-insensitive). */
export async function listUsers(ctx: AppContext): Promise<UserRecord[]> {
  const users = await ctx.store.users.list()
  return users.sort((a, b) => a.userName.localeCompare(b.userName, 'en', { sensitivity: 'base' }))
}

/** Throws FORBIDDEN unless the user is an admin. */
export function assertAdmin(user: UserRecord): void {
  if (!user.isAdmin) throw new DomainError('FORBIDDEN', 'only an admin may manage users')
}

/**
 * Sets a new password for the user with this id, ends every session and WOPI access token
 * of theirs and lifts their sign-in lock-out.
 */
export async function setPassword(ctx: AppContext, userId: string, password: string, actor: AuditActor): Promise<void> {
  const problem = passwordProblem(password)
  if (problem) throw new DomainError('INVALID_INPUT', problem)
  const user = await requireUserById(ctx, userId)
  await ctx.store.users.update(user.id, {
    passwordHash: await hashPassword(password),
    updatedAt: ctx.clock.now(),
    bumpTokenGeneration: true,
  })
  await ctx.store.sessions.revokeAllForUser(user.id)
  await ctx.store.throttle.clear(userThrottleKey(user.userName))
  await recordAudit(ctx, 'password-set', actor, userSubject(user))
}

/** Fields an admin may change on an account (absent ones stay as they are). */
export interface UserChanges {
  isAdmin?: boolean
  displayName?: string
  email?: string
}

/**
 * Changes a user's admin flag or profile on behalf of `actor`. An admin may not
 * withdraw their own admin rights, so there is always someone left to manage users.
 */
export async function updateUser(
  ctx: AppContext,
  actor: UserRecord,
  userId: string,
  changes: UserChanges,
  address: string,
): Promise<UserRecord> {
  const user = await requireUserById(ctx, userId)
  if (actor.id === user.id && changes.isAdmin === false && user.isAdmin) {
    throw new DomainError('FORBIDDEN', 'you cannot withdraw your own admin rights')
  }
  const patch = {
    ...changes,
    updatedAt: ctx.clock.now(),
    bumpTokenGeneration: endsTokens(user, changes.isAdmin),
  }
  if (!(await ctx.store.users.update(user.id, patch))) {
    throw new DomainError('NOT_FOUND', 'no such user')
  }
  const who = actorOf(actor, address)
  if (changes.isAdmin !== undefined && changes.isAdmin !== user.isAdmin) {
    await recordAudit(ctx, changes.isAdmin ? 'admin-granted' : 'admin-withdrawn', who, userSubject(user))
  }
  const profile = (['displayName', 'email'] as const).filter(
    (field) => changes[field] !== undefined && changes[field] !== user[field],
  )
  if (profile.length > 0) {
    await recordAudit(ctx, 'user-changed', who, userSubject(user), profile.join(', '))
  }
  return requireUserById(ctx, user.id)
}

/** Removes an account and its sessions on behalf of `actor`, who may not remove themselves. */
export async function removeUserById(
  ctx: AppContext,
  actor: UserRecord,
  userId: string,
  address: string,
): Promise<void> {
  if (actor.id === userId) throw new DomainError('FORBIDDEN', 'you cannot remove your own account')
  const user = await requireUserById(ctx, userId)
  await ctx.store.users.remove(user.id)
  await recordAudit(ctx, 'user-removed', actorOf(actor, address), userSubject(user))
}

/**
 * Disables or enables the users with these ids on behalf of `actor` (`actorId`: the acting
 * account, '' for the console). Disabling ends at once everything issued to a user: their
 * sessions, their WOPI access tokens (the token generation moves on), the links to their
 * files (refused while the owner is disabled) and their open ONLYOFFICE editors (Docs is
 * told to drop them). Their files and the shares to them stay, so enabling the account
 * gives back what it had. No one may disable themselves, nor leave no enabled admin, so
 * someone always remains to manage users. Every id is checked before anything changes:
 * one refusal (NOT_FOUND, FORBIDDEN) changes nothing. Returns the users as they are now.
 */
export async function setUsersDisabled(
  ctx: AppContext,
  userIds: readonly string[],
  disabled: boolean,
  actor: AuditActor,
  actorId: string,
): Promise<UserRecord[]> {
  const users: UserRecord[] = []
  for (const id of new Set(userIds)) users.push(await requireUserById(ctx, id))
  if (disabled) {
    if (users.some((u) => u.id === actorId)) throw new DomainError('FORBIDDEN', 'you cannot disable your own account')
    const leaving = new Set(users.map((u) => u.id))
    const everyone = await ctx.store.users.list()
    if (!everyone.some((u) => u.isAdmin && !u.disabled && !leaving.has(u.id))) {
      throw new DomainError('FORBIDDEN', 'the last enabled admin cannot be disabled')
    }
  }
  const now: UserRecord[] = []
  for (const user of users) {
    if (user.disabled !== disabled) await applyDisabled(ctx, user, disabled, actor)
    now.push(await requireUserById(ctx, user.id))
  }
  return now
}

/** setUsersDisabled for one user, named by user name (the console's way). */
export async function setUserDisabled(
  ctx: AppContext,
  userName: string,
  disabled: boolean,
  actor: AuditActor = CONSOLE_ACTOR,
): Promise<UserRecord> {
  const user = await requireUser(ctx, userName)
  const [now = user] = await setUsersDisabled(ctx, [user.id], disabled, actor, '')
  return now
}

async function applyDisabled(ctx: AppContext, user: UserRecord, disabled: boolean, actor: AuditActor): Promise<void> {
  const patch = { disabled, updatedAt: ctx.clock.now(), bumpTokenGeneration: disabled }
  if (!(await ctx.store.users.update(user.id, patch))) throw new DomainError('NOT_FOUND', 'no such user')
  if (disabled) {
    await ctx.store.sessions.revokeAllForUser(user.id)
    await dropEditorsOf(ctx, user.id)
  }
  await recordAudit(ctx, disabled ? 'user-disabled' : 'user-enabled', actor, userSubject(user))
}

/**
 * The signed-in person of `by` (through the session of `token`), as stored now; their own
 * account is all the calls below touch. A link guest or a read-only credential has none.
 */
async function ownAccount(ctx: AppContext, by: Principal): Promise<UserRecord> {
  if (by.kind !== 'user') throw new DomainError('UNAUTHENTICATED', 'sign in to change your account')
  if (by.grant === 'read') throw new DomainError('FORBIDDEN', 'this access token is read-only')
  return requireUserById(ctx, by.user.id)
}

/**
 * Changes one's own password: the current password must be given (FORBIDDEN when it is
 * wrong, so a session left open cannot take over the account). Every other session of the
 * user and every WOPI token issued to them ends; the session of `token` stays.
 */
export async function changeOwnPassword(
  ctx: AppContext,
  by: Principal,
  token: string,
  currentPassword: string,
  password: string,
): Promise<void> {
  const user = await ownAccount(ctx, by)
  if (!(await verifyPassword(currentPassword, user.passwordHash))) {
    throw new DomainError('FORBIDDEN', 'the current password is not right')
  }
  const problem = passwordProblem(password)
  if (problem) throw new DomainError('INVALID_INPUT', problem)
  await ctx.store.users.update(user.id, {
    passwordHash: await hashPassword(password),
    updatedAt: ctx.clock.now(),
    bumpTokenGeneration: true,
  })
  await ctx.store.sessions.revokeAllForUser(user.id, hashSessionToken(token))
  await recordAudit(ctx, 'password-set', principalActor(by), userSubject(user))
}

/** Ends every session of the signed-in user but the one of `token` (other browsers, apps). */
export async function signOutOtherSessions(ctx: AppContext, by: Principal, token: string): Promise<void> {
  const user = await ownAccount(ctx, by)
  await ctx.store.sessions.revokeAllForUser(user.id, hashSessionToken(token))
  await recordAudit(ctx, 'sign-out', principalActor(by), userSubject(user))
}
