/** jose, imported on the first token: a server without ONLYOFFICE Docs never loads it. */
let jose: Promise<typeof import('jose')> | undefined
function loadJose(): Promise<typeof import('jose')> {
  jose ??= import('jose')
  return jose
}

/**
 * JWTs shared with ONLYOFFICE Docs
 * (https://api.onlyoffice.com/docs/docs-api/additional-api/signature/): HS256 with the one secret an
 * installation sets as JWT_SECRET. Docs checks incoming tokens with 60 s of clock
 * tolerance; Folio allows the same for the tokens Docs sends.
 */

/** Seconds of clock difference tolerated between Folio and Docs. */
export const CLOCK_TOLERANCE_SECONDS = 60

function keyOf(secret: string): Uint8Array {
  return new TextEncoder().encode(secret)
}

/**
 * Signs claims with HS256. `iat` is set from `now`; `expiresInSeconds` adds `exp`
 * (left out for editor configs, which Docs re-checks when an editor reconnects).
 */
export async function signDocsToken(
  claims: Record<string, unknown>,
  secret: string,
  now: number,
  expiresInSeconds?: number,
): Promise<string> {
  const { SignJWT } = await loadJose()
  const iat = Math.floor(now / 1000)
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt(iat)
  if (expiresInSeconds !== undefined) jwt.setExpirationTime(iat + expiresInSeconds)
  return jwt.sign(keyOf(secret))
}

/**
 * The verified claims (without iat/exp/nbf), or undefined for any bad, expired or non-HS256
 * token, and for one without `exp`: Docs always signs with an expiry, and a token without
 * one would be good for ever once it leaked.
 */
export async function verifyDocsToken(
  token: string,
  secret: string,
  now: number,
): Promise<Record<string, unknown> | undefined> {
  const { jwtVerify } = await loadJose()
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: ['HS256'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(now),
      requiredClaims: ['exp'],
    })
    const { iat: _iat, exp: _exp, nbf: _nbf, ...claims } = payload
    return claims
  } catch {
    return undefined
  }
}

/** The token of a `Bearer <jwt>` header value (Docs always puts the prefix). */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header
  const match = value === undefined ? null : /^Bearer\s+(\S+)$/i.exec(value.trim())
  return match?.[1]
}

/** The callback fields to believe and where they came from, or why none are. */
export type CallbackAuth =
  { ok: true; claims: Record<string, unknown>; via: 'body' | 'header' | 'none' } | { ok: false; reason: string }

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Decides which callback fields to believe. With a secret,
 * the body `token` is checked first and its flat claims are the callback; without one,
 * the header token's `payload` claim is. Docs trims changesurl and history from the
 * header token (and the plain body) when they are large, so the body token comes first.
 * A token that is present but bad is refused, never skipped over. Without a secret the
 * plain body is all there is.
 */
export async function authenticateCallback(
  body: Record<string, unknown>,
  headerValue: string | string[] | undefined,
  secret: string | undefined,
  now: number,
): Promise<CallbackAuth> {
  if (secret === undefined) return { ok: true, claims: body, via: 'none' }
  if (typeof body.token === 'string' && body.token !== '') {
    const claims = await verifyDocsToken(body.token, secret, now)
    if (!claims) return { ok: false, reason: 'the body token does not verify' }
    return { ok: true, claims, via: 'body' }
  }
  const headerToken = bearerToken(headerValue)
  if (headerToken === undefined) return { ok: false, reason: 'no token in the body or the header' }
  const claims = await verifyDocsToken(headerToken, secret, now)
  if (!claims) return { ok: false, reason: 'the header token does not verify' }
  if (!isRecord(claims.payload)) return { ok: false, reason: 'the header token has no payload' }
  return { ok: true, claims: claims.payload, via: 'header' }
}
