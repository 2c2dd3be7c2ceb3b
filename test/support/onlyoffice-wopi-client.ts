/**
 * A stand-in for ONLYOFFICE Docs (Document Server, "DS") acting as a WOPI client,
 * sending the same HTTP traffic over real sockets. Written from the DS source
 * (https://github.com/ONLYOFFICE/server: `wopiClient.js`, `wopiUtils.js`,
 * `Common/sources/utils.js`). What it reproduces (the labels are used below):
 *
 * - §0 transport: `User-Agent: Node.js/6.13`, `Connection: Keep-Alive`, axios's
 *   `Accept` and `Accept-Encoding`; headers whose value would be false/undefined
 *   are not sent; a POST without body carries `Content-Length: 0` and
 *   `Content-Type: application/x-www-form-urlencoded`; success is 200/204 for
 *   POST and 200/206 for GET; 2 min timeout for GETs, 10 min for POSTs.
 * - B4 requests: every URL is WOPISrc + ('' | '/contents') + '?access_token=' +
 *   encodeURIComponent(token); the common headers X-WOPI-TimeStamp (.NET ticks),
 *   X-WOPI-ClientVersion, X-WOPI-CorrelationId (new UUID per request),
 *   X-WOPI-SessionId (one UUID per simulator), X-WOPI-Proof/ProofOld only when
 *   both keys are set; no Authorization header; the per-operation headers of the
 *   B4 table, with UTF-7 for X-WOPI-SuggestedTarget and X-WOPI-RequestedName
 *   (RenameFile names cut to FileNameMaxLength, default 255).
 * - B2 open sequence: CheckFileInfo; PutFile of a blank template without
 *   X-WOPI-Lock when Size is 0 (and SupportsUpdate or a can-edit flag); view mode
 *   without LOCK when the user has none of UserCanWrite/UserCanReview/
 *   UserCanOnlyComment; LOCK with lockId = docId = the sanitized fileId (only when
 *   SupportsLocks); any LOCK failure reopens in view mode with docId
 *   `view.<fileId>.<LastModifiedTime || Version>`; then GetFile (or FileUrl) when
 *   Size is not 0, 3 attempts 1 s apart, at most 100 MiB (B9).
 * - B5 saves: exit save = PutFile with IsExitSave (+ IsModifiedByUser), the last
 *   author in X-WOPI-Editors and X-LOOL-WOPI-Timestamp when known, never retried,
 *   then UNLOCK even when PutFile failed; forcesave = PutFile with
 *   IsModifiedByUser (+ IsAutosave unless it came from the Save button), no UNLOCK.
 * - B8 proofs: RSA-SHA256 over len(token) ‖ token ‖ len(URL) ‖ URL upper-cased ‖ 8
 *   ‖ ticks, signed over the exact URL requested. Implemented here on its own,
 *   not imported from src/, so the simulator checks the host's verifier.
 *
 * Note: after a successful template PutFile DS sets Size to the template's size,
 * so the converter then does GetFile (`wopiClient.js` checkAndReplaceEmptyFile,
 * `canvasservice.js`); only a failed template upload leaves Size 0 and skips it.
 *
 * Deliberate differences: redirects are never followed (DS's axios would follow
 * them; a WOPI host should not redirect); no SSRF/IP filter; the URL is sent as
 * built, without DS's uri-js re-serialisation.
 */
import { createServer, request as httpRequest, Agent as HttpAgent } from 'node:http'
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https'
import { createPublicKey, randomUUID, sign, type KeyObject } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { IncomingHttpHeaders } from 'node:http'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { encodeUtf7 } from '../../src/core/names/utf7.js'

/** The DS private keys (`wopi.privateKey`, `wopi.privateKeyOld`); proofs need both. */
export interface SimulatorProofKeys {
  current: KeyObject
  old: KeyObject
}

export interface OnlyofficeWopiClientOptions {
  /** The WOPISrc the host issued: <host>/wopi/files/<file_id>. */
  wopiSrc: string
  accessToken: string
  /** Private keys to sign X-WOPI-Proof / X-WOPI-ProofOld; none → no proof headers. */
  proofKeys?: SimulatorProofKeys
  /** X-WOPI-ClientVersion, `<version>.<build>`; the unbuilt DS source reports 4.1.2.37. */
  clientVersion?: string
  /** Bytes DS would PUT into a 0-byte file on open (its `new.<ext>` template). */
  blankTemplate?: Uint8Array
  /** X-WOPI-SessionId; a random UUID per simulator unless given. */
  sessionId?: string
  /** Clock for X-WOPI-TimeStamp, ms since epoch; lets a test send stale proofs. */
  now?: () => number
  /** Pause between GetFile attempts during open; DS waits 1000 ms. */
  getFileRetryDelayMs?: number
  /** File name used for Content-Type before CheckFileInfo has told us BaseFileName. */
  fileName?: string
}

export type WopiOperation =
  'CheckFileInfo' | 'GetFile' | 'Lock' | 'RefreshLock' | 'Unlock' | 'PutFile' | 'PutRelativeFile' | 'RenameFile'

/** One reply as DS would see it. */
export interface WopiReply<Body = unknown> {
  operation: WopiOperation
  /** HTTP status; 0 when no response arrived (network error, timeout, too large). */
  status: number
  /** DS's notion of success: 200/204 for POST, 200/206 for GET. */
  ok: boolean
  /** Lower-cased response headers. */
  headers: Record<string, string>
  /** Parsed JSON when the body is JSON (axios parses any JSON-looking body), else the bytes. */
  body: Body
  /** The (decompressed) body bytes. */
  raw: Buffer
  /** Why no usable response arrived, when status is 0. */
  error?: string
}

/** What the simulator sent, in order; for asserting a whole exchange. */
export interface SentRequest {
  operation: WopiOperation
  method: 'GET' | 'POST'
  url: string
  headers: Record<string, string>
  status: number
}

export type FileInfo = Record<string, unknown>

export interface PutFileOptions {
  /** X-WOPI-Lock; omitted when undefined (the blank-template upload). */
  lockId?: string
  /** X-WOPI-Editors: DS sends the UserId of the last author. */
  editors?: string
  isModifiedByUser?: boolean
  isAutosave?: boolean
  isExitSave?: boolean
  /** X-LOOL-WOPI-Timestamp: the LastModifiedTime DS last learnt. */
  timestamp?: string
}

export type OpenOutcome =
  | {
      mode: 'edit' | 'view'
      docId: string
      /** The lock DS holds; undefined in view mode or when the host lacks SupportsLocks. */
      lockId?: string
      /** Why the session is read-only. */
      viewReason?: 'requested' | 'no-edit-rights' | 'lock-failed'
      fileInfo: FileInfo
      /** GetFile bytes; undefined when Size was 0 and the template was kept locally. */
      contents?: Buffer
      /** The blank-template PutFile, when one was sent. */
      templatePut?: WopiReply
    }
  | { mode: 'error'; stage: 'CheckFileInfo' | 'GetFile'; reply: WopiReply }

const USER_AGENT = 'Node.js/6.13'
const ACCEPT = 'application/json, text/plain, */*'
const ACCEPT_ENCODING = 'gzip, compress, deflate, br'
/** FileConverter.converter.maxDownloadBytes, also sent as X-WOPI-MaxExpectedSize. */
const MAX_DOWNLOAD_BYTES = 104857600
const GET_TIMEOUT_MS = 2 * 60 * 1000
const POST_TIMEOUT_MS = 10 * 60 * 1000
const GET_FILE_ATTEMPTS = 3
const EPOCH_TICKS = 621355968000000000n
/** DS's DOC_ID_REPLACE_REGEX and DOC_ID_MAX_LENGTH. */
const DOC_ID_FORBIDDEN = /[^0-9\-.a-zA-Z_=]/g
const DOC_ID_MAX_LENGTH = 240

/** What the `mime` package DS uses answers for the formats DS handles. */
const MIME_TYPES: Record<string, string> = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  dotx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.template',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xltx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.template',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  potx: 'application/vnd.openxmlformats-officedocument.presentationml.template',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  pdf: 'application/pdf',
  rtf: 'application/rtf',
  txt: 'text/plain',
  csv: 'text/csv',
  epub: 'application/epub+zip',
  html: 'text/html',
}

function mimeTypeFor(extension: string): string | undefined {
  return Object.hasOwn(MIME_TYPES, extension) ? MIME_TYPES[extension] : undefined
}

/** DS's fileId → docId rule: last WOPISrc segment, outside [0-9A-Za-z-._=] → '_', ≤ 240. */
export function onlyofficeDocId(raw: string): string {
  return raw.replace(DOC_ID_FORBIDDEN, '_').substring(0, DOC_ID_MAX_LENGTH)
}

function fileIdOf(wopiSrc: string): string {
  return wopiSrc.substring(wopiSrc.lastIndexOf('/') + 1)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `getFileTypeByInfo`: FileExtension wins over BaseFileName's extension; lower-cased. */
function fileTypeOf(fileInfo: FileInfo | undefined, fallbackName: string | undefined): string {
  const extension = fileInfo?.FileExtension
  if (typeof extension === 'string' && extension !== '') return extension.substring(1).toLowerCase()
  const name = fileInfo?.BaseFileName
  const source = typeof name === 'string' && name !== '' ? name : (fallbackName ?? '')
  const dot = source.lastIndexOf('.')
  return dot === -1 ? '' : source.substring(dot + 1).toLowerCase()
}

function truthy(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== ''
}

/** DS's canEdit: any of UserCanOnlyComment, UserCanWrite, UserCanReview. */
function hasEditRight(info: FileInfo): boolean {
  return truthy(info.UserCanOnlyComment) || truthy(info.UserCanWrite) || truthy(info.UserCanReview)
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

function decodeBody(raw: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(raw)
    case 'deflate':
      return inflateSync(raw)
    case 'br':
      return brotliDecompressSync(raw)
    default:
      return raw
  }
}

/** axios turns any body that parses as JSON into a value; the rest stays bytes here. */
function parseMaybeJson(raw: Buffer): unknown {
  const text = raw.toString('utf8')
  if (text.trim() === '') return raw
  try {
    return JSON.parse(text)
  } catch {
    return raw
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** ONLYOFFICE Docs in WOPI mode, one user's editor session on one file. */
export class OnlyofficeWopiClient {
  readonly wopiSrc: string
  readonly accessToken: string
  readonly sessionId: string
  /** Every request sent, in order, with the status it got. */
  readonly sent: SentRequest[] = []

  #proofKeys: SimulatorProofKeys | undefined
  #clientVersion: string
  #blankTemplate: Uint8Array | undefined
  #now: () => number
  #retryDelayMs: number
  #fileName: string | undefined
  #httpAgent = new HttpAgent({ keepAlive: true })
  #httpsAgent = new HttpsAgent({ keepAlive: true })

  #fileInfo: FileInfo | undefined
  #mode: 'edit' | 'view' | undefined
  #lockId: string | undefined
  /** The X-LOOL-WOPI-Timestamp DS would send on its next PutFile. */
  #lastModifiedTime: string | undefined

  constructor(options: OnlyofficeWopiClientOptions) {
    this.wopiSrc = options.wopiSrc
    this.accessToken = options.accessToken
    this.sessionId = options.sessionId ?? randomUUID()
    this.#proofKeys = options.proofKeys
    this.#clientVersion = options.clientVersion ?? '4.1.2.37'
    this.#blankTemplate = options.blankTemplate
    this.#now = options.now ?? Date.now
    this.#retryDelayMs = options.getFileRetryDelayMs ?? 1000
    this.#fileName = options.fileName
  }

  /** The last CheckFileInfo body, once one succeeded. */
  get fileInfo(): FileInfo | undefined {
    return this.#fileInfo
  }

  /** The lock this session holds after openForEditing, if any. */
  get lockId(): string | undefined {
    return this.#lockId
  }

  /** 'edit' or 'view' after openForEditing. */
  get mode(): 'edit' | 'view' | undefined {
    return this.#mode
  }

  /** Drops kept-alive sockets. */
  close(): void {
    this.#httpAgent.destroy()
    this.#httpsAgent.destroy()
  }

  /** GET {WOPISrc}?access_token=T; remembers the file info when it is a JSON object. */
  async checkFileInfo(sessionContext?: string): Promise<WopiReply> {
    const url = this.#url('')
    const headers: Record<string, string> = {}
    if (sessionContext !== undefined && sessionContext !== '') {
      headers['X-WOPI-SessionContext'] = sessionContext
    }
    Object.assign(headers, this.#standardHeaders(url))
    const reply = await this.#send('CheckFileInfo', 'GET', url, headers, undefined)
    if (reply.ok && isRecord(reply.body)) this.#fileInfo = reply.body
    return reply
  }

  /** GET {WOPISrc}/contents?access_token=T with X-WOPI-MaxExpectedSize. */
  async getFile(): Promise<WopiReply<Buffer>> {
    const url = this.#url('/contents')
    const headers = {
      'X-WOPI-MaxExpectedSize': String(MAX_DOWNLOAD_BYTES),
      ...this.#standardHeaders(url),
    }
    return this.#download('GetFile', url, headers)
  }

  /** POST LOCK with X-WOPI-Lock. */
  lock(lockId: string): Promise<WopiReply> {
    return this.#lockCommand('Lock', 'LOCK', lockId)
  }

  /** POST REFRESH_LOCK with X-WOPI-Lock (DS sends it every 10 minutes). */
  refreshLock(lockId: string): Promise<WopiReply> {
    return this.#lockCommand('RefreshLock', 'REFRESH_LOCK', lockId)
  }

  /** POST UNLOCK with X-WOPI-Lock. */
  unlock(lockId: string): Promise<WopiReply> {
    return this.#lockCommand('Unlock', 'UNLOCK', lockId)
  }

  /** POST {WOPISrc}/contents with X-WOPI-Override: PUT and the file bytes. */
  async putFile(bytes: Uint8Array, options: PutFileOptions = {}): Promise<WopiReply> {
    const url = this.#url('/contents')
    const headers: Record<string, string> = { 'X-WOPI-Override': 'PUT' }
    if (options.lockId !== undefined) headers['X-WOPI-Lock'] = options.lockId
    if (options.editors !== undefined) headers['X-WOPI-Editors'] = options.editors
    Object.assign(headers, this.#standardHeaders(url))
    // §0: false/undefined header values never reach the host.
    if (options.isModifiedByUser === true) headers['X-LOOL-WOPI-IsModifiedByUser'] = 'true'
    if (options.isAutosave === true) headers['X-LOOL-WOPI-IsAutosave'] = 'true'
    if (options.isExitSave === true) headers['X-LOOL-WOPI-IsExitSave'] = 'true'
    if (options.timestamp !== undefined && options.timestamp !== '') {
      headers['X-LOOL-WOPI-Timestamp'] = options.timestamp
    }
    const contentType = mimeTypeFor(fileTypeOf(this.#fileInfo, this.#fileName))
    if (contentType !== undefined) headers['Content-Type'] = contentType
    const reply = await this.#send('PutFile', 'POST', url, headers, bytes)
    this.#learnLastModifiedTime(reply)
    return reply
  }

  /**
   * POST PUT_RELATIVE: Save As with a full name, or ".ext" for convert-and-edit
   * (then with X-WOPI-FileConversion). No X-WOPI-Lock, no X-WOPI-Size.
   */
  async putRelativeFile(
    bytes: Uint8Array,
    suggestedTarget: string,
    options: { fileConversion?: boolean } = {},
  ): Promise<WopiReply> {
    const url = this.#url('')
    const headers: Record<string, string> = {
      'X-WOPI-Override': 'PUT_RELATIVE',
      'X-WOPI-SuggestedTarget': encodeUtf7(suggestedTarget),
    }
    if (options.fileConversion === true) headers['X-WOPI-FileConversion'] = 'true'
    Object.assign(headers, this.#standardHeaders(url))
    const dot = suggestedTarget.lastIndexOf('.')
    const extension = dot === -1 ? '' : suggestedTarget.substring(dot + 1).toLowerCase()
    const contentType = mimeTypeFor(extension)
    if (contentType !== undefined) headers['Content-Type'] = contentType
    return this.#send('PutRelativeFile', 'POST', url, headers, bytes)
  }

  /** POST RENAME_FILE; the name (no extension) is cut to FileNameMaxLength, then UTF-7. */
  renameFile(lockId: string, requestedName: string): Promise<WopiReply> {
    const url = this.#url('')
    const limit = this.#fileInfo?.FileNameMaxLength
    const maxLength = typeof limit === 'number' && limit > 0 ? limit : 255
    const headers: Record<string, string> = {
      'X-WOPI-Override': 'RENAME_FILE',
      'X-WOPI-Lock': lockId,
      'X-WOPI-RequestedName': encodeUtf7(requestedName.substring(0, maxLength)),
      ...this.#standardHeaders(url),
    }
    return this.#send('RenameFile', 'POST', url, headers, undefined)
  }

  /**
   * What DS does when a user opens the host page's action URL (B2), up to the
   * converter's GetFile. `action: 'view'` is the view action (never locks).
   */
  async openForEditing(options: { action?: 'edit' | 'view'; sessionContext?: string } = {}): Promise<OpenOutcome> {
    const checked = await this.checkFileInfo(options.sessionContext)
    const fileInfo = checked.ok && isRecord(checked.body) ? { ...checked.body } : undefined
    if (fileInfo === undefined) return this.#failed('CheckFileInfo', checked)
    const canEdit = hasEditRight(fileInfo)
    this.#lastModifiedTime = stringOrUndefined(fileInfo.LastModifiedTime)

    let templatePut: WopiReply | undefined
    const fileType = fileTypeOf(fileInfo, this.#fileName)
    if (fileInfo.Size === 0 && fileType !== '' && (truthy(fileInfo.SupportsUpdate) || canEdit)) {
      const template = this.#blankTemplate
      if (template === undefined) {
        throw new Error('openForEditing: Size is 0, so DS would PUT a template; pass blankTemplate')
      }
      const userId = fileInfo.UserId
      templatePut = await this.putFile(template, {
        ...(userId !== undefined && userId !== null ? { editors: String(userId) } : {}),
      })
      if (templatePut.ok) {
        fileInfo.Size = template.byteLength
        const modified = isRecord(templatePut.body) ? templatePut.body.LastModifiedTime : undefined
        if (truthy(modified)) fileInfo.LastModifiedTime = modified
      }
      // checkAndReplaceEmptyFile does not touch the PutFile marker DS saves later.
      this.#lastModifiedTime = stringOrUndefined(fileInfo.LastModifiedTime)
    }
    this.#fileInfo = fileInfo

    const fileId = fileIdOf(this.wopiSrc)
    let mode: 'edit' | 'view' = options.action === 'view' || !canEdit ? 'view' : 'edit'
    let viewReason: 'requested' | 'no-edit-rights' | 'lock-failed' | undefined
    if (options.action === 'view') viewReason = 'requested'
    else if (!canEdit) viewReason = 'no-edit-rights'
    let lockId: string | undefined
    if (mode === 'edit' && truthy(fileInfo.SupportsLocks)) {
      const candidate = onlyofficeDocId(fileId)
      const locked = await this.lock(candidate)
      if (locked.ok) {
        lockId = candidate
      } else {
        mode = 'view'
        viewReason = 'lock-failed'
      }
    }
    const docId = mode === 'edit' ? onlyofficeDocId(fileId) : onlyofficeDocId(`view.${fileId}.${viewVersion(fileInfo)}`)
    this.#mode = mode
    this.#lockId = lockId

    let contents: Buffer | undefined
    if (fileInfo.Size !== 0) {
      const fetched = await this.#fetchForConverter(fileInfo)
      if (!fetched.ok) return this.#failed('GetFile', fetched)
      contents = fetched.body
    }
    const outcome: OpenOutcome = {
      mode,
      docId,
      fileInfo,
      ...(lockId !== undefined ? { lockId } : {}),
      ...(viewReason !== undefined ? { viewReason } : {}),
      ...(contents !== undefined ? { contents } : {}),
      ...(templatePut !== undefined ? { templatePut } : {}),
    }
    return outcome
  }

  /**
   * The final save after the last editor leaves (B5): PutFile with IsExitSave
   * (+ IsModifiedByUser unless nothing changed since the last forcesave), then
   * UNLOCK, sent even when PutFile failed. Requires an edit-mode open.
   */
  async closeWithSave(
    bytes: Uint8Array,
    editorUserId: string,
    options: { modifiedByUser?: boolean } = {},
  ): Promise<{ putFile?: WopiReply; unlock?: WopiReply }> {
    if (this.#mode !== 'edit') throw new Error('closeWithSave: no edit session is open')
    const result: { putFile?: WopiReply; unlock?: WopiReply } = {}
    if (this.#mayPut()) {
      result.putFile = await this.putFile(bytes, {
        ...this.#lockAndTimestamp(),
        editors: editorUserId,
        isModifiedByUser: options.modifiedByUser ?? true,
        isExitSave: true,
      })
    }
    const unlocked = await this.#unlockHeld()
    if (unlocked !== undefined) result.unlock = unlocked
    this.#mode = undefined
    return result
  }

  /** The last editor leaves without changes: UNLOCK only (when a lock is held). */
  async closeWithoutChanges(): Promise<WopiReply | undefined> {
    if (this.#mode !== 'edit') throw new Error('closeWithoutChanges: no edit session is open')
    const unlocked = await this.#unlockHeld()
    this.#mode = undefined
    return unlocked
  }

  /**
   * A forcesave (B5): the Save button sends IsModifiedByUser; a command-service
   * or timer forcesave adds IsAutosave. Never followed by UNLOCK.
   */
  async forceSave(
    bytes: Uint8Array,
    editorUserId: string,
    trigger: 'button' | 'command' | 'timer' = 'button',
  ): Promise<WopiReply> {
    if (this.#mode !== 'edit') throw new Error('forceSave: no edit session is open')
    return this.putFile(bytes, {
      ...this.#lockAndTimestamp(),
      editors: editorUserId,
      isModifiedByUser: true,
      isAutosave: trigger !== 'button',
    })
  }

  #failed(stage: 'CheckFileInfo' | 'GetFile', reply: WopiReply): OpenOutcome {
    return { mode: 'error', stage, reply }
  }

  #mayPut(): boolean {
    const info = this.#fileInfo
    if (info === undefined) return true
    return truthy(info.SupportsUpdate) || hasEditRight(info)
  }

  #lockAndTimestamp(): Pick<PutFileOptions, 'lockId' | 'timestamp'> {
    return {
      ...(this.#lockId !== undefined ? { lockId: this.#lockId } : {}),
      ...(this.#lastModifiedTime !== undefined ? { timestamp: this.#lastModifiedTime } : {}),
    }
  }

  async #unlockHeld(): Promise<WopiReply | undefined> {
    const lockId = this.#lockId
    if (lockId === undefined) return undefined
    this.#lockId = undefined
    return this.unlock(lockId)
  }

  /** Collabora convention: a PutFile reply's LastModifiedTime is echoed next time. */
  #learnLastModifiedTime(reply: WopiReply): void {
    if (!reply.ok || !isRecord(reply.body)) return
    const modified = reply.body.LastModifiedTime
    // DS only looks for newer markers when CheckFileInfo gave a LastModifiedTime.
    if (this.#lastModifiedTime !== undefined && typeof modified === 'string' && modified !== '') {
      this.#lastModifiedTime = modified
    }
  }

  /** The converter's download: FileUrl as given (unsigned) or GetFile; 3 attempts. */
  async #fetchForConverter(fileInfo: FileInfo): Promise<WopiReply<Buffer>> {
    let reply: WopiReply<Buffer> | undefined
    for (let attempt = 1; attempt <= GET_FILE_ATTEMPTS; attempt += 1) {
      if (attempt > 1) await sleep(this.#retryDelayMs)
      const fileUrl = fileInfo.FileUrl
      reply =
        typeof fileUrl === 'string' && fileUrl !== ''
          ? await this.#download('GetFile', fileUrl, {
              'X-WOPI-MaxExpectedSize': String(MAX_DOWNLOAD_BYTES),
            })
          : await this.getFile()
      if (reply.ok) return reply
    }
    if (reply === undefined) throw new Error('unreachable: no GetFile attempt')
    return reply
  }

  #lockCommand(operation: WopiOperation, override: string, lockId: string): Promise<WopiReply> {
    const url = this.#url('')
    const headers = {
      'X-WOPI-Override': override,
      'X-WOPI-Lock': lockId,
      ...this.#standardHeaders(url),
    }
    return this.#send(operation, 'POST', url, headers, undefined)
  }

  #url(suffix: '' | '/contents'): string {
    return `${this.wopiSrc}${suffix}?access_token=${encodeURIComponent(this.accessToken)}`
  }

  /** wopiUtils.js fillStandardHeaders. */
  #standardHeaders(url: string): Record<string, string> {
    const ticks = (BigInt(Math.trunc(this.#now())) * 10000n + EPOCH_TICKS).toString()
    const headers: Record<string, string> = {}
    const keys = this.#proofKeys
    if (keys !== undefined) {
      headers['X-WOPI-Proof'] = this.#sign(keys.current, url, ticks)
      headers['X-WOPI-ProofOld'] = this.#sign(keys.old, url, ticks)
    }
    headers['X-WOPI-TimeStamp'] = ticks
    headers['X-WOPI-ClientVersion'] = this.#clientVersion
    headers['X-WOPI-CorrelationId'] = randomUUID()
    headers['X-WOPI-SessionId'] = this.sessionId
    return headers
  }

  /** wopiUtils.js generateProofBuffer + generateProofSign. */
  #sign(privateKey: KeyObject, url: string, ticks: string): string {
    const token = Buffer.from(this.accessToken, 'utf8')
    const target = Buffer.from(url.toUpperCase(), 'utf8')
    const data = Buffer.alloc(4 + token.length + 4 + target.length + 4 + 8)
    let offset = 0
    data.writeUInt32BE(token.length, offset)
    offset += 4
    token.copy(data, offset)
    offset += token.length
    data.writeUInt32BE(target.length, offset)
    offset += 4
    target.copy(data, offset)
    offset += target.length
    data.writeUInt32BE(8, offset)
    offset += 4
    data.writeBigUInt64BE(BigInt(ticks), offset)
    return sign('RSA-SHA256', data, privateKey).toString('base64')
  }

  async #download(operation: WopiOperation, url: string, headers: Record<string, string>): Promise<WopiReply<Buffer>> {
    const reply = await this.#send(operation, 'GET', url, headers, undefined)
    return { ...reply, body: reply.raw }
  }

  #send(
    operation: WopiOperation,
    method: 'GET' | 'POST',
    url: string,
    specific: Record<string, string>,
    body: Uint8Array | undefined,
  ): Promise<WopiReply> {
    // utils.js: requestDefaults first, then the operation's headers; axios adds the rest.
    const headers: Record<string, string> = {
      'User-Agent': USER_AGENT,
      Connection: 'Keep-Alive',
      ...specific,
      Accept: ACCEPT,
      'Accept-Encoding': ACCEPT_ENCODING,
    }
    if (method === 'POST') {
      if (body === undefined) {
        headers['Content-Type'] = 'application/x-www-form-urlencoded'
        headers['Content-Length'] = '0'
      } else {
        headers['Content-Length'] = String(body.byteLength)
      }
    }
    const record: SentRequest = { operation, method, url, headers, status: 0 }
    this.sent.push(record)
    const timeoutMs = method === 'GET' ? GET_TIMEOUT_MS : POST_TIMEOUT_MS
    const limit = method === 'GET' ? MAX_DOWNLOAD_BYTES : Number.POSITIVE_INFINITY

    return new Promise<WopiReply>((resolve) => {
      let settled = false
      const finish = (reply: WopiReply) => {
        if (settled) return
        settled = true
        record.status = reply.status
        resolve(reply)
      }
      const fail = (error: string, status = 0, responseHeaders: Record<string, string> = {}) =>
        finish({
          operation,
          status,
          ok: false,
          headers: responseHeaders,
          body: undefined,
          raw: Buffer.alloc(0),
          error,
        })

      let target: URL
      try {
        target = new URL(url)
      } catch {
        fail(`invalid URL: ${url}`)
        return
      }
      const secure = target.protocol === 'https:'
      const send = secure ? httpsRequest : httpRequest
      const req = send(target, {
        method,
        headers,
        agent: secure ? this.#httpsAgent : this.#httpAgent,
      })
      req.setTimeout(timeoutMs, () => {
        req.destroy(new Error(`ESOCKETTIMEDOUT after ${timeoutMs} ms`))
      })
      req.on('error', (error) => fail(error.message))
      req.on('response', (res) => {
        const status = res.statusCode ?? 0
        const responseHeaders = flatHeaders(res.headers)
        const declared = Number(responseHeaders['content-length'])
        if (Number.isFinite(declared) && declared > limit) {
          res.destroy()
          fail(`EMSGSIZE: content-length ${declared}`, 0, responseHeaders)
          return
        }
        const chunks: Buffer[] = []
        let received = 0
        res.on('data', (chunk: Buffer) => {
          received += chunk.length
          if (received > limit) {
            res.destroy()
            fail('EMSGSIZE: body larger than X-WOPI-MaxExpectedSize', 0, responseHeaders)
            return
          }
          chunks.push(chunk)
        })
        res.on('error', (error) => fail(error.message, 0, responseHeaders))
        res.on('end', () => {
          let raw: Buffer
          try {
            raw = decodeBody(Buffer.concat(chunks), responseHeaders['content-encoding'])
          } catch (error) {
            fail(`bad content-encoding: ${String(error)}`, 0, responseHeaders)
            return
          }
          const ok = method === 'GET' ? status === 200 || status === 206 : status === 200 || status === 204
          const reply = { operation, status, ok, headers: responseHeaders, raw }
          finish({ ...reply, body: parseMaybeJson(raw) })
        })
      })
      if (body === undefined) req.end()
      else req.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength))
    })
  }
}

function stringOrUndefined(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value
  if (typeof value === 'number') return String(value)
  return undefined
}

function viewVersion(fileInfo: FileInfo): string {
  const modified = fileInfo.LastModifiedTime
  return truthy(modified) ? String(modified) : String(fileInfo.Version)
}

/** The public half of a key as discovery publishes it: base64 big-endian modulus/exponent. */
function publicParts(key: KeyObject): { modulus: string; exponent: string; value: string } {
  const jwk = createPublicKey(key).export({ format: 'jwk' })
  if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string') throw new Error('not an RSA key')
  const modulus = Buffer.from(jwk.n, 'base64url')
  const exponent = Buffer.from(jwk.e, 'base64url')
  // `value`: a CryptoAPI PUBLICKEYBLOB (BLOBHEADER, RSAPUBKEY, modulus little-endian).
  const head = Buffer.alloc(20)
  head.writeUInt8(0x06, 0)
  head.writeUInt8(0x02, 1)
  head.writeUInt32LE(0xa400, 4)
  head.write('RSA1', 8, 'latin1')
  head.writeUInt32LE(modulus.length * 8, 12)
  head.writeUInt32LE(exponent.readUIntBE(0, exponent.length), 16)
  return {
    modulus: modulus.toString('base64'),
    exponent: exponent.toString('base64'),
    value: Buffer.concat([head, Buffer.from(modulus).reverse()]).toString('base64'),
  }
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** Document types and extensions in the shape of DS's discovery (a subset of its formats). */
const DISCOVERY_APPS = [
  { name: 'Word', type: 'word', view: ['doc', 'rtf'], edit: ['docx', 'odt'], target: 'docx' },
  { name: 'Excel', type: 'cell', view: ['xls'], edit: ['xlsx', 'ods', 'csv'], target: 'xlsx' },
  { name: 'PowerPoint', type: 'slide', view: ['ppt'], edit: ['pptx', 'odp'], target: 'pptx' },
  { name: 'Pdf', type: 'pdf', view: [], edit: ['pdf'], target: undefined },
]

/**
 * A discovery document as DS builds it (B1, `wopiClient.js` discovery): one
 * line, one net-zone, Word/Excel/PowerPoint/Pdf apps, MIME-type apps with
 * ext="", a Capabilities app, and the proof-key element only when both public
 * keys are given.
 */
export function buildDiscoveryXml(options: {
  baseUrl: string
  publicKeys?: { current: KeyObject; old: KeyObject }
  zone?: string
}): string {
  const base = options.baseUrl
  const tail =
    '<rs=DC_LLCC&><dchat=DISABLE_CHAT&><embed=EMBEDDED&><fs=FULLSCREEN&><hid=HOST_SESSION_ID&>' +
    '<rec=RECORDING&><sc=SESSION_CONTEXT&><thm=THEME_ID&><ui=UI_LLCC&><wopisrc=WOPI_SOURCE&>&'
  const action = (attributes: Record<string, string>) =>
    '<action' +
    Object.entries(attributes)
      .map(([key, value]) => ` ${key}="${escapeAttribute(value)}"`)
      .join('') +
    '/>'
  const parts: string[] = ['<?xml version="1.0" encoding="utf-8"?><wopi-discovery>']
  parts.push(`<net-zone name="${escapeAttribute(options.zone ?? 'external-http')}">`)
  for (const app of DISCOVERY_APPS) {
    const url = (path: string) => `${base}/hosting/wopi/${app.type}/${path}${tail}`
    const favicon = `${base}/web-apps/apps/${app.type}/favicon.ico`
    parts.push(`<app name="${app.name}" favIconUrl="${favicon}">`)
    for (const ext of app.view) {
      parts.push(action({ name: 'view', ext, default: 'true', urlsrc: url('view?') }))
      parts.push(action({ name: 'embedview', ext, urlsrc: url('view?embed=1&') }))
      parts.push(action({ name: 'mobileView', ext, urlsrc: url('view?mobile=1&') }))
      if (app.target !== undefined) {
        parts.push(
          action({
            name: 'convert',
            ext,
            targetext: app.target,
            requires: 'update',
            urlsrc: `${base}/hosting/wopi/convert-and-edit/${ext}/${app.target}?${tail}`,
          }),
        )
      }
    }
    for (const ext of app.edit) {
      parts.push(action({ name: 'view', ext, urlsrc: url('view?') }))
      parts.push(action({ name: 'embedview', ext, urlsrc: url('view?embed=1&') }))
      parts.push(action({ name: 'mobileView', ext, urlsrc: url('view?mobile=1&') }))
      const requires = 'locks,update'
      parts.push(action({ name: 'edit', ext, default: 'true', requires, urlsrc: url('edit?') }))
      if (ext === 'pdf') {
        parts.push(action({ name: 'formsubmit', ext, requires, urlsrc: url('edit?formsubmit=1&') }))
      }
      parts.push(action({ name: 'mobileEdit', ext, requires, urlsrc: url('edit?mobile=1&') }))
      parts.push(action({ name: 'editnew', ext, requires, urlsrc: url('edit?') }))
    }
    parts.push('</app>')
  }
  for (const app of DISCOVERY_APPS) {
    for (const ext of app.edit) {
      const mime = mimeTypeFor(ext)
      if (mime === undefined) continue
      parts.push(`<app name="${escapeAttribute(mime)}">`)
      const edit = `${base}/hosting/wopi/${app.type}/edit?${tail}`
      const requires = 'locks,update'
      parts.push(action({ name: 'edit', ext: '', default: 'true', requires, urlsrc: edit }))
      parts.push('</app>')
    }
  }
  parts.push('<app name="Capabilities">')
  const capabilities = `${base}/hosting/capabilities`
  parts.push(action({ ext: '', name: 'getinfo', requires: 'locks,update', urlsrc: capabilities }))
  parts.push('</app></net-zone>')
  if (options.publicKeys !== undefined) {
    const current = publicParts(options.publicKeys.current)
    const old = publicParts(options.publicKeys.old)
    parts.push(
      `<proof-key oldvalue="${old.value}" oldmodulus="${old.modulus}" oldexponent="${old.exponent}" ` +
        `value="${current.value}" modulus="${current.modulus}" exponent="${current.exponent}"/>`,
    )
  }
  parts.push('</wopi-discovery>')
  return parts.join('')
}

/**
 * Serves DS's discovery at http://127.0.0.1:<free port>/hosting/discovery
 * (Content-Type: text/xml). Keys may be public or private; only the public half
 * is published.
 */
export async function startDiscoveryServer(
  options: { publicKeys?: { current: KeyObject; old: KeyObject }; zone?: string } = {},
): Promise<{ url: string; baseUrl: string; close: () => Promise<void> }> {
  let baseUrl = ''
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (req.method !== 'GET' || path !== '/hosting/discovery') {
      res.writeHead(404).end()
      return
    }
    const xml = buildDiscoveryXml({ baseUrl, ...options })
    res.writeHead(200, { 'Content-Type': 'text/xml' }).end(xml)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address: AddressInfo | string | null = server.address()
  if (address === null || typeof address === 'string') {
    throw new Error('discovery server has no port')
  }
  baseUrl = `http://127.0.0.1:${address.port}`
  return {
    url: `${baseUrl}/hosting/discovery`,
    baseUrl,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeAllConnections()
      }),
  }
}
