import { DomainError } from '../../core/errors.js'
import type { SessionRecord } from '../../ports/metadata-store.js'
import { paramList, type Dialect } from './dialect.js'

/** A row of `sessions`. */
export interface SessionRow {
  token_hash: string
  user_id: string
  created_at: number
  expires_at: number
}

export function toSession(row: SessionRow): SessionRecord {
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  }
}

/** The statements of SessionRepository, the same in every SQL driver but for the dialect. */
export function sessionSql(dialect: Dialect) {
  const p = dialect.param(1)
  return {
    /** Values: sessionValues. */
    insert: `INSERT INTO sessions (token_hash, user_id, created_at, expires_at)
      VALUES (${paramList(dialect, 4)})`,
    byHash: `SELECT * FROM sessions WHERE token_hash = ${p}`,
    deleteOne: `DELETE FROM sessions WHERE token_hash = ${p}`,
    deleteForUser: `DELETE FROM sessions WHERE user_id = ${p}`,
    /** Every session of a user but one (the caller's own). */
    deleteOthersForUser: `DELETE FROM sessions WHERE user_id = ${p} AND token_hash <> ${dialect.param(2)}`,
    /** A session counts as expired once `now >= expiresAt`. */
    deleteExpired: `DELETE FROM sessions WHERE expires_at <= ${p}`,
  }
}

/** The values of sessionSql's insert. */
export function sessionValues(session: SessionRecord): [string, string, number, number] {
  return [session.tokenHash, session.userId, session.createdAt, session.expiresAt]
}

/** What creating a session for a user that does not exist (removed meanwhile) throws. */
export function sessionUserMissing(): DomainError {
  return new DomainError('NOT_FOUND', 'the session belongs to no known user')
}
