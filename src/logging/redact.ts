/**
 * Scrubbing of credentials from text bound for the log. Pure functions; the logger
 * applies them to every line (see create-logger.ts).
 */

/** Query parameters that carry a credential: WOPI access tokens, signed links, shares. */
export const SECRET_QUERY_PARAMETERS = ['access_token', 'token', 'doc'] as const

export const REDACTED = '[redacted]'

// name=value pairs of a secret parameter anywhere in a text (a URL, a message, a stack).
const SECRET_PARAMETER = /([?&;]|\b)(access_token|token|doc)=[^&\s"'<>#]*/gi
// An Authorization-style credential: "Bearer xyz", "Basic xyz".
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi
// A compact JWS (three base64url parts, the first one a JSON header "eyJ...").
const JWT = /\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*/g

/** True when the text may hold a credential (a cheap test before the replacements). */
function mayHoldSecret(text: string): boolean {
  return text.includes('=') || text.includes('eyJ') || /bearer|basic/i.test(text)
}

/**
 * The text with the values of access_token, token and doc parameters, Bearer/Basic
 * credentials and JSON Web Tokens replaced by [redacted].
 */
export function redactText(text: string): string {
  if (!mayHoldSecret(text)) return text
  return text
    .replace(SECRET_PARAMETER, (_match, lead: string, name: string) => `${lead}${name}=${REDACTED}`)
    .replace(AUTH_SCHEME, (_match, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(JWT, REDACTED)
}

/** A request URL (path and query) fit for the log: secret query parameters redacted. */
export function redactUrl(url: string): string {
  return redactText(url)
}

const MAX_DEPTH = 4

/**
 * A copy of a plain log object (and the arrays and errors in it) with every string
 * scrubbed by redactText, to MAX_DEPTH levels (deeper values are summarised). Class
 * instances pass through as they are, for the logger's serializers.
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value)
  if (value === null || typeof value !== 'object') return value
  if (depth >= MAX_DEPTH) return '[nested]'
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1))
  if (value instanceof Error)
    return redactValue({ type: value.name, message: value.message, stack: value.stack }, depth)
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`
  // Class instances (a request, a reply) are left to the logger's serializers.
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) out[key] = redactValue(item, depth + 1)
  return out
}
