import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Compact HMAC-SHA256 tokens for links Folio hands to editors: WOPI access
 * tokens, short-lived download links and callback URLs. Written here rather than
 * with a JWT library because they are checked on every WOPI call (the hot path):
 * one synchronous HMAC and a JSON.parse, no async key import, and a format with
 * no algorithm field to confuse. Form: `<payload b64url>.<mac b64url>`.
 */

export type TokenScope = 'wopi' | 'download' | 'callback'
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
}

export type TokenCheck =
  | { ok: true; claims: TokenClaims }
  | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' | 'wrong-scope' }

interface WireClaims {
  s: TokenScope
  f: string
  u: string
  p: 'r' | 'w'
  e: number
  v?: number
}

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
  const payload = Buffer.from(JSON.stringify(wire)).toString('base64url')
  return `${payload}.${mac(secret, payload).toString('base64url')}`
}

/** Verifies signature (constant time), scope and expiry against `now`. */
export function verifyToken(
  secret: Buffer,
  token: string,
  scope: TokenScope,
  now: number,
): TokenCheck {
  const dot = token.indexOf('.')
  if (dot <= 0 || dot !== token.lastIndexOf('.') || token.length > 2048) {
    return { ok: false, reason: 'malformed' }
  }
  const payload = token.slice(0, dot)
  const given = Buffer.from(token.slice(dot + 1), 'base64url')
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
  const scopeOk = v.s === 'wopi' || v.s === 'download' || v.s === 'callback'
  if (!scopeOk || typeof v.f !== 'string' || typeof v.u !== 'string') return undefined
  if ((v.p !== 'r' && v.p !== 'w') || typeof v.e !== 'number') return undefined
  if (v.v !== undefined && typeof v.v !== 'number') return undefined
  const wire: WireClaims = { s: v.s as TokenScope, f: v.f, u: v.u, p: v.p, e: v.e }
  if (typeof v.v === 'number') wire.v = v.v
  return wire
}
