import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Compact HMAC-SHA256 tokens for links Folio hands to editors: WOPI access
 * tokens, short-lived download links and callback URLs. Written here rather than
 * with a JWT library because they are checked on every WOPI call (the hot path):
 * one synchronous HMAC and a JSON.parse, no async key import, and a format with
 * no algorithm field to confuse. Form: `<payload b64url>.<mac b64url>`.
 */

/**
 * 'presigned': a short-lived read link to one version of one file that a signed-in user
 * asked for (the portal's presigneduri), downloaded without a login; each use re-checks
 * the user's access.
 */
export type TokenScope = 'wopi' | 'download' | 'callback' | 'presigned'
export type Permission = 'read' | 'write'

export interface TokenClaims {
  /** What the token may be used for; a token of one scope never passes as another. */
  scope: TokenScope
  fileId: string
  userId: string
  permission: Permission
  /** Expiry, ms since epoch. */
  expiresAt: number
  /** Download links: the version they fetch (absent means the current one). */
  version?: number
  /** WOPI access tokens: the user's token generation when it was issued (absent means 0). */
  generation?: number
  /**
   * Links handed to an editor opened through a file's share link: the SHA-256 of that
   * link's key, so each use is checked against the link's current state.
   */
  link?: string
  /** WOPI access tokens of a link guest: the name the guest gave (they have no account). */
  name?: string
}

export type TokenCheck =
  { ok: true; claims: TokenClaims } | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' | 'wrong-scope' }

interface WireClaims {
  s: TokenScope
  f: string
  u: string
  p: 'r' | 'w'
  e: number
  v?: number
  g?: number
  l?: string
  n?: string
}

const BASE64URL = /^[A-Za-z0-9_-]+$/
/** A SHA-256 MAC (32 bytes) in unpadded base64url. */
const MAC_TEXT = /^[A-Za-z0-9_-]{43}$/

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest()
}

/** Signs claims into a URL-safe token. */
export function signToken(secret: Buffer, claims: TokenClaims): string {
  const wire: WireClaims = {
    s: claims.scope,
    f: claims.fileId,
    u: claims.userId,
    p: claims.permission === 'write' ? 'w' : 'r',
    e: claims.expiresAt,
  }
  if (claims.version !== undefined) wire.v = claims.version
  if (claims.generation !== undefined && claims.generation !== 0) wire.g = claims.generation
  if (claims.link !== undefined) wire.l = claims.link
  if (claims.name !== undefined) wire.n = claims.name
  const payload = Buffer.from(JSON.stringify(wire)).toString('base64url')
  return `${payload}.${mac(secret, payload).toString('base64url')}`
}

/**
 * Verifies signature (constant time), scope and expiry against `now`. Only the exact
 * form signToken produces verifies: padding or any other extra character is malformed.
 */
export function verifyToken(secret: Buffer, token: string, scope: TokenScope, now: number): TokenCheck {
  const dot = token.indexOf('.')
  if (dot <= 0 || dot !== token.lastIndexOf('.') || token.length > 2048) {
    return { ok: false, reason: 'malformed' }
  }
  const payload = token.slice(0, dot)
  const macText = token.slice(dot + 1)
  // Exactly one spelling per token: unpadded base64url, MAC of 43 characters whose unused
  // low bits are zero. A decoder alone would skip '=', '!' or a changed last character.
  if (!BASE64URL.test(payload) || !MAC_TEXT.test(macText)) return { ok: false, reason: 'malformed' }
  const given = Buffer.from(macText, 'base64url')
  if (given.toString('base64url') !== macText) return { ok: false, reason: 'malformed' }
  const expected = mac(secret, payload)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad-signature' }
  }
  const wire = parseWire(Buffer.from(payload, 'base64url').toString('utf8'))
  if (!wire) return { ok: false, reason: 'malformed' }
  if (wire.s !== scope) return { ok: false, reason: 'wrong-scope' }
  if (now >= wire.e) return { ok: false, reason: 'expired' }
  const claims: TokenClaims = {
    scope: wire.s,
    fileId: wire.f,
    userId: wire.u,
    permission: wire.p === 'w' ? 'write' : 'read',
    expiresAt: wire.e,
  }
  if (wire.v !== undefined) claims.version = wire.v
  if (wire.g !== undefined) claims.generation = wire.g
  if (wire.l !== undefined) claims.link = wire.l
  if (wire.n !== undefined) claims.name = wire.n
  return { ok: true, claims }
}

function parseWire(json: string): WireClaims | undefined {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const v = value as Record<string, unknown>
  const scopeOk = v.s === 'wopi' || v.s === 'download' || v.s === 'callback' || v.s === 'presigned'
  if (!scopeOk || typeof v.f !== 'string' || typeof v.u !== 'string') return undefined
  if ((v.p !== 'r' && v.p !== 'w') || typeof v.e !== 'number') return undefined
  if (v.v !== undefined && typeof v.v !== 'number') return undefined
  if (v.g !== undefined && typeof v.g !== 'number') return undefined
  if (v.l !== undefined && typeof v.l !== 'string') return undefined
  if (v.n !== undefined && typeof v.n !== 'string') return undefined
  const wire: WireClaims = { s: v.s as TokenScope, f: v.f, u: v.u, p: v.p, e: v.e }
  if (typeof v.v === 'number') wire.v = v.v
  if (typeof v.g === 'number') wire.g = v.g
  if (typeof v.l === 'string') wire.l = v.l
  if (typeof v.n === 'string') wire.n = v.n
  return wire
}
