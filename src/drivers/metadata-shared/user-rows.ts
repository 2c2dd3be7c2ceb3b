import type { UserRecord } from '../../core/entities.js'
import { DomainError } from '../../core/errors.js'
import type { UserPatch } from '../../ports/metadata-store.js'
import { paramList, type Dialect, type ParamType } from './dialect.js'

/**
 * The columns of `users` in a fixed order, for statements that read raw rows (arrays),
 * the same in every SQL driver.
 */
export const USER_COLUMNS = [
  'id',
  'user_name',
  'display_name',
  'email',
  'is_admin',
  'password_hash',
  'wopi_user_info',
  'token_generation',
  'created_at',
  'updated_at',
  'disabled',
] as const

/** One row of `users` as the values of USER_COLUMNS (flags: 0/1 in SQLite, booleans in PostgreSQL). */
export type UserTuple = [
  id: string,
  user_name: string,
  display_name: string,
  email: string,
  is_admin: number | boolean,
  password_hash: string,
  wopi_user_info: string,
  token_generation: number,
  created_at: number,
  updated_at: number,
  disabled: number | boolean,
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

/** A row of `users` read by name (flags: 0/1 in SQLite, booleans in PostgreSQL). */
export interface UserRow {
  id: string
  user_name: string
  display_name: string
  email: string
  is_admin: number | boolean
  password_hash: string
  wopi_user_info: string
  token_generation: number
  created_at: number
  updated_at: number
  disabled: number | boolean
}

export function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    userName: row.user_name,
    displayName: row.display_name,
    email: row.email,
    isAdmin: row.is_admin === 1 || row.is_admin === true,
    passwordHash: row.password_hash,
    wopiUserInfo: row.wopi_user_info,
    tokenGeneration: row.token_generation,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    disabled: row.disabled === 1 || row.disabled === true,
  }
}

/**
 * The key that makes user names unique without regard to case, the same in every SQL
 * driver, so a store moved from one to the other keeps the same names apart.
 */
export function userNameKey(userName: string): string {
  return userName.toLowerCase()
}

/** The statements of UserRepository, the same in every SQL driver but for the dialect. */
export function userSql(dialect: Dialect) {
  const p = (index: number, type?: ParamType) => dialect.param(index, type)
  return {
    /** Values: userValues. */
    insert: `INSERT INTO users (id, user_name, user_name_key, display_name, email, is_admin,
        password_hash, wopi_user_info, created_at, updated_at, disabled)
      VALUES (${paramList(dialect, 11)})`,
    byNameKey: `SELECT * FROM users WHERE user_name_key = ${p(1)}`,
    all: 'SELECT * FROM users ORDER BY user_name_key, id',
    /**
     * A fixed statement: each column keeps its value unless its flag is true, so no
     * caller text reaches the SQL. Values: userPatchValues.
     */
    patch: `UPDATE users SET
        display_name = CASE WHEN ${p(1, 'boolean')} THEN ${p(2, 'text')} ELSE display_name END,
        email = CASE WHEN ${p(3, 'boolean')} THEN ${p(4, 'text')} ELSE email END,
        is_admin = CASE WHEN ${p(5, 'boolean')} THEN ${p(6, 'boolean')} ELSE is_admin END,
        password_hash = CASE WHEN ${p(7, 'boolean')} THEN ${p(8, 'text')} ELSE password_hash END,
        wopi_user_info = CASE WHEN ${p(9, 'boolean')} THEN ${p(10, 'text')} ELSE wopi_user_info END,
        disabled = CASE WHEN ${p(11, 'boolean')} THEN ${p(12, 'boolean')} ELSE disabled END,
        token_generation = token_generation + CASE WHEN ${p(13, 'boolean')} THEN 1 ELSE 0 END,
        updated_at = ${p(14)}
      WHERE id = ${p(15)}`,
    deleteOne: `DELETE FROM users WHERE id = ${p(1)}`,
  }
}

/** The values of userSql's insert. */
export function userValues(user: UserRecord, dialect: Dialect): unknown[] {
  return [
    user.id,
    user.userName,
    userNameKey(user.userName),
    user.displayName,
    user.email,
    dialect.flag(user.isAdmin),
    user.passwordHash,
    user.wopiUserInfo,
    user.createdAt,
    user.updatedAt,
    dialect.flag(user.disabled),
  ]
}

/** The values of userSql's patch. */
export function userPatchValues(id: string, changes: UserPatch, dialect: Dialect): unknown[] {
  const { flag } = dialect
  return [
    flag(changes.displayName !== undefined),
    changes.displayName ?? null,
    flag(changes.email !== undefined),
    changes.email ?? null,
    flag(changes.isAdmin !== undefined),
    changes.isAdmin === undefined ? null : flag(changes.isAdmin),
    flag(changes.passwordHash !== undefined),
    changes.passwordHash ?? null,
    flag(changes.wopiUserInfo !== undefined),
    changes.wopiUserInfo ?? null,
    flag(changes.disabled !== undefined),
    changes.disabled === undefined ? null : flag(changes.disabled),
    flag(changes.bumpTokenGeneration === true),
    changes.updatedAt,
    id,
  ]
}

/** What creating a user whose name (without regard to case) is taken throws. */
export function userNameTaken(userName: string): DomainError {
  return new DomainError('USER_EXISTS', `user name ${userName} is taken`)
}
