/**
 * Every WOPI request header Folio reads is read here, and nowhere else: the operation
 * (X-WOPI-Override), lock IDs, names (UTF-7), sizes, save flags, proof headers and the
 * access token. Each reader returns a typed value or throws DomainError('INVALID_INPUT',
 * …, { field }) so the adapter answers 400 naming the header.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { DomainError } from '../../core/errors.js'
import { validateLockId } from '../../core/lock/lock-rules.js'
import { decodeUtf7 } from '../../core/names/utf7.js'
import { tokenFromAuthorization } from '../../core/tokens/session-token.js'

/** One header's value; a repeated header is joined the way HTTP defines (', '). */
function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()]
  if (value === undefined) return undefined
  return Array.isArray(value) ? value.join(', ') : value
}

function invalid(field: string, message: string): DomainError {
  return new DomainError('INVALID_INPUT', message, { field })
}

/** A non-negative integer header, undefined when absent; 400 when it is not one. */
function integerHeader(headers: IncomingHttpHeaders, name: string): number | undefined {
  const value = single(headers, name)
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (!/^\d{1,16}$/.test(trimmed) || !Number.isSafeInteger(Number(trimmed))) {
    throw invalid(name, `${name} is not a non-negative integer`)
  }
  return Number(trimmed)
}

/** 'true' (any case) is true; anything else, or no header, is false. */
function flagHeader(headers: IncomingHttpHeaders, name: string): boolean {
  return single(headers, name)?.trim().toLowerCase() === 'true'
}

/** X-WOPI-Override upper-cased (clients send it upper case already); undefined when absent. */
export function readOverride(headers: IncomingHttpHeaders): string | undefined {
  const value = single(headers, 'X-WOPI-Override')?.trim()
  return value === undefined || value === '' ? undefined : value.toUpperCase()
}

/**
 * X-WOPI-Lock as sent, undefined when absent. Compared byte for byte later, so it is not
 * trimmed beyond what HTTP itself strips. An empty header is '' (present).
 */
export function readLock(headers: IncomingHttpHeaders): string | undefined {
  return single(headers, 'X-WOPI-Lock')
}

/** X-WOPI-Lock for Lock, RefreshLock, Unlock and UnlockAndRelock: 400 when missing or empty. */
export function requireLock(headers: IncomingHttpHeaders): string {
  return validateLockId(readLock(headers))
}

/** X-WOPI-OldLock: undefined when absent (plain Lock); 400 when present but not a lock ID. */
export function readOldLock(headers: IncomingHttpHeaders): string | undefined {
  const value = single(headers, 'X-WOPI-OldLock')
  if (value === undefined) return undefined
  try {
    return validateLockId(value)
  } catch {
    throw invalid('X-WOPI-OldLock', 'X-WOPI-OldLock is empty or not a lock ID')
  }
}

function utf7Header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = single(headers, name)
  if (value === undefined) return undefined
  return decodeUtf7(value, name)
}

/** X-WOPI-SuggestedTarget, UTF-7 decoded (an extension like '.pdf' or a full name). */
export function readSuggestedTarget(headers: IncomingHttpHeaders): string | undefined {
  return utf7Header(headers, 'X-WOPI-SuggestedTarget')
}

/** X-WOPI-RelativeTarget, UTF-7 decoded: a full name to be used exactly. */
export function readRelativeTarget(headers: IncomingHttpHeaders): string | undefined {
  return utf7Header(headers, 'X-WOPI-RelativeTarget')
}

/** X-WOPI-OverwriteRelativeTarget: true only for the value 'true'. */
export function readOverwriteRelativeTarget(headers: IncomingHttpHeaders): boolean {
  return flagHeader(headers, 'X-WOPI-OverwriteRelativeTarget')
}

/** X-WOPI-FileConversion: true when the request belongs to a binary document conversion. */
export function readFileConversion(headers: IncomingHttpHeaders): boolean {
  return flagHeader(headers, 'X-WOPI-FileConversion')
}

/** X-WOPI-RequestedName, UTF-7 decoded: the new name without extension. */
export function readRequestedName(headers: IncomingHttpHeaders): string | undefined {
  return utf7Header(headers, 'X-WOPI-RequestedName')
}

/** X-WOPI-MaxExpectedSize in bytes, undefined when absent. */
export function readMaxExpectedSize(headers: IncomingHttpHeaders): number | undefined {
  return integerHeader(headers, 'X-WOPI-MaxExpectedSize')
}

/** X-WOPI-Size in bytes (PutRelativeFile), undefined when absent. */
export function readWopiSize(headers: IncomingHttpHeaders): number | undefined {
  return integerHeader(headers, 'X-WOPI-Size')
}

/** Content-Length in bytes, undefined when absent (a chunked body). */
export function readContentLength(headers: IncomingHttpHeaders): number | undefined {
  return integerHeader(headers, 'Content-Length')
}

/**
 * How many bytes the body should have: Content-Length, else X-WOPI-Size. 400 when both are
 * sent and disagree, so a truncated or padded body is never stored.
 */
export function readExpectedBodySize(headers: IncomingHttpHeaders): number | undefined {
  const length = readContentLength(headers)
  const wopiSize = readWopiSize(headers)
  if (length !== undefined && wopiSize !== undefined && length !== wopiSize) {
    throw invalid('X-WOPI-Size', `X-WOPI-Size ${wopiSize} differs from Content-Length ${length}`)
  }
  return length ?? wopiSize
}

/** Facts about a save that PutFile records on the new version. */
export interface SaveFacts {
  /** X-WOPI-Editors: the UserIds that contributed, in order, without blanks. */
  editors: string[]
  /** X-LOOL-WOPI-* / X-EDITOR-WOPI-* flags; present only when the client sent them. */
  isModifiedByUser?: boolean
  isAutosave?: boolean
  isExitSave?: boolean
  /** X-LOOL-WOPI-Timestamp: the LastModifiedTime the client last saw. */
  clientTimestamp?: string
  /** X-WOPI-ClientVersion, X-WOPI-CorrelationId and X-WOPI-SessionId, for tracing a save. */
  clientVersion?: string
  correlationId?: string
  sessionId?: string
}

/** A save flag from either prefix (Collabora's X-LOOL-WOPI-* or the newer X-EDITOR-WOPI-*). */
function saveFlag(headers: IncomingHttpHeaders, name: string): boolean | undefined {
  const value = single(headers, `X-LOOL-WOPI-${name}`) ?? single(headers, `X-EDITOR-WOPI-${name}`)
  if (value === undefined) return undefined
  return value.trim().toLowerCase() === 'true'
}

/** Reads X-WOPI-Editors, the save flags and the tracing headers of a PutFile. */
export function readSaveFacts(headers: IncomingHttpHeaders): SaveFacts {
  const editors = (single(headers, 'X-WOPI-Editors') ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '')
  const facts: SaveFacts = { editors }
  const modified = saveFlag(headers, 'IsModifiedByUser')
  const autosave = saveFlag(headers, 'IsAutosave')
  const exitSave = saveFlag(headers, 'IsExitSave')
  if (modified !== undefined) facts.isModifiedByUser = modified
  if (autosave !== undefined) facts.isAutosave = autosave
  if (exitSave !== undefined) facts.isExitSave = exitSave
  const timestamp = single(headers, 'X-LOOL-WOPI-Timestamp') ?? single(headers, 'X-EDITOR-WOPI-Timestamp')
  if (timestamp) facts.clientTimestamp = timestamp
  const clientVersion = single(headers, 'X-WOPI-ClientVersion')
  if (clientVersion) facts.clientVersion = clientVersion
  const correlationId = single(headers, 'X-WOPI-CorrelationId')
  if (correlationId) facts.correlationId = correlationId
  const sessionId = single(headers, 'X-WOPI-SessionId')
  if (sessionId) facts.sessionId = sessionId
  return facts
}

/** The proof headers of a request (MS-WOPI proof keys); empty values count as absent. */
export interface ProofHeaders {
  proof?: string
  proofOld?: string
  timestamp?: string
}

/** Reads X-WOPI-Proof, X-WOPI-ProofOld and X-WOPI-TimeStamp. */
export function readProofHeaders(headers: IncomingHttpHeaders): ProofHeaders {
  const out: ProofHeaders = {}
  const proof = single(headers, 'X-WOPI-Proof')
  const proofOld = single(headers, 'X-WOPI-ProofOld')
  const timestamp = single(headers, 'X-WOPI-TimeStamp')
  if (proof) out.proof = proof
  if (proofOld) out.proofOld = proofOld
  if (timestamp) out.timestamp = timestamp.trim()
  return out
}

/**
 * The access token: the `access_token` query parameter as read by RawRequest.queryParam
 * (what every WOPI client sends), else `Authorization: Bearer <token>` (Microsoft's
 * validator sends both). Undefined when neither is usable; a repeated query parameter
 * counts as unusable.
 */
export function readAccessToken(
  queryValue: string | string[] | undefined,
  headers: IncomingHttpHeaders,
): string | undefined {
  if (typeof queryValue === 'string' && queryValue !== '') return queryValue
  if (queryValue !== undefined && queryValue !== '') return undefined
  const authorization = single(headers, 'Authorization')
  if (authorization === undefined || !/^Bearer\s/i.test(authorization.trim())) return undefined
  return tokenFromAuthorization(authorization)
}
