import { randomBytes } from 'node:crypto'

/** A URL-safe, unguessable id: 128 random bits in base64url (22 characters). */
export function newId(): string {
  return randomBytes(16).toString('base64url')
}

/** Ids Folio issues are base64url; anything else cannot name a file or user. */
export function isWellFormedId(value: string): boolean {
  return /^[A-Za-z0-9_-]{16,64}$/.test(value)
}

/** Message of an unknown thrown value, for logs and error replies. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
