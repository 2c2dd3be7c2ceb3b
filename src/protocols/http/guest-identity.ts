import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Name of the cookie holding a link guest's browser id (HttpOnly, SameSite=Lax, a year). */
export const GUEST_COOKIE = 'folio_guest'

const GUEST_ID = /(?:^|;\s*)folio_guest=([A-Za-z0-9_-]{22,64})(?:;|$)/

/** Longest guest name kept; longer names are cut. */
const MAX_GUEST_NAME = 64

/**
 * The stable id of a link guest's browser: read from its cookie, or made (16 random
 * bytes) and set on the reply, so the same browser is the same guest on every open.
 */
export function guestIdOf(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const found = request.headers.cookie ? GUEST_ID.exec(request.headers.cookie)?.[1] : undefined
  if (found !== undefined) return found
  const id = randomBytes(16).toString('base64url')
  const flags = `Path=/; HttpOnly; SameSite=Lax; Max-Age=${365 * 24 * 3600}${secure ? '; Secure' : ''}`
  reply.header('Set-Cookie', `${GUEST_COOKIE}=${id}; ${flags}`)
  return id
}

/**
 * The name a guest typed, cleaned: control characters dropped, spaces collapsed, at most
 * 64 characters; 'Guest' when nothing is left.
 */
export function guestName(typed: unknown): string {
  if (typeof typed !== 'string') return 'Guest'
  const clean = [
    ...typed
      .normalize('NFC')
      .replace(/[\p{Cc}\p{Cf}]/gu, '')
      .replace(/\s+/g, ' ')
      .trim(),
  ]
    .slice(0, MAX_GUEST_NAME)
    .join('')
  return clean || 'Guest'
}
