import type Database from 'better-sqlite3'
import type { SessionRepository } from '../../ports/metadata-store.js'
import { SQLITE_DIALECT } from '../metadata-shared/dialect.js'
import {
  sessionSql,
  sessionUserMissing,
  sessionValues,
  toSession,
  type SessionRow,
} from '../metadata-shared/session-rows.js'
import { isForeignKeyViolation } from './sqlite-errors.js'

const SQL = sessionSql(SQLITE_DIALECT)

/**
 * Sessions in SQLite. A session counts as expired once `now >= expiresAt`.
 * Creating one for a user that does not exist (removed meanwhile) throws NOT_FOUND.
 */
export function createSessionRepository(db: Database.Database): SessionRepository {
  const insert = db.prepare<ReturnType<typeof sessionValues>>(SQL.insert)
  const byHash = db.prepare<[string], SessionRow>(SQL.byHash)
  const deleteOne = db.prepare<[string]>(SQL.deleteOne)
  const deleteForUser = db.prepare<[string]>(SQL.deleteForUser)
  const deleteOthersForUser = db.prepare<[string, string]>(SQL.deleteOthersForUser)
  const deleteExpired = db.prepare<[number]>(SQL.deleteExpired)

  return {
    async create(session) {
      try {
        insert.run(...sessionValues(session))
      } catch (error) {
        if (isForeignKeyViolation(error)) throw sessionUserMissing()
        throw error
      }
    },

    async find(tokenHash) {
      const row = byHash.get(tokenHash)
      return row === undefined ? undefined : toSession(row)
    },

    async revoke(tokenHash) {
      deleteOne.run(tokenHash)
    },

    async revokeAllForUser(userId, exceptTokenHash) {
      if (exceptTokenHash === undefined) deleteForUser.run(userId)
      else deleteOthersForUser.run(userId, exceptTokenHash)
    },

    async purgeExpired(now) {
      return deleteExpired.run(now).changes
    },
  }
}
