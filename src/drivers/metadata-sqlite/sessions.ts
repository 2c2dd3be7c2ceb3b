import type Database from 'better-sqlite3'
import { DomainError } from '../../core/errors.js'
import type { SessionRecord, SessionRepository } from '../../ports/metadata-store.js'
import { isForeignKeyViolation } from './sqlite-errors.js'

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
 * Sessions in SQLite. A session counts as expired once `now >= expiresAt`.
 * Creating one for a user that does not exist (removed meanwhile) throws NOT_FOUND.
 */
export function createSessionRepository(db: Database.Database): SessionRepository {
  const insert = db.prepare<SessionRecord>(`INSERT INTO sessions
      (token_hash, user_id, created_at, expires_at)
    VALUES (@tokenHash, @userId, @createdAt, @expiresAt)`)
  const byHash = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE token_hash = ?')
  const deleteOne = db.prepare<[string]>('DELETE FROM sessions WHERE token_hash = ?')
  const deleteForUser = db.prepare<[string]>('DELETE FROM sessions WHERE user_id = ?')
  const deleteOthersForUser = db.prepare<[string, string]>('DELETE FROM sessions WHERE user_id = ? AND token_hash <> ?')
  const deleteExpired = db.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?')

  return {
    async create(session) {
      try {
        insert.run(session)
      } catch (error) {
        if (isForeignKeyViolation(error)) {
          throw new DomainError('NOT_FOUND', 'the session belongs to no known user')
        }
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
