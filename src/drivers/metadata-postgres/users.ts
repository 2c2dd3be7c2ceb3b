import { DomainError } from '../../core/errors.js'
import type { UserPatch, UserRecord, UserRepository } from '../../ports/metadata-store.js'
import type { Database } from './database.js'
import { isUniqueViolation } from './pg-errors.js'

interface UserRow {
  id: string
  user_name: string
  display_name: string
  email: string
  is_admin: boolean
  password_hash: string
  wopi_user_info: string
  token_generation: number
  created_at: number
  updated_at: number
  disabled: boolean
}

// The key that makes user names unique without regard to case (as on SQLite, so a
// store moved from one to the other keeps the same names apart).
function userNameKey(userName: string): string {
  return userName.toLowerCase()
}

function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    userName: row.user_name,
    displayName: row.display_name,
    email: row.email,
    isAdmin: row.is_admin,
    passwordHash: row.password_hash,
    wopiUserInfo: row.wopi_user_info,
    tokenGeneration: row.token_generation,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    disabled: row.disabled,
  }
}

const INSERT = `INSERT INTO users (id, user_name, user_name_key, display_name, email, is_admin,
    password_hash, wopi_user_info, created_at, updated_at, disabled)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`

// A fixed statement: each column keeps its value unless its flag is true.
const PATCH = `UPDATE users SET
    display_name = CASE WHEN $2::boolean THEN $3::text ELSE display_name END,
    email = CASE WHEN $4::boolean THEN $5::text ELSE email END,
    is_admin = CASE WHEN $6::boolean THEN $7::boolean ELSE is_admin END,
    password_hash = CASE WHEN $8::boolean THEN $9::text ELSE password_hash END,
    wopi_user_info = CASE WHEN $10::boolean THEN $11::text ELSE wopi_user_info END,
    disabled = CASE WHEN $14::boolean THEN $15::boolean ELSE disabled END,
    token_generation = token_generation + CASE WHEN $13::boolean THEN 1 ELSE 0 END,
    updated_at = $12
  WHERE id = $1`

/** Users in PostgreSQL; each method is one statement on a connection of the pool. */
export function createUserRepository(db: Database): UserRepository {
  return {
    async create(user) {
      try {
        await db.query(INSERT, [
          user.id,
          user.userName,
          userNameKey(user.userName),
          user.displayName,
          user.email,
          user.isAdmin,
          user.passwordHash,
          user.wopiUserInfo,
          user.createdAt,
          user.updatedAt,
          user.disabled,
        ])
      } catch (error) {
        if (isUniqueViolation(error, 'users_user_name_key_unique')) {
          throw new DomainError('USER_EXISTS', `user name ${user.userName} is taken`)
        }
        throw error
      }
    },

    async findById(id) {
      const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id])
      return rows[0] === undefined ? undefined : toUser(rows[0])
    },

    async findByUserName(userName) {
      const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE user_name_key = $1', [
        userNameKey(userName),
      ])
      return rows[0] === undefined ? undefined : toUser(rows[0])
    },

    async list() {
      const { rows } = await db.query<UserRow>('SELECT * FROM users ORDER BY user_name_key, id')
      return rows.map(toUser)
    },

    async update(id, changes: UserPatch) {
      const result = await db.query(PATCH, [
        id,
        changes.displayName !== undefined,
        changes.displayName ?? null,
        changes.email !== undefined,
        changes.email ?? null,
        changes.isAdmin !== undefined,
        changes.isAdmin ?? null,
        changes.passwordHash !== undefined,
        changes.passwordHash ?? null,
        changes.wopiUserInfo !== undefined,
        changes.wopiUserInfo ?? null,
        changes.updatedAt,
        changes.bumpTokenGeneration === true,
        changes.disabled !== undefined,
        changes.disabled ?? null,
      ])
      return (result.rowCount ?? 0) > 0
    },

    async remove(id) {
      // The user's sessions go in the same statement: their foreign key cascades, and
      // PostgreSQL always enforces foreign keys.
      const result = await db.query('DELETE FROM users WHERE id = $1', [id])
      return (result.rowCount ?? 0) > 0
    },
  }
}
