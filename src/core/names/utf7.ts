/**
 * RFC 2152 UTF-7, as ONLYOFFICE Docs uses it for the WOPI headers X-WOPI-SuggestedTarget and
 * X-WOPI-RequestedName (its WOPI host code decodes them with UTF-7 before use).
 *
 * Written here rather than taken from the `utf7` npm package because that package is
 * unmaintained and its decoder is lenient: it turns a lone '+' into '+', drops dangling bits
 * and happily yields unpaired surrogates. A file name built from such garbage would be
 * stored silently; this decoder refuses it so the adapter can answer 400 instead.
 * The encoder reproduces that package's `encode` (version 1.0.2) output byte for byte.
 */
import { DomainError, type ErrorDetails } from '../errors.js'

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const PLUS = 0x2b
const MINUS = 0x2d

// RFC 2152 Set D ("directly encoded characters"). The `utf7` package writes only these
// directly; everything else, space and Set O included, goes into a shifted sequence.
const DIRECT_CHARS = /[A-Za-z0-9'(),\-./:?]/

/** Value of a Set B (base64) character, or -1 when `code` ends a shifted sequence. */
function base64Value(code: number): number {
  if (code >= 0x41 && code <= 0x5a) return code - 0x41 // A-Z
  if (code >= 0x61 && code <= 0x7a) return code - 0x61 + 26 // a-z
  if (code >= 0x30 && code <= 0x39) return code - 0x30 + 52 // 0-9
  if (code === PLUS) return 62
  if (code === 0x2f) return 63 // '/'
  return -1
}

/** Base64 of the UTF-16BE code units of `run`, without '=' padding. */
function encodeShifted(run: string): string {
  let out = ''
  let acc = 0
  let bits = 0
  for (let i = 0; i < run.length; i++) {
    acc = (acc << 16) | run.charCodeAt(i)
    bits += 16
    while (bits >= 6) {
      bits -= 6
      out += BASE64.charAt((acc >> bits) & 63)
    }
    acc &= (1 << bits) - 1
  }
  // RFC 2152: the last partial sextet is padded with zero bits.
  if (bits > 0) out += BASE64.charAt((acc << (6 - bits)) & 63)
  return out
}

/**
 * Encodes like ONLYOFFICE Docs (`utf7` 1.0.2 `encode`): Set D characters stay as they are;
 * every run of other characters becomes '+' + base64(UTF-16BE) + '-', and a run that is a
 * single '+' becomes '+-'. Total: never throws (a lone surrogate is encoded as its code unit,
 * which decodeUtf7 then rejects).
 */
export function encodeUtf7(input: string): string {
  let out = ''
  let run = ''
  const flush = (): void => {
    if (run === '') return
    out += run === '+' ? '+-' : `+${encodeShifted(run)}-`
    run = ''
  }
  for (const ch of input.split('')) {
    if (DIRECT_CHARS.test(ch)) {
      flush()
      out += ch
    } else {
      run += ch
    }
  }
  flush()
  return out
}

/**
 * Decodes RFC 2152 UTF-7 strictly. A shifted sequence starts at '+' and ends at the first
 * character outside the base64 alphabet or at the end of the input; a terminating '-' is
 * absorbed, any other terminator is kept as a direct character. '+-' is '+'.
 * Throws DomainError('INVALID_INPUT', …, { field }) on: a non-ASCII input character; '+' at
 * the end of the input or followed by a character that is neither base64 nor '-' (RFC 2152
 * calls this ill-formed); a shifted sequence that leaves a partial 16-bit unit (a dangling
 * byte) or non-zero padding bits; an unpaired UTF-16 surrogate inside a shifted sequence.
 */
export function decodeUtf7(input: string, field?: string): string {
  const fail = (message: string): never => {
    const details: ErrorDetails = field === undefined ? {} : { field }
    throw new DomainError('INVALID_INPUT', `invalid UTF-7: ${message}`, details)
  }

  for (let i = 0; i < input.length; i++) {
    if (input.charCodeAt(i) > 0x7f) fail(`non-ASCII character at position ${i}`)
  }

  let out = ''
  let i = 0
  while (i < input.length) {
    if (input.charCodeAt(i) !== PLUS) {
      out += input.charAt(i)
      i++
      continue
    }
    const shiftAt = i
    i++
    if (i === input.length) fail(`'+' at the end of the input (position ${shiftAt})`)
    if (input.charCodeAt(i) === MINUS) {
      out += '+'
      i++
      continue
    }

    const start = i
    const units: number[] = []
    let acc = 0
    let bits = 0
    for (; i < input.length; i++) {
      const value = base64Value(input.charCodeAt(i))
      if (value < 0) break
      acc = (acc << 6) | value
      bits += 6
      if (bits >= 16) {
        bits -= 16
        units.push((acc >> bits) & 0xffff)
        acc &= (1 << bits) - 1
      }
    }
    if (i === start) {
      fail(`'+' at position ${shiftAt} is followed by neither base64 nor '-'`)
    }
    // Whole code units leave at most 4 padding bits; 6 or more means a truncated unit.
    if (bits >= 6) fail(`shifted sequence at position ${shiftAt} ends inside a code unit`)
    if (acc !== 0) fail(`shifted sequence at position ${shiftAt} has non-zero padding bits`)
    out += unitsToString(units, shiftAt, fail)
    if (i < input.length && input.charCodeAt(i) === MINUS) i++
  }
  return out
}

/** Joins decoded UTF-16 code units, refusing a surrogate that is not part of a pair. */
function unitsToString(units: number[], shiftAt: number, fail: (m: string) => never): string {
  let out = ''
  for (let k = 0; k < units.length; k++) {
    const unit = units[k] ?? 0
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = units[k + 1]
      if (next === undefined || next < 0xdc00 || next > 0xdfff) {
        fail(`unpaired high surrogate in shifted sequence at position ${shiftAt}`)
      }
      out += String.fromCharCode(unit, next ?? 0)
      k++
      continue
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      fail(`unpaired low surrogate in shifted sequence at position ${shiftAt}`)
    }
    out += String.fromCharCode(unit)
  }
  return out
}
