import { DomainError } from '../core/errors.js'
import { newId } from '../core/ids.js'
import {
  generatePassword,
  hashPassword,
  passwordProblem,
  userNameProblem,
  verifyPassword,
} from '../core/accounts/passwords.js'
import { throttleWait } from '../core/accounts/throttle.js'
import { hashSessionToken, newSessionToken } from '../core/tokens/session-token.js'
import type { UserRecord } from '../ports/metadata-store.js'
import type { AppContext } from './context.js'

export interface NewUserInput {
  userName: string
  password: string
  isAdmin?: boolean
  displayName?: string
  email?: string
}

/** Creates an account. Throws INVALID_INPUT for a bad name or password, USER_EXISTS. */
export async function createUser(ctx: AppContext, input: NewUserInput): Promise<UserRecord> {
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
    wopiUserInfo: '',
    createdAt: now,
    updatedAt: now,
  }
  await ctx.store.users.create(user)
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
let dummyHash: Promise<string> | undefined

/**
 * Checks a user name and password and opens a session. Failed attempts are
 * counted per user name and per client address in the store (so the throttle
 * survives restarts and is shared by instances); over the limit -> 429.
 * The error for a wrong password and an unknown user is the same.
 */
export async function signIn(
  ctx: AppContext,
  userName: string,
  password: string,
  clientAddress: string,
): Promise<SignIn> {
  const now = ctx.clock.now()
  const windowMs = ctx.config.loginWindowMs
  const perUser = { maxFailures: ctx.config.loginMaxFailures, windowMs }
  // An address may be a NAT or proxy shared by many people: it gets a larger budget.
  const perAddress = { maxFailures: ctx.config.loginMaxFailures * ADDRESS_BUDGET_FACTOR, windowMs }
  const keys = [`user:${userName.toLowerCase()}`, `addr:${clientAddress}`]
  const [userWindow, addressWindow] = await Promise.all(keys.map((key) => ctx.store.throttle.get(key)))
  const wait = Math.max(
    throttleWait(userWindow, perUser, now),
    throttleWait(addressWindow, perAddress, now),
  )
  if (wait > 0) {
    throw new DomainError('TOO_MANY_ATTEMPTS', 'too many failed sign-in attempts; try again later', {
      retryAfterSeconds: wait,
    })
  }
  const user = await ctx.store.users.findByUserName(userName)
  // Hash even for unknown users so response time does not reveal which names exist.
  dummyHash ??= hashPassword(DUMMY_HASH_PASSWORD)
  const matches = await verifyPassword(password, user?.passwordHash ?? (await dummyHash))
  if (!user || !matches) {
    await Promise.all(keys.map((key) => ctx.store.throttle.recordFailure(key, now, windowMs)))
    throw new DomainError('INVALID_CREDENTIALS', 'user name or password is wrong')
  }
  await ctx.store.throttle.clear(keys[0] ?? '')
  const token = newSessionToken()
  const expiresAt = now + ctx.config.sessionTtlMs
  await ctx.store.sessions.create({
    tokenHash: hashSessionToken(token),
    userId: user.id,
    createdAt: now,
    expiresAt,
  })
  return { token, expiresAt, user }
}

/** The user a portal token belongs to; UNAUTHENTICATED when unknown, expired or revoked. */
export async function authenticateToken(ctx: AppContext, token: string): Promise<UserRecord> {
  const session = await ctx.store.sessions.find(hashSessionToken(token))
  if (!session || ctx.clock.now() >= session.expiresAt) {
    throw new DomainError('UNAUTHENTICATED', 'the token is unknown, expired or revoked')
  }
  const user = await ctx.store.users.findById(session.userId)
  if (!user) throw new DomainError('UNAUTHENTICATED', 'the token is unknown, expired or revoked')
  return user
}

/** Ends the session of this token. */
export async function signOut(ctx: AppContext, token: string): Promise<void> {
  await ctx.store.sessions.revoke(hashSessionToken(token))
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
): Promise<void> {
  const user = await requireUser(ctx, userName)
  await setPassword(ctx, user.id, password)
}

/** Grants or withdraws admin rights. */
export async function setAdmin(ctx: AppContext, userName: string, isAdmin: boolean): Promise<void> {
  const user = await requireUser(ctx, userName)
  await ctx.store.users.update(user.id, { isAdmin, updatedAt: ctx.clock.now() })
}

/** Removes an account and its sessions. */
export async function removeUser(ctx: AppContext, userName: string): Promise<void> {
  const user = await requireUser(ctx, userName)
  await ctx.store.users.remove(user.id)
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

/** Sets a new password for the user with this id and ends every session of theirs. */
export async function setPassword(ctx: AppContext, userId: string, password: string): Promise<void> {
  const problem = passwordProblem(password)
  if (problem) throw new DomainError('INVALID_INPUT', problem)
  const user = await requireUserById(ctx, userId)
  await ctx.store.users.update(user.id, {
    passwordHash: await hashPassword(password),
    updatedAt: ctx.clock.now(),
  })
  await ctx.store.sessions.revokeAllForUser(user.id)
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
): Promise<UserRecord> {
  const user = await requireUserById(ctx, userId)
  if (actor.id === user.id && changes.isAdmin === false && user.isAdmin) {
    throw new DomainError('FORBIDDEN', 'you cannot withdraw your own admin rights')
  }
  const patch = { ...changes, updatedAt: ctx.clock.now() }
  if (!(await ctx.store.users.update(user.id, patch))) {
    throw new DomainError('NOT_FOUND', 'no such user')
  }
  return requireUserById(ctx, user.id)
}

/** Removes an account and its sessions on behalf of `actor`, who may not remove themselves. */
export async function removeUserById(ctx: AppContext, actor: UserRecord, userId: string): Promise<void> {
  if (actor.id === userId) throw new DomainError('FORBIDDEN', 'you cannot remove your own account')
  const user = await requireUserById(ctx, userId)
  await ctx.store.users.remove(user.id)
}
