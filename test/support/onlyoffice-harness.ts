import { createServer, type Server } from 'node:http'
import type { Logger } from 'pino'
import { createUser } from '../../src/app/accounts/accounts.js'
import type { UserRecord } from '../../src/ports/metadata-store.js'
import { editorConfigFor } from '../../src/protocols/onlyoffice/editor-config.js'
import {
  startDocsSimulator,
  type DocsSimulator,
  type DocsSimulatorOptions,
  type EditorConfig,
  type EditorSession,
  type SentCallback,
} from './docs-server-simulator.js'
import { freePort, startTestServer, type FakeClock, type TestServer } from './folio-server.js'
import { call, signIn, type ApiReply } from './portal-client.js'

/**
 * Folio and the ONLYOFFICE Docs simulator wired together over real HTTP, as an
 * installation would be: Folio knows Docs by a public address (used in cache links
 * and api.js) and an internal one (the simulator's real port), so every save link
 * is rewritten before it is fetched.
 */

export const JWT_SECRET = 'folio-docs-test-secret'

/** The address Docs "was reached at by the browser"; only reachable through the rewrite. */
export const DOCS_PUBLIC_URL = 'http://docs.public.test'

export interface HarnessOptions {
  /** JWT secret on both sides; null turns JWT off. Default JWT_SECRET. */
  jwtSecret?: string | null
  /** Header name on both sides. Default: each side's default (Authorization). */
  jwtHeader?: string
  /** Extra simulator settings (fast delays are set already). */
  sim?: DocsSimulatorOptions
  /** Extra Folio settings (environment names). */
  settings?: Record<string, string>
  /**
   * Folio's address as browsers know it, when it is not where Docs reaches Folio: Folio
   * then runs with this FOLIO_PUBLIC_URL and its real address as FOLIO_INTERNAL_URL.
   */
  folioPublicUrl?: string
  clock?: FakeClock
  /** Folio's logger (silent by default); tests that read the log pass their own. */
  logger?: Logger
  /** Folio's data folder (a fresh temporary one by default). */
  dataDir?: string
}

export interface Harness {
  folio: TestServer
  sim: DocsSimulator
  /** Portal token of the admin, who owns the files the tests upload. */
  token: string
  admin: UserRecord
  /** Calls the portal API as the admin. */
  api(method: string, path: string, body?: unknown): Promise<ApiReply>
  /** Uploads a file; returns its record from the files API. */
  upload(title: string, content: string | Uint8Array): Promise<FileJson>
  /** The file record from GET /files/file/:id. */
  file(fileId: string): Promise<FileJson>
  /** The editor config from openedit (`mode=view` for a viewer). */
  openConfig(fileId: string, mode?: 'edit' | 'view'): Promise<EditorConfig>
  /** Opens the file in a simulated editor as the admin. */
  openEditor(fileId: string): Promise<EditorSession>
  /** The config a second Folio user would get (built by the same builder; no sharing yet). */
  configFor(fileId: string, user: UserRecord): Promise<EditorConfig>
  createUser(userName: string): Promise<UserRecord>
  /** Current contents via the portal download. */
  contents(fileId: string): Promise<string>
  /** GET /files/file/:id/history, newest first. */
  versions(fileId: string): Promise<VersionJson[]>
  /** The callbackUrl in the admin's editor config. */
  callbackUrl(fileId: string): Promise<string>
  close(): Promise<void>
}

/** The parts of a file record the tests read. */
export interface FileJson {
  id: string
  title: string
  version: number
  pureContentLength: number
  /** Where the file downloads (with a query string) and where it opens in the editor. */
  viewUrl: string
  webUrl: string
  editing: { id: string; name: string }[]
  lastSaveError: { status: number; message: string; at: string } | null
}

export interface VersionJson {
  version: number
  source: string
  author: { id: string; displayName: string }
  size: number
  meta: Record<string, unknown>
  downloadUrl: string
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const secret = options.jwtSecret === undefined ? JWT_SECRET : options.jwtSecret
  const sim = await startDocsSimulator({
    saveDelayMs: 20,
    retryBaseMs: 100,
    downloadRetryMs: 50,
    publicUrl: DOCS_PUBLIC_URL,
    ...(secret === null ? {} : { jwtSecret: secret }),
    ...(options.jwtHeader === undefined ? {} : { jwtHeader: options.jwtHeader }),
    ...options.sim,
  })
  const port = await freePort()
  const reachableAt = `http://127.0.0.1:${port}`
  const settings: Record<string, string> = {
    FOLIO_PORT: String(port),
    FOLIO_PUBLIC_URL: options.folioPublicUrl ?? reachableAt,
    ...(options.folioPublicUrl === undefined ? {} : { FOLIO_INTERNAL_URL: reachableAt }),
    FOLIO_DOCS_URL: sim.publicUrl,
    FOLIO_DOCS_INTERNAL_URL: sim.url,
    ...(secret === null ? {} : { FOLIO_DOCS_JWT_SECRET: secret }),
    ...(options.jwtHeader === undefined ? {} : { FOLIO_DOCS_JWT_HEADER: options.jwtHeader }),
    ...options.settings,
  }
  let folio: TestServer
  try {
    folio = await startTestServer(settings, {
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    })
  } catch (error) {
    await sim.close()
    throw error
  }
  const token = await signIn(folio.url)
  const admin = await folio.ctx.store.users.findByUserName('admin')
  if (!admin) throw new Error('no admin user')

  const api = (method: string, path: string, body?: unknown) =>
    call(folio.url, method, `/api/2.0${path}`, {
      token,
      ...(body === undefined ? {} : { body }),
    })

  const expectOk = (reply: ApiReply, what: string) => {
    if (reply.status >= 300) throw new Error(`${what}: ${reply.status} ${reply.text}`)
    return reply.json.response
  }

  const harness: Harness = {
    folio,
    sim,
    token,
    admin,
    api,
    async upload(title, content) {
      const reply = await call(folio.url, 'POST', `/api/2.0/files/@my/upload?title=${encodeURIComponent(title)}`, {
        token,
        headers: { 'Content-Type': 'application/octet-stream' },
        raw: typeof content === 'string' ? content : Buffer.from(content),
      })
      return expectOk(reply, 'upload')
    },
    async file(fileId) {
      return expectOk(await api('GET', `/files/file/${fileId}`), 'file')
    },
    async openConfig(fileId, mode = 'edit') {
      const query = mode === 'view' ? '?mode=view' : ''
      return expectOk(await api('GET', `/files/file/${fileId}/openedit${query}`), 'openedit')
    },
    async openEditor(fileId) {
      return sim.openEditor(await harness.openConfig(fileId))
    },
    async configFor(fileId, user) {
      const file = await folio.ctx.store.files.findById(fileId)
      if (!file) throw new Error('no such file')
      const config = await editorConfigFor(
        folio.adapters,
        file,
        user,
        'edit',
        file.ownerId === user.id ? 'owner' : 'readwrite',
      )
      return JSON.parse(JSON.stringify(config))
    },
    createUser(userName) {
      return createUser(folio.ctx, {
        userName,
        password: `${userName}-password-1`,
        displayName: `${userName} (display)`,
      })
    },
    async contents(fileId) {
      const reply = await call(folio.url, 'GET', `/api/2.0/files/file/${fileId}/download`, { token })
      if (reply.status !== 200) throw new Error(`download: ${reply.status}`)
      return reply.text
    },
    async versions(fileId) {
      return expectOk(await api('GET', `/files/file/${fileId}/history`), 'history')
    },
    async callbackUrl(fileId) {
      const config = await harness.openConfig(fileId)
      const url = config.editorConfig?.callbackUrl
      if (!url) throw new Error('no callbackUrl')
      return url
    },
    async close() {
      await sim.close()
      await folio.dispose()
    },
  }
  return harness
}

/** The bytes of a string, for session.edit(). */
export function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text)
}

/** The last callback of a status, failing clearly when there is none. */
export function lastCallback(sim: DocsSimulator, status: number): SentCallback {
  const found = sim.callbacks.filter((c) => c.status === status).at(-1)
  if (!found) throw new Error(`no status ${status} callback was sent`)
  return found
}

/** Polls until `check` returns a value other than undefined (or times out). */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A tiny HTTP server that answers 200 to anything and records every hit. */
export interface Recorder {
  url: string
  hits: string[]
  close(): Promise<void>
}

export async function startRecorder(): Promise<Recorder> {
  const hits: string[] = []
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`)
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end('attacker bytes')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
