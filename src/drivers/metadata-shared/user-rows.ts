import type { UserRecord } from '../../core/entities.js'

/**
 * The columns of `users` in a fixed order, for statements that read raw rows (arrays),
 * the same in every SQL driver.
 */
export const USER_COLUMNS = [
  'id', 'user_name', 'display_name', 'email', 'is_admin', 'password_hash', 'wopi_user_info',
  'token_generation', 'created_at', 'updated_at',
] as const

/** One row of `users` as the values of USER_COLUMNS (is_admin: 0/1 in SQLite, a boolean in PostgreSQL). */
export type UserTuple = [
  id: string, user_name: string, display_name: string, email: string, is_admin: number | boolean,
  password_hash: string, wopi_user_info: string, token_generation: number, created_at: number,
  updated_at: number,
]

/** A raw row (see USER_COLUMNS) as a record. */
export function tupleToUser(t: UserTuple): UserRecord {
  return {
    id: t[0],
    userName: t[1],
    displayName: t[2],
    email: t[3],
    isAdmin: t[4] === 1 || t[4] === true,
    passwordHash: t[5],
    wopiUserInfo: t[6],
    tokenGeneration: t[7],
    createdAt: t[8],
    updatedAt: t[9],
  }
}
