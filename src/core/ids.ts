import { randomBytes } from 'node:crypto'

/**
 * A URL-safe, unguessable id: 128 random bits in base64url (22 characters), never starting
 * with '-': an id is typed as a command-line argument (`folio lock show <fileId>`), where a
 * leading '-' reads as an option (one id in 64 did). Ids made before may still start with
 * it; the CLI takes them after `--`.
 */
export function newId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url')
    if (!id.startsWith('-')) return id
  }
}

/** Ids Folio issues are base64url; anything else cannot name a file or user. */
export function isWellFormedId(value: string): boolean {
  return /^[A-Za-z0-9_-]{16,64}$/.test(value)
}

/** Message of an unknown thrown value, for logs and error replies. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
