import { DomainError } from '../../core/errors.js'
import type { SessionRecord, SessionRepository } from '../../ports/metadata-store.js'
import type { Database } from './database.js'
import { isForeignKeyViolation } from './pg-errors.js'

interface SessionRow {
  token_hash: string
  user_id: string
  created_at: number
  expires_at: number
}

function toSession(row: SessionRow): SessionRecord {
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  }
}

/**
 * Sessions in PostgreSQL, shared by every instance on the database, so a session
 * revoked through one instance is refused by all. A session counts as expired once
 * `now >= expiresAt`. Creating one for a user that does not exist throws NOT_FOUND.
 */
export function createSessionRepository(db: Database): SessionRepository {
  return {
    async create(session) {
      try {
        await db.query(
          `INSERT INTO sessions (token_hash, user_id, created_at, expires_at)
            VALUES ($1, $2, $3, $4)`,
          [session.tokenHash, session.userId, session.createdAt, session.expiresAt],
        )
      } catch (error) {
        if (isForeignKeyViolation(error)) {
          throw new DomainError('NOT_FOUND', 'the session belongs to no known user')
        }
        throw error
      }
    },

    async find(tokenHash) {
      const { rows } = await db.query<SessionRow>(
        'SELECT * FROM sessions WHERE token_hash = $1',
        [tokenHash],
      )
      return rows[0] === undefined ? undefined : toSession(rows[0])
    },

    async revoke(tokenHash) {
      await db.query('DELETE FROM sessions WHERE token_hash = $1', [tokenHash])
    },

    async revokeAllForUser(userId, exceptTokenHash) {
      if (exceptTokenHash === undefined) await db.query('DELETE FROM sessions WHERE user_id = $1', [userId])
      else await db.query('DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2', [userId, exceptTokenHash])
    },

    async purgeExpired(now) {
      const result = await db.query('DELETE FROM sessions WHERE expires_at <= $1', [now])
      return result.rowCount ?? 0
    },
  }
}
