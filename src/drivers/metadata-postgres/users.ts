import type { UserPatch, UserRepository } from '../../ports/metadata-store.js'
import { POSTGRES_DIALECT } from '../metadata-shared/dialect.js'
import {
  toUser,
  userNameKey,
  userNameTaken,
  userPatchValues,
  userSql,
  userValues,
  type UserRow,
} from '../metadata-shared/user-rows.js'
import type { Database } from './database.js'
import { isUniqueViolation } from './pg-errors.js'

const SQL = userSql(POSTGRES_DIALECT)

/** Users in PostgreSQL; each method is one statement on a connection of the pool. */
export function createUserRepository(db: Database): UserRepository {
  return {
    async create(user) {
      try {
        await db.query(SQL.insert, userValues(user, POSTGRES_DIALECT))
      } catch (error) {
        if (isUniqueViolation(error, 'users_user_name_key_unique')) {
          throw userNameTaken(user.userName)
        }
        throw error
      }
    },

    async findById(id) {
      const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id])
      return rows[0] === undefined ? undefined : toUser(rows[0])
    },

    async findByUserName(userName) {
      const { rows } = await db.query<UserRow>(SQL.byNameKey, [userNameKey(userName)])
      return rows[0] === undefined ? undefined : toUser(rows[0])
    },

    async list() {
      const { rows } = await db.query<UserRow>(SQL.all)
      return rows.map(toUser)
    },

    async update(id, changes: UserPatch) {
      const result = await db.query(SQL.patch, userPatchValues(id, changes, POSTGRES_DIALECT))
      return (result.rowCount ?? 0) > 0
    },

    async remove(id) {
      // The user's sessions go in the same statement: their foreign key cascades, and
      // PostgreSQL always enforces foreign keys.
      const result = await db.query(SQL.deleteOne, [id])
      return (result.rowCount ?? 0) > 0
    },
  }
}
