import type { UserRecord } from '../../core/entities.js'

/**
 * The columns of `users` in a fixed order, for statements that read raw rows (arrays),
 * the same in every SQL driver.
 */
export const USER_COLUMNS = [
  'id', 'user_name', 'display_name', 'email', 'is_admin', 'password_hash', 'wopi_user_info',
  'token_generation', 'created_at', 'updated_at', 'disabled',
] as const

/** One row of `users` as the values of USER_COLUMNS (flags: 0/1 in SQLite, booleans in PostgreSQL). */
export type UserTuple = [
  id: string, user_name: string, display_name: string, email: string, is_admin: number | boolean,
  password_hash: string, wopi_user_info: string, token_generation: number, created_at: number,
  updated_at: number, disabled: number | boolean,
]

/** A raw row (see USER_COLUMNS) as a record. */
export function tupleToUser(t: UserTuple): UserRecord {
  return userAt(t, 0)
}

/**
 * The user whose USER_COLUMNS start at `at` in a longer row (a row of fileWithAccessSql),
 * read in place: copying them out first was a fresh array on every WOPI call. The casts
 * stand for the column order USER_COLUMNS fixes.
 */
export function userAt(row: readonly unknown[], at: number): UserRecord {
  return {
    id: row[at] as UserTuple[0],
    userName: row[at + 1] as UserTuple[1],
    displayName: row[at + 2] as UserTuple[2],
    email: row[at + 3] as UserTuple[3],
    isAdmin: row[at + 4] === 1 || row[at + 4] === true,
    passwordHash: row[at + 5] as UserTuple[5],
    wopiUserInfo: row[at + 6] as UserTuple[6],
    tokenGeneration: row[at + 7] as UserTuple[7],
    createdAt: row[at + 8] as UserTuple[8],
    updatedAt: row[at + 9] as UserTuple[9],
    disabled: row[at + 10] === 1 || row[at + 10] === true,
  }
}
