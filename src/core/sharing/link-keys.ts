import { createHash, createHmac } from 'node:crypto'

/** SHA-256 (hex) of a share link's key: what is stored and compared, never the key itself. */
export function hashLinkKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/**
 * A share link's key, derived from the instance secret, the file and the moment the link
 * was made (ms): unguessable without the secret, re-derivable for the owner, and new for a
 * link made anew.
 */
export function deriveLinkKey(secret: Buffer, fileId: string, createdAt: number): string {
  return createHmac('sha256', secret).update(`share-link:${fileId}:${createdAt}`).digest('base64url')
}
