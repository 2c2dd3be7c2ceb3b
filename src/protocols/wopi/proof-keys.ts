import { createPublicKey, verify, type KeyObject } from 'node:crypto'
import { DomainError } from '../../core/errors.js'

/**
 * WOPI discovery and proof keys: what a host needs to check that a WOPI request
 * really comes from the editor it trusts (ONLYOFFICE Docs or any WOPI client).
 *
 * Proof format (MS-WOPI "proof keys"; ONLYOFFICE `wopiUtils.js` generateProofBuffer):
 * the client signs, with RSA-SHA256 PKCS#1 v1.5,
 *   len(token) ‖ token ‖ len(URL) ‖ URL upper-cased ‖ 8 ‖ ticks
 * (lengths as 4-byte big-endian, strings as UTF-8, ticks as an 8-byte big-endian
 * .NET tick count) and sends it base64 in X-WOPI-Proof (current key) and
 * X-WOPI-ProofOld (previous key), with the ticks in X-WOPI-TimeStamp.
 *
 * Pure apart from node:crypto: no network, time comes in as `now`.
 */

/** The RSA public keys a WOPI client publishes in its discovery `<proof-key>`. */
export interface ProofKeys {
  current: KeyObject
  old?: KeyObject
}

/** One `<action>` of a discovery document. */
export interface DiscoveryAction {
  /** Name of the enclosing `<app>`: "Word", "Excel", … or a MIME type. */
  app: string
  /** The action: view, edit, embedview, editnew, convert, … */
  name: string
  /** File extension without a dot; '' for MIME-type apps. */
  ext: string
  /** URL template with `<name=PLACEHOLDER&>` parts; see wopiActionUrl. */
  urlsrc: string
  /** Comma-separated WOPI capabilities the action needs, e.g. "locks,update". */
  requires?: string
  /** The app marks this action as the default for its extension. */
  isDefault: boolean
  /** Name of the enclosing `<net-zone>`, e.g. "external-http". */
  zone?: string
  /** convert actions: the extension the file is converted to. */
  targetExt?: string
}

/** What a host takes from a discovery document. */
export interface Discovery {
  proofKey?: ProofKeys
  actions: DiscoveryAction[]
}

export type ProofFailure = 'missing' | 'stale' | 'bad-timestamp' | 'mismatch'

/**
 * Which signature matched. 'proofold-current' means the client already signs
 * with a newer key than the host knows: time to fetch discovery again.
 */
export type ProofMatch = 'proof-current' | 'proofold-current' | 'proof-old'

export type ProofCheck = { ok: true; matched: ProofMatch } | { ok: false; reason: ProofFailure }

export interface ProofInput {
  /** The access token exactly as the client sent it (decoded from the query). */
  accessToken: string
  /** The request URL rebuilt from the WOPISrc the host issued; see buildProofUrl. */
  url: string
  /** X-WOPI-TimeStamp header (.NET ticks), undefined when absent. */
  timestamp?: string
  /** X-WOPI-Proof header. */
  proof?: string
  /** X-WOPI-ProofOld header. */
  proofOld?: string
  keys: ProofKeys
  /** Current time, ms since epoch. */
  now: number
  /** How old a timestamp may be; 20 minutes unless given. */
  maxAgeMs?: number
}

/** .NET ticks (100 ns since 0001-01-01) at the Unix epoch. */
const EPOCH_TICKS = 621355968000000000n
const TICKS_PER_MS = 10000n
const MAX_UINT64 = (1n << 64n) - 1n
/** MS-WOPI: "ensure that the X-WOPI-TimeStamp header is no more than 20 minutes old". */
const DEFAULT_MAX_AGE_MS = 20 * 60 * 1000

/** ms since epoch → .NET ticks as a decimal string, the X-WOPI-TimeStamp form. */
export function msToProofTicks(ms: number): string {
  if (!Number.isFinite(ms)) {
    throw new DomainError('INVALID_INPUT', 'time is not a finite number', { field: 'ms' })
  }
  return (BigInt(Math.trunc(ms)) * TICKS_PER_MS + EPOCH_TICKS).toString()
}

function parseTicks(ticks: string): bigint | undefined {
  // Digits only: BigInt() would also take '0x…', ' 12 ' and '' (as 0).
  if (!/^\d{1,20}$/.test(ticks)) return undefined
  const value = BigInt(ticks)
  return value <= MAX_UINT64 ? value : undefined
}

/** X-WOPI-TimeStamp → ms since epoch; throws INVALID_INPUT when it is not a tick count. */
export function proofTimestampToMs(ticks: string): number {
  const value = parseTicks(ticks)
  if (value === undefined) {
    throw new DomainError('INVALID_INPUT', 'X-WOPI-TimeStamp is not a tick count', {
      field: 'X-WOPI-TimeStamp',
    })
  }
  return Number((value - EPOCH_TICKS) / TICKS_PER_MS)
}

/** The bytes a WOPI client signs for one request (MS-WOPI proof keys, B8 of our notes). */
export function buildProofBuffer(accessToken: string, url: string, ticks: string): Buffer {
  const stamp = parseTicks(ticks)
  if (stamp === undefined) {
    throw new DomainError('INVALID_INPUT', 'X-WOPI-TimeStamp is not a tick count', {
      field: 'X-WOPI-TimeStamp',
    })
  }
  const token = Buffer.from(accessToken, 'utf8')
  const target = Buffer.from(url.toUpperCase(), 'utf8')
  const out = Buffer.alloc(4 + token.length + 4 + target.length + 4 + 8)
  let at = out.writeUInt32BE(token.length, 0)
  at += token.copy(out, at)
  at = out.writeUInt32BE(target.length, at)
  at += target.copy(out, at)
  at = out.writeUInt32BE(8, at)
  out.writeBigUInt64BE(stamp, at)
  return out
}

/**
 * The URL a WOPI client signs: WOPISrc + ('' | '/contents') + '?access_token=' +
 * encodeURIComponent(token). Build it from the WOPISrc the host issued, never
 * from the Host header of a proxied request.
 */
export function buildProofUrl(wopiSrc: string, accessToken: string, target: 'file' | 'contents'): string {
  const suffix = target === 'contents' ? '/contents' : ''
  return `${wopiSrc}${suffix}?access_token=${encodeURIComponent(accessToken)}`
}

function signatureMatches(data: Buffer, key: KeyObject | undefined, proof: string | undefined) {
  if (key === undefined || proof === undefined || proof === '') return false
  try {
    return verify('sha256', data, key, Buffer.from(proof, 'base64'))
  } catch {
    // A key of the wrong type or a garbled signature is a plain mismatch.
    return false
  }
}

/**
 * Checks the proof headers of one WOPI request. Accepts X-WOPI-Proof with the
 * current key, X-WOPI-ProofOld with the current key, or X-WOPI-Proof with the
 * old key (MS-WOPI, covering key rotation on either side). Rejects timestamps
 * older than maxAgeMs ('stale') and ones further than that in the future or
 * not a tick count ('bad-timestamp').
 */
export function verifyProof(input: ProofInput): ProofCheck {
  const { timestamp, proof } = input
  if (timestamp === undefined || timestamp === '' || proof === undefined || proof === '') {
    return { ok: false, reason: 'missing' }
  }
  const stamp = parseTicks(timestamp)
  if (stamp === undefined) return { ok: false, reason: 'bad-timestamp' }
  const sentAt = Number((stamp - EPOCH_TICKS) / TICKS_PER_MS)
  const maxAge = input.maxAgeMs ?? DEFAULT_MAX_AGE_MS
  if (input.now - sentAt > maxAge) return { ok: false, reason: 'stale' }
  // A far-future stamp would keep a captured request replayable for longer.
  if (sentAt - input.now > maxAge) return { ok: false, reason: 'bad-timestamp' }

  const data = buildProofBuffer(input.accessToken, input.url, timestamp)
  const { current, old } = input.keys
  if (signatureMatches(data, current, proof)) return { ok: true, matched: 'proof-current' }
  if (signatureMatches(data, current, input.proofOld)) {
    return { ok: true, matched: 'proofold-current' }
  }
  if (signatureMatches(data, old, proof)) return { ok: true, matched: 'proof-old' }
  return { ok: false, reason: 'mismatch' }
}

function decodeBase64(value: string, field: string): Buffer {
  const compact = value.replace(/\s+/g, '')
  if (compact === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new DomainError('UPSTREAM_FAILED', `discovery ${field} is not base64`, { field })
  }
  return Buffer.from(compact, 'base64')
}

function stripLeadingZeros(bytes: Buffer): Buffer {
  let start = 0
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1
  return bytes.subarray(start)
}

function rsaKeyFromParts(modulus: Buffer, exponent: Buffer, field: string): KeyObject {
  try {
    return createPublicKey({
      key: {
        kty: 'RSA',
        n: stripLeadingZeros(modulus).toString('base64url'),
        e: stripLeadingZeros(exponent).toString('base64url'),
      },
      format: 'jwk',
    })
  } catch {
    throw new DomainError('UPSTREAM_FAILED', `discovery ${field} is not an RSA public key`, {
      field,
    })
  }
}

/** An RSA public key from discovery's base64 big-endian `modulus` and `exponent`. */
export function publicKeyFromModulus(modulus: string, exponent: string): KeyObject {
  return rsaKeyFromParts(decodeBase64(modulus, 'modulus'), decodeBase64(exponent, 'exponent'), 'modulus')
}

/**
 * An RSA public key from discovery's `value`: a Windows CryptoAPI PUBLICKEYBLOB
 * (BLOBHEADER, then RSAPUBKEY "RSA1" with bit length and exponent, then the
 * modulus little-endian). Used only when modulus/exponent are absent.
 */
function publicKeyFromCspBlob(value: string, field: string): KeyObject {
  const blob = decodeBase64(value, field)
  const PUBLICKEYBLOB = 0x06
  const header = 8
  const rsaPubKey = 12
  const bad = () => new DomainError('UPSTREAM_FAILED', `discovery ${field} is not a key blob`, { field })
  if (blob.length < header + rsaPubKey || blob[0] !== PUBLICKEYBLOB) throw bad()
  if (blob.toString('latin1', header, header + 4) !== 'RSA1') throw bad()
  const bitLength = blob.readUInt32LE(header + 4)
  const exponent = blob.readUInt32LE(header + 8)
  const modulusStart = header + rsaPubKey
  const modulusLength = Math.ceil(bitLength / 8)
  if (bitLength === 0 || blob.length < modulusStart + modulusLength) throw bad()
  const modulus = Buffer.from(blob.subarray(modulusStart, modulusStart + modulusLength)).reverse()
  const exponentBytes = Buffer.alloc(4)
  exponentBytes.writeUInt32BE(exponent)
  return rsaKeyFromParts(modulus, exponentBytes, field)
}

function keyFrom(attributes: Map<string, string>, prefix: '' | 'old'): KeyObject | undefined {
  const modulus = attributes.get(`${prefix}modulus`) ?? ''
  const exponent = attributes.get(`${prefix}exponent`) ?? ''
  if (modulus !== '' && exponent !== '') {
    return rsaKeyFromParts(
      decodeBase64(modulus, `${prefix}modulus`),
      decodeBase64(exponent, `${prefix}exponent`),
      `${prefix}modulus`,
    )
  }
  const value = attributes.get(`${prefix}value`) ?? ''
  return value === '' ? undefined : publicKeyFromCspBlob(value, `${prefix}value`)
}

interface XmlTag {
  kind: 'open' | 'close' | 'empty'
  name: string
  attributes: Map<string, string>
}

const ENTITIES = new Map([
  ['lt', '<'],
  ['gt', '>'],
  ['amp', '&'],
  ['quot', '"'],
  ['apos', "'"],
])

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9A-Fa-f]+|#\d+|[A-Za-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return safeCodePoint(Number.parseInt(ref.slice(2), 16), whole)
    if (ref.startsWith('#')) return safeCodePoint(Number.parseInt(ref.slice(1), 10), whole)
    return ENTITIES.get(ref) ?? whole
  })
}

function safeCodePoint(code: number, fallback: string): string {
  return code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : fallback
}

function localName(name: string): string {
  const colon = name.lastIndexOf(':')
  return colon === -1 ? name : name.slice(colon + 1)
}

function malformed(at: number): DomainError {
  return new DomainError('UPSTREAM_FAILED', `discovery XML is malformed near offset ${at}`)
}

/**
 * Tags of an XML document in order, skipping text, comments, CDATA, the XML
 * declaration and a DOCTYPE. Enough for discovery, which is attributes only;
 * not a general XML parser (no DTD entities, no validation of nesting).
 */
function* scanTags(xml: string): Generator<XmlTag> {
  const nameAt = /[A-Za-z_][-\w.:]*/y
  const attributeAt = /\s+([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/y
  const endAt = /\s*(\/?)>/y
  let pos = 0
  for (;;) {
    const lt = xml.indexOf('<', pos)
    if (lt === -1) return
    if (xml.startsWith('<!--', lt)) {
      pos = skipPast(xml, '-->', lt)
      continue
    }
    if (xml.startsWith('<![CDATA[', lt)) {
      pos = skipPast(xml, ']]>', lt)
      continue
    }
    if (xml.startsWith('<?', lt)) {
      pos = skipPast(xml, '?>', lt)
      continue
    }
    if (xml.startsWith('<!', lt)) {
      const close = xml.indexOf('>', lt)
      const subset = xml.indexOf('[', lt)
      pos = subset !== -1 && subset < close ? skipPast(xml, ']>', lt) : skipPast(xml, '>', lt)
      continue
    }
    const closing = xml.startsWith('</', lt)
    nameAt.lastIndex = lt + (closing ? 2 : 1)
    const name = nameAt.exec(xml)
    if (name === null) throw malformed(lt)
    let at = nameAt.lastIndex
    const attributes = new Map<string, string>()
    if (!closing) {
      for (;;) {
        attributeAt.lastIndex = at
        const attribute = attributeAt.exec(xml)
        if (attribute === null) break
        const [, key = '', doubleQuoted, singleQuoted] = attribute
        attributes.set(localName(key), decodeEntities(doubleQuoted ?? singleQuoted ?? ''))
        at = attributeAt.lastIndex
      }
    }
    endAt.lastIndex = at
    const end = endAt.exec(xml)
    if (end === null || (closing && end[1] === '/')) throw malformed(at)
    pos = endAt.lastIndex
    const kind = closing ? 'close' : end[1] === '/' ? 'empty' : 'open'
    yield { kind, name: localName(name[0]), attributes }
  }
}

function skipPast(xml: string, marker: string, from: number): number {
  const end = xml.indexOf(marker, from)
  if (end === -1) throw malformed(from)
  return end + marker.length
}

/**
 * Reads a WOPI discovery document: every action (with its app and net-zone) and
 * the proof keys, when the client publishes them. Throws UPSTREAM_FAILED when
 * the text is not a discovery document or a published key is unusable.
 */
export function parseDiscovery(xml: string): Discovery {
  const actions: DiscoveryAction[] = []
  let proofKey: ProofKeys | undefined
  let sawRoot = false
  let zone: string | undefined
  let app: string | undefined

  for (const tag of scanTags(xml)) {
    const { name, attributes } = tag
    if (name === 'wopi-discovery' && tag.kind !== 'close') sawRoot = true
    if (name === 'net-zone') {
      zone = tag.kind === 'open' ? attributes.get('name') : undefined
    } else if (name === 'app') {
      app = tag.kind === 'open' ? (attributes.get('name') ?? '') : undefined
    } else if (name === 'action' && tag.kind !== 'close' && app !== undefined) {
      const urlsrc = attributes.get('urlsrc')
      const actionName = attributes.get('name')
      if (urlsrc === undefined || actionName === undefined) continue
      const requires = attributes.get('requires')
      const targetExt = attributes.get('targetext')
      actions.push({
        app,
        name: actionName,
        ext: attributes.get('ext') ?? '',
        urlsrc,
        isDefault: attributes.get('default') === 'true',
        ...(requires !== undefined ? { requires } : {}),
        ...(zone !== undefined ? { zone } : {}),
        ...(targetExt !== undefined ? { targetExt } : {}),
      })
    } else if (name === 'proof-key' && tag.kind !== 'close') {
      const current = keyFrom(attributes, '')
      const old = keyFrom(attributes, 'old')
      if (current !== undefined) proofKey = old === undefined ? { current } : { current, old }
    }
  }
  if (!sawRoot) throw new DomainError('UPSTREAM_FAILED', 'not a WOPI discovery document')
  return proofKey === undefined ? { actions } : { proofKey, actions }
}

export interface ActionUrlParams {
  /** The WOPISrc of the file: <host>/wopi/files/<file_id>. */
  wopiSrc: string
  /** BCP 47 / RFC 1766 language for UI_LLCC and DC_LLCC, e.g. 'en-US'. */
  lang?: string
  /** Any other placeholder by its name, e.g. { THEME_ID: '2', DISABLE_CHAT: '1' }. */
  values?: Record<string, string>
}

/**
 * Turns a discovery urlsrc into the URL a host page posts to: each optional
 * `<name=PLACEHOLDER&>` part is filled when a value is known (WOPI_SOURCE,
 * UI_LLCC, DC_LLCC, or `values`) and removed otherwise (MS-WOPI discovery).
 * When the template has no WOPI_SOURCE placeholder (Microsoft's do not),
 * `WOPISrc=` is appended. Stray '&' and an empty '?' left behind are dropped.
 */
export function wopiActionUrl(urlsrc: string, params: ActionUrlParams): string {
  // A Map, so a placeholder named like an Object.prototype member finds nothing.
  const known = new Map<string, string>([['WOPI_SOURCE', params.wopiSrc]])
  if (params.lang !== undefined) {
    known.set('UI_LLCC', params.lang)
    known.set('DC_LLCC', params.lang)
  }
  for (const [holder, value] of Object.entries(params.values ?? {})) known.set(holder, value)
  const placeholder = /<([^<>=]+)=([^<>&]+)&?>/g
  let sawSource = false
  let filled = urlsrc.replace(placeholder, (_whole, key: string, holder: string) => {
    if (holder === 'WOPI_SOURCE') sawSource = true
    const value = known.get(holder)
    return value === undefined ? '' : `${key}=${encodeURIComponent(value)}&`
  })
  // Microsoft's urlsrc has no WOPI_SOURCE placeholder: the host appends WOPISrc itself.
  if (!sawSource && !/[?&]wopisrc=/i.test(filled)) {
    const hash = filled.indexOf('#')
    const at = hash === -1 ? filled.length : hash
    const joiner = filled.slice(0, at).includes('?') ? '&' : '?'
    const source = `WOPISrc=${encodeURIComponent(params.wopiSrc)}`
    filled = `${filled.slice(0, at)}${joiner}${source}${filled.slice(at)}`
  }
  const hash = filled.indexOf('#')
  const fragment = hash === -1 ? '' : filled.slice(hash)
  const beforeHash = hash === -1 ? filled : filled.slice(0, hash)
  const question = beforeHash.indexOf('?')
  if (question === -1) return beforeHash + fragment
  const query = beforeHash
    .slice(question + 1)
    .split('&')
    .filter((part) => part !== '')
    .join('&')
  const base = beforeHash.slice(0, question)
  return (query === '' ? base : `${base}?${query}`) + fragment
}
