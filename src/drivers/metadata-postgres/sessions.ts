import type { SessionRepository } from '../../ports/metadata-store.js'
import { POSTGRES_DIALECT } from '../metadata-shared/dialect.js'
import {
  sessionSql,
  sessionUserMissing,
  sessionValues,
  toSession,
  type SessionRow,
} from '../metadata-shared/session-rows.js'
import type { Database } from './database.js'
import { isForeignKeyViolation } from './pg-errors.js'

const SQL = sessionSql(POSTGRES_DIALECT)

/**
 * Sessions in PostgreSQL, shared by every instance on the database, so a session
 * revoked through one instance is refused by all. A session counts as expired once
 * `now >= expiresAt`. Creating one for a user that does not exist throws NOT_FOUND.
 */
export function createSessionRepository(db: Database): SessionRepository {
  return {
    async create(session) {
      try {
        await db.query(SQL.insert, sessionValues(session))
      } catch (error) {
        if (isForeignKeyViolation(error)) throw sessionUserMissing()
        throw error
      }
    },

    async find(tokenHash) {
      const { rows } = await db.query<SessionRow>(SQL.byHash, [tokenHash])
      return rows[0] === undefined ? undefined : toSession(rows[0])
    },

    async revoke(tokenHash) {
      await db.query(SQL.deleteOne, [tokenHash])
    },

    async revokeAllForUser(userId, exceptTokenHash) {
      if (exceptTokenHash === undefined) await db.query(SQL.deleteForUser, [userId])
      else await db.query(SQL.deleteOthersForUser, [userId, exceptTokenHash])
    },

    async purgeExpired(now) {
      const result = await db.query(SQL.deleteExpired, [now])
      return result.rowCount ?? 0
    },
  }
}
