import type Database from 'better-sqlite3'
import { DomainError } from '../../core/errors.js'
import type { UserPatch, UserRecord, UserRepository } from '../../ports/metadata-store.js'
import { tupleToUser, USER_COLUMNS, type UserTuple } from '../metadata-shared/user-rows.js'
import { isUniqueViolation, toFlag } from './sqlite-errors.js'

interface UserRow {
  id: string
  user_name: string
  display_name: string
  email: string
  is_admin: number
  password_hash: string
  wopi_user_info: string
  token_generation: number
  created_at: number
  updated_at: number
  disabled: number
}

interface UserPatchParams {
  id: string
  setDisplayName: number
  displayName: string | null
  setEmail: number
  email: string | null
  setIsAdmin: number
  isAdmin: number | null
  setPasswordHash: number
  passwordHash: string | null
  setWopiUserInfo: number
  wopiUserInfo: string | null
  setDisabled: number
  disabled: number | null
  bumpTokenGeneration: number
  updatedAt: number
}

// The key that makes user names unique without regard to case.
function userNameKey(userName: string): string {
  return userName.toLowerCase()
}

function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    userName: row.user_name,
    displayName: row.display_name,
    email: row.email,
    isAdmin: row.is_admin === 1,
    passwordHash: row.password_hash,
    wopiUserInfo: row.wopi_user_info,
    tokenGeneration: row.token_generation,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    disabled: row.disabled === 1,
  }
}

/** Users in SQLite; statements are prepared here, once per open database. */
export function createUserRepository(db: Database.Database): UserRepository {
  const insert = db.prepare(`INSERT INTO users (id, user_name, user_name_key, display_name,
      email, is_admin, password_hash, wopi_user_info, created_at, updated_at, disabled)
    VALUES (@id, @userName, @userNameKey, @displayName, @email, @isAdmin, @passwordHash,
      @wopiUserInfo, @createdAt, @updatedAt, @disabled)`)
  // A raw row (an array) mapped by index: read on every WOPI call, so cheaper than an object.
  const byId = db
    .prepare<[string], UserTuple>(`SELECT ${USER_COLUMNS.join(', ')} FROM users WHERE id = ?`)
    .raw()
  const byNameKey = db.prepare<[string], UserRow>('SELECT * FROM users WHERE user_name_key = ?')
  const all = db.prepare<[], UserRow>('SELECT * FROM users ORDER BY user_name_key, id')
  // A fixed statement: each column keeps its value unless its flag is set.
  const patch = db.prepare<UserPatchParams>(`UPDATE users SET
      display_name = CASE WHEN @setDisplayName THEN @displayName ELSE display_name END,
      email = CASE WHEN @setEmail THEN @email ELSE email END,
      is_admin = CASE WHEN @setIsAdmin THEN @isAdmin ELSE is_admin END,
      password_hash = CASE WHEN @setPasswordHash THEN @passwordHash ELSE password_hash END,
      wopi_user_info = CASE WHEN @setWopiUserInfo THEN @wopiUserInfo ELSE wopi_user_info END,
      disabled = CASE WHEN @setDisabled THEN @disabled ELSE disabled END,
      token_generation = token_generation + @bumpTokenGeneration,
      updated_at = @updatedAt
    WHERE id = @id`)
  const deleteSessions = db.prepare<[string]>('DELETE FROM sessions WHERE user_id = ?')
  const deleteUser = db.prepare<[string]>('DELETE FROM users WHERE id = ?')
  // Sessions go explicitly too, so removal does not hinge on the foreign_keys pragma.
  const removeUser = db.transaction((id: string) => {
    deleteSessions.run(id)
    return deleteUser.run(id).changes > 0
  })

  return {
    async create(user) {
      try {
        insert.run({
          ...user,
          userNameKey: userNameKey(user.userName),
          isAdmin: toFlag(user.isAdmin),
          disabled: toFlag(user.disabled),
        })
      } catch (error) {
        if (isUniqueViolation(error, 'users.user_name_key')) {
          throw new DomainError('USER_EXISTS', `user name ${user.userName} is taken`)
        }
        throw error
      }
    },

    async findById(id) {
      const row = byId.get(id)
      return row === undefined ? undefined : tupleToUser(row)
    },

    async findByUserName(userName) {
      const row = byNameKey.get(userNameKey(userName))
      return row === undefined ? undefined : toUser(row)
    },

    async list() {
      return all.all().map(toUser)
    },

    async update(id, changes: UserPatch) {
      const result = patch.run({
        id,
        setDisplayName: toFlag(changes.displayName !== undefined),
        displayName: changes.displayName ?? null,
        setEmail: toFlag(changes.email !== undefined),
        email: changes.email ?? null,
        setIsAdmin: toFlag(changes.isAdmin !== undefined),
        isAdmin: changes.isAdmin === undefined ? null : toFlag(changes.isAdmin),
        setPasswordHash: toFlag(changes.passwordHash !== undefined),
        passwordHash: changes.passwordHash ?? null,
        setWopiUserInfo: toFlag(changes.wopiUserInfo !== undefined),
        wopiUserInfo: changes.wopiUserInfo ?? null,
        setDisabled: toFlag(changes.disabled !== undefined),
        disabled: changes.disabled === undefined ? null : toFlag(changes.disabled),
        bumpTokenGeneration: toFlag(changes.bumpTokenGeneration === true),
        updatedAt: changes.updatedAt,
      })
      return result.changes > 0
    },

    async remove(id) {
      return removeUser.immediate(id)
    },
  }
}
