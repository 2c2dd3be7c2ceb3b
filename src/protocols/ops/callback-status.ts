import { decodeJwt } from 'jose'

/**
 * The `status` field (0-9) of an ONLYOFFICE Docs callback body (JSON, parsed or as the
 * bytes the callback adapter received), or of the
 * claims of its `token` when the body is signed, for a metric label only: the signature
 * is checked by the callback adapter, which decides what the callback does. Anything
 * else is 'unknown', so the label stays a handful of values.
 */
export function callbackStatusLabel(rawBody: unknown): string {
  const body = Buffer.isBuffer(rawBody) ? parseJson(rawBody) : rawBody
  if (typeof body !== 'object' || body === null) return 'unknown'
  const plain: unknown = Reflect.get(body, 'status')
  if (isSmallStatus(plain)) return String(plain)
  const token: unknown = Reflect.get(body, 'token')
  if (typeof token !== 'string') return 'unknown'
  try {
    const claims = decodeJwt(token)
    const signed: unknown = claims.status
    return isSmallStatus(signed) ? String(signed) : 'unknown'
  } catch {
    return 'unknown'
  }
}

function isSmallStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 9
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch {
    return undefined
  }
}
