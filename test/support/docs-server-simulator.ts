/**
 * A stand-in for ONLYOFFICE Document Server (DS) in native editor ("callback") mode: a real HTTP
 * server on 127.0.0.1 that sends Folio the same traffic DS sends. The labels §0 and A1…A10 name
 * the behaviours listed below (each is described there); a few details were checked in the DS
 * source (https://github.com/ONLYOFFICE/server @ 4e56b8d0) and say so.
 *
 * Reproduced:
 * - §0 transport: `User-Agent: Node.js/6.13`, `Connection: Keep-Alive`, axios's `Accept` and
 *   `Accept-Encoding`; only 200/204 count for POSTs and 200/206 for downloads; the reply body is
 *   JSON-parsed when it can be (an empty 200 therefore fails); 10 min callback and 2 min download
 *   timeouts; the private-IP guard when JWT is off (opt in with `allowPrivateIp: false`).
 * - A1: the browser token (HS256, inbox secret) is required when a secret is set; it must hold
 *   document.key/url, permissions, callbackUrl and mode (7.1 `tokenRequiredParams`); a top-level
 *   `url`/`payload`/`key` is rejected; token values override the plain config (a plain `view` mode
 *   wins). The key must match `[0-9a-zA-Z-._=]{1,128}`. Reopening a key whose save was accepted
 *   fails with "The file version has been changed" (for `expire.updateVersionStatus` = 5 min).
 * - A2: body fields in `OutputSfcData` order, undefined ones left out, `filetype` after `token`.
 * - A3: status 1 on every editor join/leave with the full `users` list and action 1/0; status 4
 *   when the last editor leaves without changes (no `users`); status 2 after `saveDelayMs` (no
 *   delay on an explicit close), not sent when an editor came back; status 3 via `failNextSave`;
 *   whose callbackUrl is used (joining/leaving user, last author, clicker; last tab of a user wins).
 * - A4: `url`/`changesurl` are signed `/cache/files/...` links served here (nginx secure_link:
 *   md5 over `expires + path + secret`, 403 when the md5 is wrong, 410 when expired, 900 s life;
 *   `shardkey` from 8.1), based on `publicUrl`; `changes.zip` holds `changesN.json`; `history`
 *   has one entry per change of author (`documentSha256` from 8.2); the oversized-header rule
 *   (≥ 7168 chars drops changesurl and empties history in the header token and the plain body).
 * - A5: success = HTTP 200/204 and a parsed `error` loosely equal to 0; status 2/3 retried on no
 *   reply, 429 or 5xx after `retryBaseMs`·1, ·2, ·4 with a fresh url and JWT; any other failure or
 *   the last retry leaves a "forgotten" file (listed in `forgotten`, reopening loads it and warns
 *   "File not assembled"; not for a non-corrupted status 3). Status 1/4/6/7 are never retried.
 * - A6: forcesave types 0 (command) and 1 (button, needs `customization.forcesave`), NotModified
 *   when nothing changed since the last successful forcesave, the key stays the same.
 * - A7: outgoing `token` in the body (flat claims) and `<jwtHeader>: Bearer` (claims under
 *   `payload`), iat/exp 5 min; the `document.url` GET carries `<jwtHeader>: Bearer {payload:{url}}`
 *   (the source uses the outbox header name, not always `Authorization`); incoming tokens are
 *   checked with a 60 s clock tolerance.
 * - A8: `/command` (and the legacy `/coauthoring/CommandService.ashx`): info, forcesave, drop,
 *   meta, version, getForgotten, getForgottenList, deleteForgotten; errors 1, 2, 4, 5, 6, 7.
 * - A10: `document.url` download with 3 attempts 1 s apart, a timeout or an oversize response
 *   ending them at once, 100 MiB cap, redirects followed (axios/follow-redirects, up to 21, the
 *   `Authorization` header dropped on a change of host).
 *
 * - A9: `/converter` (JSON with `Accept: application/json`, else XML): the token in the body (or
 *   the header) checked as for commands (-8), `key`, `url`, `filetype` and `outputtype` checked
 *   (-7), the source downloaded as `document.url` is (-4 when that fails), converted by the
 *   engine given in `convert` (a real converter in Folio's tests; -3 when it fails, -1 without
 *   one), asynchronous requests answered `endConvert: false` until the result is ready, then
 *   `{endConvert, fileType, fileUrl, percent}` with `fileUrl` a signed cache link served here.
 *   The same key answers the same result (DS caches conversions by key).
 *
 * Left out: real editors (saved bytes are whatever `edit()` set; `doc`/`xls`/`ppt`
 * come back as OOXML names), the blank template for 0-byte files, WOPI (part B), the conversion
 * API's region, password and spreadsheet options, autoAssembly and form submit (forcesave types 2 and 3), reconnects, encrypted files,
 * mail merge, `license`, `ipfilter`, the 24 h cache expiry, `saved` command, shard proxying.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto'
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { strToU8, zipSync } from 'fflate'
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose'
import { z } from 'zod'

/** How the simulator answers GETs of one document's cache links (`url`, `changesurl`). */
export type ServeMode = 'ok' | 'http500' | 'redirect-elsewhere' | 'slow'

/** The failure the next save of a document reports: corrupted (-86) keeps `url`, conversion not. */
export type SaveFailure = 'corrupted' | 'conversion'

/** Why `openEditor` refused, named after what the real editor would show. */
export type OpenErrorCode =
  | 'INVALID_CONFIG'
  | 'JWT_ERROR'
  | 'JWT_EXPIRED'
  | 'ACCESS_DENIED'
  | 'USER_ID_TOO_LONG'
  | 'VERSION_CHANGED'
  | 'DOWNLOAD_FAILED'
  | 'DOWNLOAD_TOO_LARGE'

/** Thrown by `openEditor` when DS would not open the document; `code` says why. */
export class EditorOpenError extends Error {
  readonly code: OpenErrorCode
  constructor(code: OpenErrorCode, message: string) {
    super(message)
    this.name = 'EditorOpenError'
    this.code = code
  }
}

/** Settings of one simulator; every delay can be shortened so tests stay fast. */
export interface DocsSimulatorOptions {
  /** JWT secret (inbox = outbox = browser, as packages set one JWT_SECRET). Unset: JWT off. */
  jwtSecret?: string
  /** Header for outgoing and incoming JWTs (DS `JWT_HEADER`). Default `Authorization`. */
  jwtHeader?: string
  /** DS version reported in `history.serverVersion` and by `version`. Default `8.3.0`. */
  version?: string
  /** Delay between the last editor leaving and status 2 (`savetimeoutdelay`). Default 5000 ms. */
  saveDelayMs?: number
  /** Base of the status 2/3 retry backoff (base·2^attempt). Default 1000 ms. */
  retryBaseMs?: number
  /** Pause between `document.url` download attempts. Default 1000 ms. */
  downloadRetryMs?: number
  /** Whole-download timeout for `document.url`. Default 120000 ms. */
  downloadTimeoutMs?: number
  /** Timeout of one callback POST. Default 600000 ms. */
  callbackTimeoutMs?: number
  /** Largest `document.url` body accepted. Default 100 MiB. */
  maxDownloadBytes?: number
  /** Life of signed cache links. Default 900 s. */
  urlExpiresSeconds?: number
  /** Origin put in cache links (the address "the browser used"). Default: the simulator's url. */
  publicUrl?: string
  /** How long `slow` serving stalls in the middle of the body. Default 3000 ms. */
  slowServeMs?: number
  /** false reproduces DS's default private-IP guard for requests not covered by a JWT. Default true. */
  allowPrivateIp?: boolean
  /** Clock for link expiry, JWT times and change dates (ms). Timers still run on real time. */
  now?: () => number
  /** The conversion engine behind `/converter` (A9); without one every conversion fails (-1). */
  convert?: (input: ConversionInput) => Promise<Uint8Array>
  /**
   * How the simulator waits out its delays (save, retry backoff, download retry, slow
   * serving): resolves after `ms`, or at once when `signal` aborts. Default: real timers
   * (`sleepUnlessAborted`); a test passes its own to decide when a delay has passed.
   */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>
}

/** What the conversion engine is asked to do. */
export interface ConversionInput {
  bytes: Uint8Array
  filetype: string
  outputtype: string
  /** The request's `thumbnail` settings, when it asked for an image. */
  thumbnail?: Record<string, unknown>
}

/** One request received by the conversion service. */
export interface RecordedConversion {
  key?: string
  filetype?: string
  outputtype?: string
  async: boolean
  /** The `error` answered, 0 when none (also while still converting). */
  error: number
  endConvert: boolean
}

/** An editor config as an integrator hands it to `DocsAPI.DocEditor` (only the parts DS reads). */
export interface EditorConfig {
  documentType?: string
  document?: {
    fileType?: string
    key?: string
    title?: string
    url?: string
    permissions?: Record<string, unknown>
  }
  editorConfig?: {
    callbackUrl?: string
    mode?: string
    lang?: string
    user?: { id?: string; name?: string }
    customization?: { forcesave?: boolean }
  }
  token?: string
}

/** The user behind an editor tab. */
export interface EditorUser {
  id: string
  name: string
}

/** One callback POST the simulator sent (each retry is its own entry). */
export interface SentCallback {
  /** The callbackUrl it went to. */
  url: string
  /** `status` of the body (-1 for a forged body without one). */
  status: number
  /** 1 for the first try, 2…4 for retries. */
  attempt: number
  /** The body as sent, parsed. */
  body: Record<string, unknown>
  /** The exact JSON text sent. */
  raw: string
  /** Request headers as sent (names in their sent case). */
  headers: Record<string, string>
  /** HTTP status of the reply, 0 when there was none (network error, timeout, blocked). */
  httpStatus: number
  /** The reply body text, or the transport error message. */
  reply: string
  /** Whether DS counts the reply as success (A5). */
  ok: boolean
  /** Real time (Date.now) the request was started, for timing checks. */
  sentAt: number
}

/** One request received by the command service. */
export interface RecordedCommand {
  /** `c` after token checks ('' when absent). */
  c: string
  key?: string
  /** The JSON body (or query) as received. */
  body: unknown
  /** The verified `users` parameter (drop, forcesave...), when one was given. */
  users?: string[]
  /** The parameters that counted: the token's claims when one is required, else the body. */
  params: Record<string, unknown>
  /** The `error` the simulator answered. */
  error: number
}

/** One attempt at fetching `document.url`. */
export interface DownloadAttempt {
  url: string
  attempt: number
  httpStatus: number
  headers: Record<string, string>
  error?: string
}

/** A request the simulator's own HTTP server answered. */
export interface ServedRequest {
  method: string
  path: string
  status: number
}

/** What `sendCallback` signs: true with the secret, 'wrong-secret' with another one, false not. */
export interface ForgedCallbackOptions {
  sign?: boolean | 'wrong-secret'
  /** Also send the header token (default: when signing). */
  header?: boolean
}

/** One open editor tab (a connection to DS). */
export interface EditorSession {
  readonly key: string
  readonly user: EditorUser
  readonly mode: 'edit' | 'view'
  /** The bytes DS loaded when the document was opened (download or forgotten file). */
  readonly downloaded: Uint8Array
  /** The current content of the document (what a save would serve). */
  readonly content: Uint8Array
  /** Messages the editor would show (e.g. "Error on save server subscription!"). */
  readonly warnings: string[]
  /** Marks the document modified by this user; `newContent` is what a save serves. */
  edit(newContent: Uint8Array): void
  /** Save button (forcesave type 1); resolves with the status 6/7 sent, if any. */
  clickSave(): Promise<SentCallback | undefined>
  /** Leaves; resolves once the resulting status 1/4, or the whole status 2 run, is over. */
  disconnect(options?: { explicitClose?: boolean }): Promise<void>
  /** Makes the next status 2 a status 3, or the next forcesave a status 7. */
  failNextSave(kind: SaveFailure): void
  /** Changes how this document's cache links are served. */
  setServeMode(mode: ServeMode): void
}

/** A running simulator. */
export interface DocsSimulator {
  /** http://127.0.0.1:port — the internal DS URL Folio talks to. */
  readonly url: string
  /** Origin used in cache links. */
  readonly publicUrl: string
  /** A second origin `redirect-elsewhere` points to; its hits land in `elsewhereHits`. */
  readonly elsewhereUrl: string
  readonly commands: RecordedCommand[]
  readonly callbacks: SentCallback[]
  /** Keys whose final save failed (in order of failure). */
  /** Every request to the conversion service (A9), in order. */
  readonly conversions: RecordedConversion[]
  readonly forgotten: string[]
  readonly downloads: DownloadAttempt[]
  readonly requests: ServedRequest[]
  readonly elsewhereHits: string[]
  /** Opens an editor tab from a config; throws EditorOpenError like DS's error screens. */
  openEditor(config: EditorConfig, user?: EditorUser, options?: { serveMode?: ServeMode }): Promise<EditorSession>
  /** Posts an arbitrary (forged) callback body; recorded in `callbacks`. */
  sendCallback(
    callbackUrl: string,
    body: Record<string, unknown>,
    options?: ForgedCallbackOptions,
  ): Promise<SentCallback>
  /** Resolves with the first past or future callback that matches. */
  waitForCallback(match: (sent: SentCallback) => boolean, timeoutMs?: number): Promise<SentCallback>
  /** Resolves when no save, retry, forcesave or drop is under way. */
  idle(): Promise<void>
  close(): Promise<void>
}

const DEFAULT_REQUEST_HEADERS = { 'User-Agent': 'Node.js/6.13', Connection: 'Keep-Alive' }
const AXIOS_ACCEPT = 'application/json, text/plain, */*'
const AXIOS_ACCEPT_ENCODING = 'gzip, compress, deflate, br'
// OutputSfcData's constructor order; filetype and formsdataurl are assigned later (A2).
const FIELD_ORDER = [
  'key',
  'status',
  'url',
  'changesurl',
  'history',
  'users',
  'actions',
  'mailMerge',
  'userdata',
  'formdata',
  'lastsave',
  'notmodified',
  'forcesavetype',
  'encrypted',
  'token',
  'filetype',
  'formsdataurl',
]
const KEY_PATTERN = /^[0-9a-zA-Z\-._=]{1,128}$/
const USER_ID_MAX_LENGTH = 240
const DOCUMENT_TYPES = ['word', 'cell', 'slide', 'pdf', 'diagram', 'text', 'spreadsheet', 'presentation']
const HEADER_TOKEN_LIMIT = 7168
const CALLBACK_RETRIES = 3
const DOWNLOAD_ATTEMPTS = 3
const MAX_REDIRECTS = 21
const UPDATE_VERSION_EXPIRE_MS = 5 * 60_000
const TOKEN_LIFETIME_S = 300
const TOKEN_CLOCK_TOLERANCE_S = 60
const STORAGE_SECRET = 'verysecretstring'
const CACHE_PREFIX = '/cache/files/'
const OOXML_FOR_LEGACY: Record<string, string> = { doc: 'docx', xls: 'xlsx', ppt: 'pptx' }
const CONTENT_TYPES: Record<string, string> = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  pdf: 'application/pdf',
  zip: 'application/zip',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
}
// c_oAscServerCommandErrors
const CMD_OK = 0
const CMD_KEY = 1
const CMD_CALLBACK = 2
const CMD_NOT_MODIFIED = 4
const CMD_UNKNOWN = 5
const CMD_TOKEN = 6
const CMD_TOKEN_EXPIRED = 7

const userSchema = z.object({ id: z.union([z.string(), z.number()]).optional(), name: z.string().optional() }).loose()
const configSchema = z
  .object({
    documentType: z.string().optional(),
    document: z
      .object({
        fileType: z.string().optional(),
        key: z.string().optional(),
        title: z.string().optional(),
        url: z.string().optional(),
        permissions: z.record(z.string(), z.unknown()).optional(),
      })
      .loose()
      .optional(),
    editorConfig: z
      .object({
        callbackUrl: z.string().optional(),
        mode: z.string().optional(),
        lang: z.string().optional(),
        user: userSchema.optional(),
        customization: z.object({ forcesave: z.boolean().optional() }).loose().optional(),
      })
      .loose()
      .optional(),
    token: z.string().optional(),
  })
  .loose()
type ParsedConfig = z.infer<typeof configSchema>

interface ChangeRecord {
  userId: string
  userName: string
  time: number
}

interface DocState {
  key: string
  fileType: string
  title: string
  content: Uint8Array
  sourceSha256: string
  changes: ChangeRecord[]
  connections: Session[]
  /** callbackUrl per original user id; the last tab of a user wins. */
  userCallbacks: Map<string, string>
  phase: 'open' | 'saving'
  saveAbort?: AbortController
  /** How many changes the last successful forcesave covered. */
  forcesavedCount: number
  failNext?: SaveFailure
  fromForgotten: boolean
}

interface LoadedDocument {
  doc: DocState
  warnings: string[]
  downloaded: Uint8Array
}

interface ResolvedOpen {
  key: string
  url: string
  fileType: string
  title: string
  mode: 'edit' | 'view'
  callbackUrl?: string
  user: EditorUser
  forcesaveButton: boolean
  inJwt: boolean
}

interface HttpReply {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

class TransportError extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.code = code
  }
}

/** Starts a simulator and its "elsewhere" origin on free loopback ports. */
export async function startDocsSimulator(options: DocsSimulatorOptions = {}): Promise<DocsSimulator> {
  const simulator = new Simulator(options)
  await simulator.listen()
  return simulator
}

class Session implements EditorSession {
  readonly warnings: string[]
  connected = true

  constructor(
    private readonly sim: Simulator,
    readonly doc: DocState,
    readonly user: EditorUser,
    readonly mode: 'edit' | 'view',
    readonly callbackUrl: string | undefined,
    readonly forcesaveButton: boolean,
    readonly downloaded: Uint8Array,
    warnings: string[],
  ) {
    this.warnings = warnings
  }

  get key(): string {
    return this.doc.key
  }

  get content(): Uint8Array {
    return this.doc.content
  }

  edit(newContent: Uint8Array): void {
    this.sim.applyEdit(this, newContent)
  }

  clickSave(): Promise<SentCallback | undefined> {
    return this.sim.track(this.sim.buttonForcesave(this))
  }

  disconnect(options: { explicitClose?: boolean } = {}): Promise<void> {
    return this.sim.track(this.sim.leave(this, options.explicitClose === true))
  }

  failNextSave(kind: SaveFailure): void {
    this.doc.failNext = kind
  }

  setServeMode(mode: ServeMode): void {
    this.sim.serveModes.set(this.doc.key, mode)
  }
}

class Simulator implements DocsSimulator {
  url = ''
  publicUrl = ''
  elsewhereUrl = ''
  readonly commands: RecordedCommand[] = []
  readonly callbacks: SentCallback[] = []
  readonly forgotten: string[] = []
  readonly conversions: RecordedConversion[] = []
  readonly downloads: DownloadAttempt[] = []
  readonly requests: ServedRequest[] = []
  readonly elsewhereHits: string[] = []
  readonly serveModes = new Map<string, ServeMode>()

  private readonly secret: string | undefined
  private readonly jwtHeader: string
  private readonly version: string
  private readonly saveDelayMs: number
  private readonly wait: (ms: number, signal: AbortSignal) => Promise<void>
  private readonly retryBaseMs: number
  private readonly downloadRetryMs: number
  private readonly downloadTimeoutMs: number
  private readonly callbackTimeoutMs: number
  private readonly maxDownloadBytes: number
  private readonly urlExpiresSeconds: number
  private readonly slowServeMs: number
  private readonly allowPrivateIp: boolean
  private readonly now: () => number
  private readonly configuredPublicUrl: string | undefined

  private readonly server: Server
  private readonly elsewhere: Server
  private readonly httpAgent = new HttpAgent({ keepAlive: true })
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true })
  private readonly shutdown = new AbortController()
  private readonly docs = new Map<string, DocState>()
  private readonly opening = new Map<string, Promise<LoadedDocument>>()
  /** Keys seen by DS (a task row exists): the last stored callbackUrl. */
  private readonly knownKeys = new Map<string, { callbackUrl?: string }>()
  /** Keys whose status 2/3 was accepted (UpdateVersion) and when. */
  private readonly spentKeys = new Map<string, number>()
  private readonly forgottenFiles = new Map<string, { bytes: Uint8Array; ext: string }>()
  /** storage path (e.g. `data/<key>_<n>/output.docx`) → bytes and owning key. */
  private readonly cache = new Map<string, { bytes: Uint8Array; key: string }>()
  private readonly conversionJobs = new Map<
    string,
    { done: boolean; error: number; path?: string; outputtype: string }
  >()
  private readonly convertEngine: ((input: ConversionInput) => Promise<Uint8Array>) | undefined
  private readonly pending = new Set<Promise<unknown>>()
  private readonly waiters = new Set<(sent: SentCallback) => void>()

  constructor(options: DocsSimulatorOptions) {
    this.secret = options.jwtSecret === '' ? undefined : options.jwtSecret
    this.jwtHeader = options.jwtHeader ?? 'Authorization'
    this.version = options.version ?? '8.3.0'
    this.saveDelayMs = options.saveDelayMs ?? 5000
    this.wait = options.wait ?? sleepUnlessAborted
    this.retryBaseMs = options.retryBaseMs ?? 1000
    this.downloadRetryMs = options.downloadRetryMs ?? 1000
    this.downloadTimeoutMs = options.downloadTimeoutMs ?? 120_000
    this.callbackTimeoutMs = options.callbackTimeoutMs ?? 600_000
    this.maxDownloadBytes = options.maxDownloadBytes ?? 100 * 1024 * 1024
    this.urlExpiresSeconds = options.urlExpiresSeconds ?? 900
    this.slowServeMs = options.slowServeMs ?? 3000
    this.allowPrivateIp = options.allowPrivateIp ?? true
    this.now = options.now ?? Date.now
    this.convertEngine = options.convert
    this.configuredPublicUrl = options.publicUrl?.replace(/\/+$/, '')
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' })
        res.end(String(err))
      })
    })
    this.elsewhere = createServer((req, res) => {
      this.elsewhereHits.push(req.url ?? '')
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' })
      res.end('not the document')
    })
  }

  async listen(): Promise<void> {
    this.url = `http://127.0.0.1:${await listenOnFreePort(this.server)}`
    this.elsewhereUrl = `http://127.0.0.1:${await listenOnFreePort(this.elsewhere)}`
    this.publicUrl = this.configuredPublicUrl ?? this.url
  }

  async close(): Promise<void> {
    this.shutdown.abort()
    for (const doc of this.docs.values()) doc.saveAbort?.abort()
    await this.idle()
    this.httpAgent.destroy()
    this.httpsAgent.destroy()
    await Promise.all([closeServer(this.server), closeServer(this.elsewhere)])
  }

  track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work)
    const forget = (): void => {
      this.pending.delete(work)
    }
    work.then(forget, forget)
    return work
  }

  async idle(): Promise<void> {
    while (this.pending.size > 0) {
      await Promise.allSettled([...this.pending])
    }
  }

  waitForCallback(match: (sent: SentCallback) => boolean, timeoutMs = 5000): Promise<SentCallback> {
    const seen = this.callbacks.find(match)
    if (seen) return Promise.resolve(seen)
    return new Promise((resolve, reject) => {
      const waiter = (sent: SentCallback): void => {
        if (!match(sent)) return
        clearTimeout(timer)
        this.waiters.delete(waiter)
        resolve(sent)
      }
      const timer = setTimeout(() => {
        this.waiters.delete(waiter)
        reject(new Error(`no matching callback within ${timeoutMs} ms`))
      }, timeoutMs)
      this.waiters.add(waiter)
    })
  }

  // ---------------------------------------------------------------- opening (A1, A10)

  async openEditor(
    config: EditorConfig,
    user?: EditorUser,
    options: { serveMode?: ServeMode } = {},
  ): Promise<EditorSession> {
    const open = await this.resolveConfig(config, user)
    if (options.serveMode) this.serveModes.set(open.key, options.serveMode)
    const spentAt = this.spentKeys.get(open.key)
    if (spentAt !== undefined) {
      if (this.now() - spentAt <= UPDATE_VERSION_EXPIRE_MS) {
        throw new EditorOpenError('VERSION_CHANGED', 'The file version has been changed')
      }
      // UpdateVersion expired: DS opens the key again from the (new) url.
      this.spentKeys.delete(open.key)
    }
    const loaded = await this.loadDocument(open)
    const doc = loaded.doc
    if (doc.phase === 'saving' && open.mode === 'edit') {
      // SaveVersion → Ok: a returning editor stops the pending final save (A3).
      doc.saveAbort?.abort()
      doc.phase = 'open'
    }
    const session = new Session(
      this,
      doc,
      open.user,
      open.mode,
      open.callbackUrl,
      open.forcesaveButton,
      loaded.downloaded,
      [...loaded.warnings],
    )
    doc.connections.push(session)
    if (open.mode === 'view') return session
    if (open.callbackUrl) {
      doc.userCallbacks.set(open.user.id, open.callbackUrl)
      this.knownKeys.set(open.key, { callbackUrl: open.callbackUrl })
    } else if (!this.knownKeys.has(open.key)) {
      this.knownKeys.set(open.key, {})
    }
    if (open.callbackUrl) {
      await this.track(this.sendStatus(doc.key, open.callbackUrl, { type: 1, userid: open.user.id }, undefined))
    }
    return session
  }

  private async loadDocument(open: ResolvedOpen): Promise<LoadedDocument> {
    const existing = this.docs.get(open.key)
    if (existing) return { doc: existing, warnings: [], downloaded: existing.content }
    const inFlight = this.opening.get(open.key)
    if (inFlight) return inFlight
    const loading = (async () => {
      const forgottenFile = this.forgottenFiles.get(open.key)
      const warnings: string[] = []
      let bytes: Uint8Array
      if (forgottenFile) {
        bytes = forgottenFile.bytes
        warnings.push('File not assembled')
      } else {
        bytes = await this.downloadDocument(open.url, open.inJwt)
      }
      const doc: DocState = {
        key: open.key,
        fileType: open.fileType,
        title: open.title,
        content: bytes,
        sourceSha256: createHash('sha256').update(bytes).digest('hex'),
        changes: [],
        connections: [],
        userCallbacks: new Map(),
        phase: 'open',
        forcesavedCount: 0,
        fromForgotten: forgottenFile !== undefined,
      }
      this.docs.set(open.key, doc)
      return { doc, warnings, downloaded: bytes }
    })()
    this.opening.set(open.key, loading)
    try {
      return await loading
    } finally {
      this.opening.delete(open.key)
    }
  }

  private async resolveConfig(config: EditorConfig, user: EditorUser | undefined): Promise<ResolvedOpen> {
    const parsed = configSchema.safeParse(config)
    if (!parsed.success) {
      throw new EditorOpenError('INVALID_CONFIG', `editor config: ${parsed.error.message}`)
    }
    const plain = parsed.data
    const plainMode = plain.editorConfig?.mode
    let claims: ParsedConfig | undefined
    if (this.secret !== undefined) {
      claims = await this.verifyBrowserToken(plain)
    }
    const tokenDoc = claims?.document
    const doc = {
      key: tokenDoc?.key ?? plain.document?.key,
      url: tokenDoc?.url ?? plain.document?.url,
      fileType: tokenDoc?.fileType ?? plain.document?.fileType,
      title: tokenDoc?.title ?? plain.document?.title,
    }
    const editor = claims?.editorConfig
    const callbackUrl = editor?.callbackUrl ?? plain.editorConfig?.callbackUrl
    // "allow to restrict rights so don't use token mode in case of 'view'" (fillDataFromJwt)
    let mode = plainMode === 'view' ? 'view' : (editor?.mode ?? plainMode ?? 'edit')
    const permissions = { ...plain.document?.permissions, ...claims?.document?.permissions }
    if (permissions.edit === false) mode = 'view'
    const tokenUser = editor?.user
    const browserUser = user ?? toEditorUser(plain.editorConfig?.user)
    const userId = tokenUser?.id !== undefined ? String(tokenUser.id) : browserUser?.id
    const resolvedUser: EditorUser = {
      id: userId === undefined || userId === '' ? `uid-${randomBytes(4).toString('hex')}` : userId,
      name: tokenUser?.name ?? browserUser?.name ?? 'Anonymous',
    }
    if (resolvedUser.id.length > USER_ID_MAX_LENGTH) {
      throw new EditorOpenError('USER_ID_TOO_LONG', 'User id too long')
    }
    const key = doc.key
    if (key === undefined || !KEY_PATTERN.test(key)) {
      throw new EditorOpenError(
        'INVALID_CONFIG',
        `document.key ${JSON.stringify(key)} must match [0-9a-zA-Z-._=]{1,128}`,
      )
    }
    if (doc.url === undefined || !isHttpUrl(doc.url)) {
      throw new EditorOpenError('INVALID_CONFIG', `document.url ${JSON.stringify(doc.url)} is not absolute`)
    }
    if (callbackUrl !== undefined && !isHttpUrl(callbackUrl)) {
      throw new EditorOpenError(
        'INVALID_CONFIG',
        `editorConfig.callbackUrl ${JSON.stringify(callbackUrl)} is not absolute`,
      )
    }
    const documentType = claims?.documentType ?? plain.documentType
    if (documentType !== undefined && !DOCUMENT_TYPES.includes(documentType)) {
      throw new EditorOpenError('INVALID_CONFIG', `documentType ${JSON.stringify(documentType)} is unknown`)
    }
    const fileType = doc.fileType?.toLowerCase()
    if (!fileType) throw new EditorOpenError('INVALID_CONFIG', 'document.fileType is missing')
    return {
      key,
      url: doc.url,
      fileType,
      title: doc.title ?? `${key}.${fileType}`,
      mode: mode === 'view' ? 'view' : 'edit',
      callbackUrl,
      user: resolvedUser,
      forcesaveButton: plain.editorConfig?.customization?.forcesave === true,
      inJwt: claims !== undefined,
    }
  }

  private async verifyBrowserToken(plain: ParsedConfig): Promise<ParsedConfig> {
    if (plain.token === undefined || plain.token === '') {
      throw new EditorOpenError('JWT_ERROR', 'Invalid token: the config has no token (JWT error 4006)')
    }
    const verified = await this.verifyJwt(plain.token)
    if (verified.kind === 'expired') throw new EditorOpenError('JWT_EXPIRED', 'Token expired (4005)')
    if (verified.kind === 'invalid') {
      throw new EditorOpenError('JWT_ERROR', `Invalid token (4006): ${verified.reason}`)
    }
    const claims = verified.claims
    if (claims.url !== undefined || claims.payload !== undefined || claims.key !== undefined) {
      throw new EditorOpenError('ACCESS_DENIED', 'token has invalid format (top-level url/payload/key)')
    }
    const parsed = configSchema.safeParse(claims)
    if (!parsed.success) {
      throw new EditorOpenError('JWT_ERROR', `token claims are malformed: ${parsed.error.message}`)
    }
    const decoded = parsed.data
    // validateAuthToken, since 7.1 with tokenRequiredParams (A1).
    let missing = ''
    if (!decoded.document?.key) missing = 'document.key'
    else if (plain.document?.permissions && !decoded.document.permissions) missing = 'document.permissions'
    else if (!decoded.document.url) missing = 'document.url'
    else if (plain.editorConfig?.callbackUrl && !decoded.editorConfig?.callbackUrl) {
      missing = 'editorConfig.callbackUrl'
    } else if (plain.editorConfig?.mode && plain.editorConfig.mode !== 'view' && !decoded.editorConfig?.mode) {
      missing = 'editorConfig.mode'
    }
    if (missing) {
      throw new EditorOpenError('JWT_ERROR', `auth missing required parameter ${missing} (since 7.1 version)`)
    }
    return decoded
  }

  private async downloadDocument(url: string, inJwt: boolean): Promise<Uint8Array> {
    let lastError = 'no attempt'
    for (let attempt = 1; attempt <= DOWNLOAD_ATTEMPTS; attempt++) {
      const headers: Record<string, string> = {
        ...DEFAULT_REQUEST_HEADERS,
        Accept: AXIOS_ACCEPT,
        'Accept-Encoding': AXIOS_ACCEPT_ENCODING,
      }
      if (this.secret !== undefined) {
        // A fresh {payload:{url}} token per attempt, under the outbox header (converter.js).
        headers[this.jwtHeader] = `Bearer ${await this.signJwt({ payload: { url } }, this.secret)}`
      }
      const record: DownloadAttempt = { url, attempt, httpStatus: 0, headers: { ...headers } }
      this.downloads.push(record)
      try {
        const reply = await this.getFollowingRedirects(url, headers, !inJwt)
        record.httpStatus = reply.status
        if (reply.status !== 200 && reply.status !== 206) {
          throw new TransportError('EHTTP', `Error response: statusCode:${reply.status}`)
        }
        return new Uint8Array(reply.body)
      } catch (err) {
        const failure = err instanceof TransportError ? err : new TransportError('EUNKNOWN', String(err))
        record.error = failure.message
        lastError = failure.message
        if (failure.code === 'ETIMEDOUT') break
        if (failure.code === 'EMSGSIZE') {
          throw new EditorOpenError('DOWNLOAD_TOO_LARGE', `Download failed: ${url}: ${failure.message}`)
        }
        // converter.js sleeps after every other failure, the last one included.
        await this.wait(this.downloadRetryMs, this.shutdown.signal)
      }
    }
    throw new EditorOpenError('DOWNLOAD_FAILED', `Download failed: ${url}: ${lastError}`)
  }

  private async getFollowingRedirects(
    url: string,
    headers: Record<string, string>,
    filterPrivate: boolean,
  ): Promise<HttpReply> {
    let target = new URL(url)
    let sendHeaders = { ...headers }
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (filterPrivate) this.checkPrivate(target)
      const reply = await this.sendHttp(target, {
        method: 'GET',
        headers: sendHeaders,
        timeoutMs: this.downloadTimeoutMs,
        maxBytes: this.maxDownloadBytes,
      })
      const location = reply.headers.location
      if (![301, 302, 303, 307, 308].includes(reply.status) || location === undefined) return reply
      const next = new URL(location, target)
      if (next.host !== target.host) {
        // follow-redirects drops Authorization (only that name) on a change of host.
        sendHeaders = Object.fromEntries(
          Object.entries(sendHeaders).filter(([name]) => name.toLowerCase() !== 'authorization'),
        )
      }
      target = next
    }
    throw new TransportError('ERR_FR_TOO_MANY_REDIRECTS', 'Maximum number of redirects exceeded')
  }

  private checkPrivate(target: URL): void {
    if (this.allowPrivateIp || !isPrivateHost(target.hostname)) return
    const host = target.hostname
    throw new TransportError(
      'EPRIVATE',
      `DNS lookup ${host}(family:${isIP(host) || 4}, host:${host}) is not allowed. ` +
        'Because, It is private IP address.',
    )
  }

  // ---------------------------------------------------------------- editing and leaving (A3)

  applyEdit(session: Session, newContent: Uint8Array): void {
    if (!session.connected) throw new Error('editor session is closed')
    if (session.mode !== 'edit') throw new Error('a viewer cannot edit')
    const doc = session.doc
    doc.content = new Uint8Array(newContent)
    doc.changes.push({ userId: session.user.id, userName: session.user.name, time: this.now() })
  }

  async leave(session: Session, explicitClose: boolean): Promise<void> {
    if (!session.connected) return
    session.connected = false
    const doc = session.doc
    doc.connections = doc.connections.filter((other) => other !== session)
    if (session.mode === 'view') {
      if (doc.connections.length === 0 && doc.changes.length === 0 && doc.phase === 'open') {
        this.docs.delete(doc.key)
      }
      return
    }
    const callbackUrl = doc.userCallbacks.get(session.user.id) ?? session.callbackUrl
    if (editorIds(doc).length > 0) {
      if (callbackUrl) await this.sendStatus(doc.key, callbackUrl, { type: 0, userid: session.user.id })
      return
    }
    if (doc.changes.length > 0 || doc.fromForgotten) {
      await this.finalSave(doc, session.user.id, explicitClose)
      return
    }
    // cleanDocumentOnExitNoChanges: status 4, the document leaves the cache.
    if (doc.connections.length === 0) this.docs.delete(doc.key)
    if (callbackUrl) await this.sendStatus(doc.key, callbackUrl, { type: 0, userid: session.user.id })
  }

  private async sendStatus(
    key: string,
    callbackUrl: string,
    action: { type: number; userid: string } | undefined,
    userdata?: unknown,
  ): Promise<SentCallback> {
    const doc = this.docs.get(key)
    const participants = doc ? editorIds(doc) : []
    const hasChanges = doc !== undefined && doc.changes.length > 0
    const status = participants.length === 0 && !hasChanges ? 4 : 1
    const sent = await this.postCallback(
      callbackUrl,
      {
        key,
        status,
        users: status === 4 ? undefined : participants,
        actions: action ? [action] : undefined,
        userdata,
      },
      1,
      false,
    )
    if (!sent.ok && doc) {
      for (const session of doc.connections) session.warnings.push('Error on save server subscription!')
    }
    return sent
  }

  private async finalSave(doc: DocState, leaverId: string, explicitClose: boolean): Promise<void> {
    doc.phase = 'saving'
    const abort = new AbortController()
    doc.saveAbort = abort
    const cancelled = AbortSignal.any([abort.signal, this.shutdown.signal])
    if (!explicitClose) await this.wait(this.saveDelayMs, cancelled)
    if (cancelled.aborted || editorIds(doc).length > 0) return
    const failure = doc.failNext
    doc.failNext = undefined
    const lastAuthor = doc.changes.at(-1)?.userId ?? leaverId
    const callbackUrl = doc.userCallbacks.get(lastAuthor)
    const output = failure === 'conversion' ? undefined : this.storeOutput(doc)
    const keepsFile = failure !== 'conversion'
    if (!callbackUrl) {
      // "Empty Callback … commandSfcCallback" → forgotten.
      this.storeForgotten(doc, keepsFile)
      return
    }
    for (let attempt = 0; ; attempt++) {
      if (cancelled.aborted || editorIds(doc).length > 0) return
      const lastChange = doc.changes.at(-1)
      const fields: Record<string, unknown> = {
        key: doc.key,
        status: failure ? 3 : 2,
        ...(output ? this.outputLinks(doc, output) : {}),
        users: [lastAuthor],
        actions: [{ type: 0, userid: leaverId }],
        lastsave: new Date(lastChange?.time ?? this.now()).toISOString(),
        notmodified: doc.forcesavedCount > 0 && doc.forcesavedCount === doc.changes.length,
      }
      const sent = await this.postCallback(callbackUrl, fields, attempt + 1, true)
      if (sent.ok) {
        // UpdateVersion: the key is spent; the changes and any forgotten copy go.
        this.docs.delete(doc.key)
        this.spentKeys.set(doc.key, this.now())
        if (doc.fromForgotten) this.forgottenFiles.delete(doc.key)
        return
      }
      const retryable = sent.httpStatus === 0 || sent.httpStatus === 429 || sent.httpStatus >= 500
      const threw = sent.httpStatus !== 200 && sent.httpStatus !== 204
      if (!threw || !retryable || attempt >= CALLBACK_RETRIES) break
      await this.wait(this.retryBaseMs * 2 ** attempt, cancelled)
    }
    if (cancelled.aborted || editorIds(doc).length > 0) return
    this.storeForgotten(doc, keepsFile)
  }

  private storeForgotten(doc: DocState, keepsFile: boolean): void {
    this.docs.delete(doc.key)
    // commandSfcCallback stores a forgotten copy unless the conversion itself failed.
    if (!keepsFile) return
    const ext = outputExtension(doc.fileType)
    this.forgottenFiles.set(doc.key, { bytes: doc.content, ext })
    this.cache.set(`forgotten/${doc.key}/output.${ext}`, { bytes: doc.content, key: doc.key })
    this.forgotten.push(doc.key)
  }

  // ---------------------------------------------------------------- forcesave (A6)

  async buttonForcesave(session: Session): Promise<SentCallback | undefined> {
    if (!session.connected) throw new Error('editor session is closed')
    if (session.mode !== 'edit') throw new Error('a viewer has no Save button')
    // Without customization.forcesave the button only pushes changes to DS: no callback.
    if (!session.forcesaveButton) return undefined
    const doc = session.doc
    const callbackUrl = doc.userCallbacks.get(session.user.id)
    if (!callbackUrl || !this.canForcesave(doc)) return undefined
    return this.forcesave(doc, 1, callbackUrl, session.user.id, undefined)
  }

  private canForcesave(doc: DocState): boolean {
    return doc.phase === 'open' && doc.changes.length > doc.forcesavedCount
  }

  private async forcesave(
    doc: DocState,
    type: 0 | 1,
    callbackUrl: string,
    clickerId: string | undefined,
    userdata: unknown,
  ): Promise<SentCallback> {
    const failure = doc.failNext
    doc.failNext = undefined
    const coveredChanges = doc.changes.length
    const lastChange = doc.changes.at(-1)
    const output = failure === 'conversion' ? undefined : this.storeOutput(doc)
    const fields: Record<string, unknown> = {
      key: doc.key,
      status: failure ? 7 : 6,
      ...(output ? this.outputLinks(doc, output) : {}),
      users: [lastChange?.userId ?? clickerId],
      actions: type === 1 && clickerId !== undefined ? [{ type: 2, userid: clickerId }] : undefined,
      userdata,
      lastsave: new Date(lastChange?.time ?? this.now()).toISOString(),
      forcesavetype: type,
    }
    const sent = await this.postCallback(callbackUrl, fields, 1, true)
    // A failed forcesave stays "not ended", so the next one is not NotModified.
    if (sent.ok && !failure) doc.forcesavedCount = coveredChanges
    return sent
  }

  // ---------------------------------------------------------------- saved output (A4)

  private storeOutput(doc: DocState): { docPath: string; changesPath: string; fileName: string } {
    const saveKey = `${doc.key}_${randomInt(10_000)}`
    const fileName = `output.${outputExtension(doc.fileType)}`
    const docPath = `data/${saveKey}/${fileName}`
    const changesPath = `data/${saveKey}/changes.zip`
    this.cache.set(docPath, { bytes: doc.content, key: doc.key })
    this.cache.set(changesPath, { bytes: buildChangesZip(doc), key: doc.key })
    return { docPath, changesPath, fileName }
  }

  private outputLinks(
    doc: DocState,
    output: { docPath: string; changesPath: string; fileName: string },
  ): Record<string, unknown> {
    const filetype = outputExtension(doc.fileType)
    if (doc.fromForgotten) {
      // Changes of a forgotten file are not from the stored file: no changesurl, history {}.
      return { url: this.signedUrl(output.docPath, output.fileName, doc.key), history: {}, filetype }
    }
    return {
      url: this.signedUrl(output.docPath, output.fileName, doc.key),
      changesurl: this.signedUrl(output.changesPath, 'changes.zip', doc.key),
      history: this.history(doc),
      filetype,
    }
  }

  private history(doc: DocState): Record<string, unknown> {
    const changes: Record<string, unknown>[] = []
    let author: string | undefined
    for (const change of doc.changes) {
      if (change.userId === author) continue
      author = change.userId
      changes.push({
        ...(versionAtLeast(this.version, 8, 2) ? { documentSha256: doc.sourceSha256 } : {}),
        created: formatDateTime(change.time),
        user: { id: change.userId, name: change.userName },
      })
    }
    return { serverVersion: this.version, changes }
  }

  private signedUrl(storagePath: string, fileName: string, key: string): string {
    const uri = `${CACHE_PREFIX}${storagePath}/${fileName}`
    const expires = Math.ceil(this.now() / 1000) + this.urlExpiresSeconds
    const md5 = secureLinkMd5(expires, uri)
    let url = `${this.publicUrl}${uri}?md5=${md5}&expires=${expires}`
    if (versionAtLeast(this.version, 8, 1)) url += `&shardkey=${encodeURIComponent(key)}`
    return `${url}&filename=${fileName}`
  }

  // ---------------------------------------------------------------- callbacks out (A2, A5, A7)

  private async postCallback(
    callbackUrl: string,
    fields: Record<string, unknown>,
    attempt: number,
    fixLength: boolean,
  ): Promise<SentCallback> {
    let ordered = orderFields(fields)
    let headerToken: string | undefined
    if (this.secret !== undefined) {
      const bodyToken = await this.signJwt({ ...ordered }, this.secret)
      headerToken = await this.signJwt({ payload: { ...ordered } }, this.secret)
      if (fixLength && headerToken.length >= HEADER_TOKEN_LIMIT) {
        // checkAndFixAuthorizationLength: trims the header token and the plain body alike.
        ordered = orderFields({ ...ordered, changesurl: undefined, history: {} })
        headerToken = await this.signJwt({ payload: { ...ordered } }, this.secret)
      }
      ordered = orderFields({ ...ordered, token: bodyToken })
    }
    return this.deliver(callbackUrl, ordered, headerToken, attempt, this.secret === undefined)
  }

  async sendCallback(
    callbackUrl: string,
    body: Record<string, unknown>,
    options: ForgedCallbackOptions = {},
  ): Promise<SentCallback> {
    const sign = options.sign ?? this.secret !== undefined
    const secret = sign === 'wrong-secret' ? randomBytes(16).toString('hex') : this.secret
    let headerToken: string | undefined
    let sendBody: Record<string, unknown> = { ...body }
    if (sign !== false) {
      if (secret === undefined) throw new Error('sendCallback: sign needs a jwtSecret')
      const claims = { ...body }
      delete claims.token
      sendBody = { ...claims, token: await this.signJwt({ ...claims }, secret) }
      if (options.header ?? true) headerToken = await this.signJwt({ payload: claims }, secret)
    }
    return this.deliver(callbackUrl, sendBody, headerToken, 1, this.secret === undefined)
  }

  private async deliver(
    callbackUrl: string,
    body: Record<string, unknown>,
    headerToken: string | undefined,
    attempt: number,
    filterPrivate: boolean,
  ): Promise<SentCallback> {
    const raw = JSON.stringify(body)
    const payload = Buffer.from(raw, 'utf8')
    const headers: Record<string, string> = {
      Accept: AXIOS_ACCEPT,
      'Content-Type': 'application/json',
      ...DEFAULT_REQUEST_HEADERS,
    }
    if (headerToken !== undefined) headers[this.jwtHeader] = `Bearer ${headerToken}`
    headers['Content-Length'] = String(payload.length)
    headers['Accept-Encoding'] = AXIOS_ACCEPT_ENCODING
    const sent: SentCallback = {
      url: callbackUrl,
      status: typeof body.status === 'number' ? body.status : -1,
      attempt,
      body,
      raw,
      headers,
      httpStatus: 0,
      reply: '',
      ok: false,
      sentAt: Date.now(),
    }
    try {
      const target = new URL(callbackUrl)
      // The inbox switch puts callbacks "in a JWT", which skips the private-IP guard (§0).
      if (filterPrivate) this.checkPrivate(target)
      const reply = await this.sendHttp(target, {
        method: 'POST',
        headers,
        body: payload,
        timeoutMs: this.callbackTimeoutMs,
        maxBytes: Number.MAX_SAFE_INTEGER,
      })
      sent.httpStatus = reply.status
      sent.reply = reply.body.toString('utf8')
      sent.ok = (reply.status === 200 || reply.status === 204) && replyMeansSuccess(sent.reply)
    } catch (err) {
      sent.reply = err instanceof Error ? err.message : String(err)
    }
    this.callbacks.push(sent)
    for (const waiter of [...this.waiters]) waiter(sent)
    return sent
  }

  private sendHttp(
    target: URL,
    init: {
      method: string
      headers: OutgoingHttpHeaders
      body?: Buffer
      timeoutMs: number
      maxBytes: number
    },
  ): Promise<HttpReply> {
    return new Promise((resolve, reject) => {
      let settled = false
      const fail = (err: unknown): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        reject(err instanceof TransportError ? err : new TransportError(errorCode(err), String(err)))
      }
      const onResponse = (res: IncomingMessage): void => {
        const declared = Number(res.headers['content-length'])
        if (Number.isFinite(declared) && declared > init.maxBytes) {
          res.destroy()
          fail(new TransportError('EMSGSIZE', `EMSGSIZE: Error response: content-length:${declared}`))
          return
        }
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > init.maxBytes) {
            res.destroy()
            fail(new TransportError('EMSGSIZE', 'EMSGSIZE: the body exceeds the download limit'))
            return
          }
          chunks.push(chunk)
        })
        res.on('error', fail)
        res.on('end', () => {
          if (settled) return
          try {
            const body = decodeBody(Buffer.concat(chunks), res.headers['content-encoding'])
            if (body.length > init.maxBytes) {
              throw new TransportError('EMSGSIZE', 'EMSGSIZE: the body exceeds the download limit')
            }
            settled = true
            clearTimeout(timer)
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body })
          } catch (err) {
            fail(err)
          }
        })
      }
      const options = { method: init.method, headers: init.headers }
      const req =
        target.protocol === 'https:'
          ? httpsRequest(target, { ...options, agent: this.httpsAgent }, onResponse)
          : httpRequest(target, { ...options, agent: this.httpAgent }, onResponse)
      const timer = setTimeout(() => {
        req.destroy(new TransportError('ETIMEDOUT', `timeout of ${init.timeoutMs}ms exceeded`))
      }, init.timeoutMs)
      req.on('error', fail)
      req.end(init.body)
    })
  }

  private async signJwt(claims: Record<string, unknown>, secret: string): Promise<string> {
    const iat = Math.floor(this.now() / 1000)
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(iat)
      .setExpirationTime(iat + TOKEN_LIFETIME_S)
      .sign(new TextEncoder().encode(secret))
  }

  private async verifyJwt(
    token: string,
  ): Promise<
    { kind: 'ok'; claims: Record<string, unknown> } | { kind: 'expired' } | { kind: 'invalid'; reason: string }
  > {
    if (this.secret === undefined) return { kind: 'invalid', reason: 'no secret' }
    try {
      const { payload } = await jwtVerify(token, new TextEncoder().encode(this.secret), {
        algorithms: ['HS256', 'HS384', 'HS512'],
        clockTolerance: TOKEN_CLOCK_TOLERANCE_S,
        currentDate: new Date(this.now()),
      })
      return { kind: 'ok', claims: { ...payload } }
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return { kind: 'expired' }
      return { kind: 'invalid', reason: err instanceof Error ? err.message : String(err) }
    }
  }

  // ---------------------------------------------------------------- HTTP server

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid')
    const method = req.method ?? 'GET'
    const body = await readBody(req)
    const reply = (status: number, headers: OutgoingHttpHeaders, content: string | Uint8Array): void => {
      this.requests.push({ method, path: url.pathname, status })
      res.writeHead(status, headers)
      res.end(method === 'HEAD' ? undefined : content)
    }
    const path = url.pathname
    if (path === '/command' || path.toLowerCase() === '/coauthoring/commandservice.ashx') {
      const answer = await this.handleCommand(req, url, body)
      reply(200, { 'Content-Type': 'application/json' }, answer)
      return
    }
    if (path === '/converter' || path.toLowerCase() === '/convertservice.ashx') {
      const answer = await this.handleConverter(req, body)
      const json = (req.headers.accept ?? '').includes('application/json')
      reply(
        200,
        { 'Content-Type': json ? 'application/json' : 'text/xml' },
        json ? JSON.stringify(answer) : conversionXml(answer),
      )
      return
    }
    if (path.startsWith(CACHE_PREFIX) && (method === 'GET' || method === 'HEAD')) {
      await this.serveCache(url, method, res, reply)
      return
    }
    if (path === '/healthcheck' && method === 'GET') {
      reply(200, { 'Content-Type': 'text/plain' }, 'true')
      return
    }
    reply(404, { 'Content-Type': 'text/plain' }, 'Not Found')
  }

  private async serveCache(
    url: URL,
    method: string,
    res: ServerResponse,
    reply: (status: number, headers: OutgoingHttpHeaders, content: string | Uint8Array) => void,
  ): Promise<void> {
    let path: string
    try {
      path = decodeURIComponent(url.pathname)
    } catch {
      reply(400, { 'Content-Type': 'text/plain' }, 'Bad Request')
      return
    }
    // nginx secure_link: md5 over "$secure_link_expires$uri$secure_link_secret".
    const md5 = url.searchParams.get('md5')
    const expiresText = url.searchParams.get('expires') ?? ''
    const expires = Number(expiresText)
    if (!md5 || !/^\d+$/.test(expiresText) || md5.replace(/=+$/, '') !== secureLinkMd5(expires, path)) {
      reply(403, { 'Content-Type': 'text/html' }, '403 Forbidden')
      return
    }
    if (expires < Math.floor(this.now() / 1000)) {
      reply(410, { 'Content-Type': 'text/html' }, '410 Gone')
      return
    }
    // nginx aliases everything up to the last '/'; the last segment is only the friendly name.
    const storagePath = path.slice(CACHE_PREFIX.length, path.lastIndexOf('/'))
    const entry = this.cache.get(storagePath)
    if (!entry) {
      reply(404, { 'Content-Type': 'text/html' }, '404 Not Found')
      return
    }
    const mode = this.serveModes.get(entry.key) ?? 'ok'
    if (mode === 'http500') {
      reply(500, { 'Content-Type': 'text/html' }, '500 Internal Server Error')
      return
    }
    if (mode === 'redirect-elsewhere') {
      reply(302, { Location: `${this.elsewhereUrl}/stolen${url.pathname}` }, '')
      return
    }
    const ext = storagePath.slice(storagePath.lastIndexOf('.') + 1)
    const headers: OutgoingHttpHeaders = {
      'Content-Type': CONTENT_TYPES[ext] ?? 'application/octet-stream',
      'Content-Length': entry.bytes.length,
      'Content-Disposition': `attachment; filename*=UTF-8''${url.searchParams.get('filename') ?? ''}`,
      'Accept-Ranges': 'bytes',
    }
    if (mode === 'ok' || method === 'HEAD') {
      reply(200, headers, entry.bytes)
      return
    }
    // slow: headers and half the body now, the rest after slowServeMs.
    this.requests.push({ method, path: url.pathname, status: 200 })
    res.writeHead(200, headers)
    const half = Math.floor(entry.bytes.length / 2)
    res.write(entry.bytes.subarray(0, half))
    await this.wait(this.slowServeMs, this.shutdown.signal)
    res.end(entry.bytes.subarray(half))
  }

  // ---------------------------------------------------------------- conversion service (A9)

  private async handleConverter(req: IncomingMessage, body: Buffer): Promise<Record<string, unknown>> {
    let received: unknown
    try {
      received = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined
    } catch {
      received = undefined
    }
    let params: Record<string, unknown> = isRecord(received) ? { ...received } : {}
    const record = (answer: Record<string, unknown>): Record<string, unknown> => {
      this.conversions.push({
        ...(typeof params.key === 'string' ? { key: params.key } : {}),
        ...(typeof params.filetype === 'string' ? { filetype: params.filetype } : {}),
        ...(typeof params.outputtype === 'string' ? { outputtype: params.outputtype } : {}),
        async: params.async === true,
        error: typeof answer.error === 'number' ? answer.error : 0,
        endConvert: answer.endConvert === true,
      })
      return answer
    }
    if (this.secret !== undefined) {
      let token: unknown = params.token
      if (!token) {
        const header = headerValue(req.headers, this.jwtHeader)
        token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined
      }
      const verified = typeof token === 'string' ? await this.verifyJwt(token) : undefined
      if (verified?.kind !== 'ok') return record({ error: -8 })
      // tokenRequiredParams: only the claims count (flat, or under payload).
      params = { ...verified.claims }
      if (isRecord(verified.claims.payload)) Object.assign(params, verified.claims.payload)
    }
    const { key, url, filetype, outputtype } = params
    if (
      typeof key !== 'string' ||
      !KEY_PATTERN.test(key) ||
      typeof url !== 'string' ||
      !isHttpUrl(url) ||
      typeof filetype !== 'string' ||
      typeof outputtype !== 'string'
    ) {
      return record({ error: -7 })
    }
    let job = this.conversionJobs.get(key)
    if (!job) {
      const started = { done: false, error: 0, outputtype }
      job = started
      this.conversionJobs.set(key, started)
      const thumbnail = isRecord(params.thumbnail) ? params.thumbnail : undefined
      this.track(this.runConversion(key, started, { url, filetype, outputtype, ...(thumbnail ? { thumbnail } : {}) }))
    }
    if (params.async !== true) {
      while (!job.done) await this.wait(20, this.shutdown.signal)
    }
    if (!job.done) return record({ endConvert: false, percent: 0 })
    if (job.error !== 0 || job.path === undefined) return record({ error: job.error || -1 })
    const fileName = job.path.slice(job.path.lastIndexOf('/') + 1)
    return record({
      endConvert: true,
      fileType: job.outputtype,
      fileUrl: this.signedUrl(job.path.slice(0, job.path.lastIndexOf('/')), fileName, key),
      percent: 100,
    })
  }

  private async runConversion(
    key: string,
    job: { done: boolean; error: number; path?: string },
    request: { url: string; filetype: string; outputtype: string; thumbnail?: Record<string, unknown> },
  ): Promise<void> {
    try {
      let bytes: Uint8Array
      try {
        bytes = await this.downloadDocument(request.url, this.secret !== undefined)
      } catch {
        job.error = -4
        return
      }
      if (!this.convertEngine) {
        job.error = -1
        return
      }
      try {
        const output = await this.convertEngine({
          bytes,
          filetype: request.filetype,
          outputtype: request.outputtype,
          ...(request.thumbnail ? { thumbnail: request.thumbnail } : {}),
        })
        const storagePath = `conv/${key}/output.${request.outputtype}`
        this.cache.set(storagePath, { bytes: output, key })
        job.path = `${storagePath}/output.${request.outputtype}`
      } catch {
        job.error = -3
      }
    } finally {
      job.done = true
    }
  }

  // ---------------------------------------------------------------- command service (A8)

  private async handleCommand(req: IncomingMessage, url: URL, body: Buffer): Promise<string> {
    let received: unknown
    try {
      received = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined
    } catch {
      received = undefined
    }
    let params: Record<string, unknown> = isRecord(received) ? { ...received } : Object.fromEntries(url.searchParams)
    let authError = CMD_OK
    if (this.secret !== undefined) {
      const bodyToken = params.token
      let token: unknown = bodyToken
      if (!bodyToken) {
        const header = headerValue(req.headers, this.jwtHeader)
        token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined
      }
      const verified = typeof token === 'string' ? await this.verifyJwt(token) : undefined
      if (verified?.kind === 'ok') {
        // tokenRequiredParams: only the claims count (flat, or under payload / query).
        const claims = verified.claims
        params = { ...claims }
        if (isRecord(claims.payload)) Object.assign(params, claims.payload)
        if (isRecord(claims.query)) Object.assign(params, claims.query)
      } else {
        authError = verified?.kind === 'expired' ? CMD_TOKEN_EXPIRED : CMD_TOKEN
      }
    }
    const c = typeof params.c === 'string' ? params.c : ''
    const output: Record<string, unknown> = {
      key: params.key,
      error: authError,
      version: undefined,
      users: undefined,
    }
    const keyOptional = ['version', 'license', 'getForgottenList'].includes(c)
    if (authError === CMD_OK && !keyOptional && typeof params.key !== 'string') output.error = CMD_KEY
    if (output.error === CMD_OK) await this.runCommand(c, params, output)
    const listed = typeof params.users === 'string' ? safeJson(params.users) : params.users
    this.commands.push({
      c,
      key: typeof params.key === 'string' ? params.key : undefined,
      body: received ?? Object.fromEntries(url.searchParams),
      ...(Array.isArray(listed) ? { users: listed.map(String) } : {}),
      params,
      error: typeof output.error === 'number' ? output.error : -1,
    })
    return JSON.stringify(output)
  }

  private async runCommand(c: string, params: Record<string, unknown>, output: Record<string, unknown>): Promise<void> {
    const key = typeof params.key === 'string' ? params.key : ''
    const doc = this.docs.get(key)
    switch (c) {
      case 'info': {
        const known = this.knownKeys.get(key)
        if (!known && !doc) {
          output.error = CMD_KEY
          return
        }
        let callbackUrl = known?.callbackUrl
        if (params.callback !== undefined) {
          if (typeof params.callback !== 'string' || !isHttpUrl(params.callback)) {
            output.error = CMD_CALLBACK
            return
          }
          callbackUrl = params.callback
          this.knownKeys.set(key, { callbackUrl })
        }
        if (!callbackUrl) {
          output.error = CMD_CALLBACK
          return
        }
        const sent = await this.track(this.sendStatus(key, callbackUrl, undefined, params.userdata))
        const users = sent.body.users
        output.users = Array.isArray(users) ? users : []
        return
      }
      case 'forcesave': {
        if (!doc) {
          output.error = this.knownKeys.has(key) ? CMD_NOT_MODIFIED : CMD_KEY
          return
        }
        const lastAuthor = doc.changes.at(-1)?.userId
        const callbackUrl = lastAuthor === undefined ? undefined : doc.userCallbacks.get(lastAuthor)
        if (!callbackUrl || !this.canForcesave(doc)) {
          output.error = CMD_NOT_MODIFIED
          return
        }
        // The answer goes first; status 6 follows from the converter queue.
        const userdata = params.userdata
        this.track(
          (async () => {
            await sleepUnlessAborted(5, this.shutdown.signal)
            // Sent only while the session is still open (task status Ok).
            const stillOpen = this.docs.get(doc.key) === doc && doc.phase === 'open'
            if (stillOpen && !this.shutdown.signal.aborted) {
              await this.forcesave(doc, 0, callbackUrl, undefined, userdata)
            }
          })(),
        ).catch(() => undefined)
        return
      }
      case 'drop': {
        if (!doc) return
        const listed = typeof params.users === 'string' ? safeJson(params.users) : params.users
        const targets = Array.isArray(listed) ? listed.map(String) : undefined
        for (const session of [...doc.connections]) {
          if (targets && !targets.includes(session.user.id)) continue
          session.warnings.push('drop')
          // A dropped connection closes with a reason, so the save delay applies.
          this.track(this.leave(session, false)).catch(() => undefined)
        }
        return
      }
      case 'meta': {
        if (!isRecord(params.meta)) {
          output.error = CMD_UNKNOWN
          return
        }
        if (doc && typeof params.meta.title === 'string') doc.title = params.meta.title
        return
      }
      case 'version': {
        output.version = /^\d+\.\d+\.\d+\.\d+$/.test(this.version) ? this.version : `${this.version}.1`
        return
      }
      case 'getForgotten': {
        const file = this.forgottenFiles.get(key)
        if (!file) {
          output.error = CMD_KEY
          return
        }
        const fileName = `output.${file.ext}`
        output.url = this.signedUrl(`forgotten/${key}/${fileName}`, fileName, key)
        return
      }
      case 'deleteForgotten': {
        const file = this.forgottenFiles.get(key)
        if (!file) {
          output.error = CMD_KEY
          return
        }
        this.forgottenFiles.delete(key)
        this.cache.delete(`forgotten/${key}/output.${file.ext}`)
        return
      }
      case 'getForgottenList': {
        output.keys = [...this.forgottenFiles.keys()]
        return
      }
      default:
        output.error = CMD_UNKNOWN
    }
  }
}

// -------------------------------------------------------------------- helpers

function listenOnFreePort(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : 0)
    })
  })
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}

/** The conversion service's default XML answer. */
function conversionXml(answer: Record<string, unknown>): string {
  const head = '<?xml version="1.0" encoding="utf-8"?><FileResult>'
  if (typeof answer.error === 'number') return `${head}<Error>${answer.error}</Error></FileResult>`
  const escape = (value: unknown) =>
    String(value ?? '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
  return (
    `${head}<FileUrl>${escape(answer.fileUrl)}</FileUrl><FileType>${escape(answer.fileType)}</FileType>` +
    `<Percent>${escape(answer.percent)}</Percent><EndConvert>${answer.endConvert === true ? 'True' : 'False'}</EndConvert></FileResult>`
  )
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve()
      return
    }
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done)
  })
}

function orderFields(fields: Record<string, unknown>): Record<string, unknown> {
  const ordered: Record<string, unknown> = {}
  for (const name of FIELD_ORDER) {
    if (fields[name] !== undefined) ordered[name] = fields[name]
  }
  return ordered
}

/**
 * A5: axios JSON-parses what it can, DS re-serialises and parses again, then tests
 * `NoError == data.error` with loose equality ("0", false, "" and [] pass; null does not).
 */
function replyMeansSuccess(text: string): boolean {
  let data: unknown = text
  try {
    data = JSON.parse(text)
  } catch {
    // axios keeps an unparsable body as a string
  }
  if (!isRecord(data)) return false
  const error = data.error
  if (error === null || error === undefined || typeof error === 'symbol') return false
  return Number(error) === 0
}

function decodeBody(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
    case 'compress':
    case 'x-compress':
      return gunzipSync(body)
    case 'deflate':
      return inflateSync(body)
    case 'br':
      return brotliDecompressSync(body)
    default:
      return body
  }
}

function errorCode(err: unknown): string {
  if (isRecord(err) && typeof err.code === 'string') return err.code
  return 'EUNKNOWN'
}

function secureLinkMd5(expires: number, uri: string): string {
  return createHash('md5').update(`${expires}${uri}${STORAGE_SECRET}`).digest('base64url')
}

function buildChangesZip(doc: DocState): Uint8Array {
  // One changesN.json per run of one author, as x2t splits them.
  const files: Record<string, Uint8Array> = {}
  let index = -1
  let author: string | undefined
  let run: Record<string, unknown>[] = []
  const flush = (): void => {
    if (index >= 0) files[`changes${index}.json`] = strToU8(JSON.stringify(run))
  }
  for (const change of doc.changes) {
    if (change.userId !== author) {
      flush()
      index++
      author = change.userId
      run = []
    }
    run.push({
      docid: doc.key,
      change: `"${Buffer.from(`edit by ${change.userId}`).toString('base64')}"`,
      time: change.time,
      user: change.userId,
      useridoriginal: change.userId,
    })
  }
  flush()
  if (index < 0) files['changes0.json'] = strToU8('[]')
  return zipSync(files)
}

function editorIds(doc: DocState): string[] {
  const ids = new Set<string>()
  for (const session of doc.connections) {
    if (session.mode === 'edit' && session.connected) ids.add(session.user.id)
  }
  return [...ids]
}

function outputExtension(fileType: string): string {
  return OOXML_FOR_LEGACY[fileType] ?? fileType
}

function formatDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
}

function versionAtLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split('.').map(Number)
  return a > major || (a === major && b >= minor)
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (isIP(host) === 4) {
    const [a = 0, b = 0] = host.split('.').map(Number)
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    )
  }
  if (isIP(host) === 6) {
    return host === '::1' || host === '::' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host)
  }
  return false
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

function toEditorUser(user: { id?: string | number; name?: string } | undefined): EditorUser | undefined {
  if (!user) return undefined
  return { id: user.id === undefined ? '' : String(user.id), name: user.name ?? 'Anonymous' }
}
