import { createHash, randomBytes } from 'node:crypto'

/**
 * Portal tokens are 256 random bits; only their SHA-256 is stored, so a copy of
 * the database cannot be replayed as a login.
 */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url')
}

/** Hex SHA-256 of a token, the form it is stored and looked up in. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/**
 * Reads a portal token from an Authorization header: the token alone (as the
 * ONLYOFFICE portal sends it) or `Bearer <token>`. Undefined when absent.
 */
export function tokenFromAuthorization(header: string | undefined): string | undefined {
  if (!header) return undefined
  const trimmed = header.trim()
  if (/^Bearer$/i.test(trimmed)) return undefined
  const bearer = /^Bearer\s+(\S+)$/i.exec(trimmed)
  const token = bearer ? bearer[1] : trimmed
  if (!token || /\s/.test(token) || token.length > 512) return undefined
  return token
}
