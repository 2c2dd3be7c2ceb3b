import type Database from 'better-sqlite3'
import type { UserPatch, UserRepository } from '../../ports/metadata-store.js'
import { SQLITE_DIALECT } from '../metadata-shared/dialect.js'
import { sessionSql } from '../metadata-shared/session-rows.js'
import {
  toUser,
  tupleToUser,
  USER_COLUMNS,
  userNameKey,
  userNameTaken,
  userPatchValues,
  userSql,
  userValues,
  type UserRow,
  type UserTuple,
} from '../metadata-shared/user-rows.js'
import { isUniqueViolation } from './sqlite-errors.js'

const SQL = userSql(SQLITE_DIALECT)

/** Users in SQLite; statements are prepared here, once per open database. */
export function createUserRepository(db: Database.Database): UserRepository {
  const insert = db.prepare<unknown[]>(SQL.insert)
  // A raw row (an array) mapped by index: read on every WOPI call, so cheaper than an object.
  const byId = db.prepare<[string], UserTuple>(`SELECT ${USER_COLUMNS.join(', ')} FROM users WHERE id = ?`).raw()
  const byNameKey = db.prepare<[string], UserRow>(SQL.byNameKey)
  const all = db.prepare<[], UserRow>(SQL.all)
  const patch = db.prepare<unknown[]>(SQL.patch)
  const deleteSessions = db.prepare<[string]>(sessionSql(SQLITE_DIALECT).deleteForUser)
  const deleteUser = db.prepare<[string]>(SQL.deleteOne)
  // Sessions go explicitly too, so removal does not hinge on the foreign_keys pragma.
  const removeUser = db.transaction((id: string) => {
    deleteSessions.run(id)
    return deleteUser.run(id).changes > 0
  })

  return {
    async create(user) {
      try {
        insert.run(...userValues(user, SQLITE_DIALECT))
      } catch (error) {
        if (isUniqueViolation(error, 'users.user_name_key')) throw userNameTaken(user.userName)
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
      return patch.run(...userPatchValues(id, changes, SQLITE_DIALECT)).changes > 0
    },

    async remove(id) {
      return removeUser.immediate(id)
    },
  }
}
