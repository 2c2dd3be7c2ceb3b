/**
 * Shared set-up for the WOPI end-to-end suites: a real Folio over HTTP, files created
 * through the portal API, WOPI access tokens from the portal's token endpoint, and a
 * small raw WOPI caller (the ONLYOFFICE Docs simulator covers the editor's own traffic).
 */
import type { Clock } from '../../src/ports/clock.js'
import type { Logger } from 'pino'
import type { TestMetadata } from '../support/postgres.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'
import { countStoredBlobs } from '../support/stored-blobs.js'

export interface WopiHarness {
  server: TestServer
  portalToken: string
  /** Uploads a file through the portal; returns its id. */
  createFile(title: string, bytes?: Uint8Array | string): Promise<string>
  /** A WOPI access token from the portal's token endpoint. */
  tokenFor(fileId: string, mode?: 'edit' | 'view'): Promise<string>
  /** One WOPI request to /wopi/files/{id}[/contents] with the token in the query. */
  wopi(fileId: string, options: WopiRequest): Promise<ApiReply>
  /** Restarts Folio on the same data folder (a new port). */
  restart(): Promise<void>
}

export interface WopiRequest {
  method?: 'GET' | 'POST'
  contents?: boolean
  token?: string
  override?: string
  headers?: Record<string, string>
  body?: BodyInit
}

/** Starts Folio and signs in as the admin. */
export async function startWopiHarness(
  settings: Record<string, string> = {},
  options: { clock?: Clock; logger?: Logger; metadata?: TestMetadata } = {},
): Promise<WopiHarness> {
  let server = await startTestServer(settings, options)
  let portalToken = await signIn(server.url)
  const harness: WopiHarness = {
    get server() {
      return server
    },
    get portalToken() {
      return portalToken
    },
    async createFile(title, bytes = '') {
      const reply = await call(server.url, 'POST', `/api/2.0/files/@my/upload?title=${encodeURIComponent(title)}`, {
        token: portalToken,
        raw: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
        headers: { 'Content-Type': 'application/octet-stream' },
      })
      if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${reply.text}`)
      return reply.json.response.id
    },
    async tokenFor(fileId, mode = 'edit') {
      const reply = await call(server.url, 'POST', `/api/2.0/files/file/${fileId}/wopi?mode=${mode}`, {
        token: portalToken,
      })
      if (reply.status !== 200) throw new Error(`token failed: ${reply.status} ${reply.text}`)
      return reply.json.response.accessToken
    },
    async wopi(fileId, request) {
      const token = request.token ?? (await harness.tokenFor(fileId))
      const path = `/wopi/files/${fileId}${request.contents ? '/contents' : ''}`
      const headers: Record<string, string> = { ...(request.headers ?? {}) }
      if (request.override !== undefined) headers['X-WOPI-Override'] = request.override
      return call(server.url, request.method ?? 'POST', `${path}?access_token=${encodeURIComponent(token)}`, {
        headers,
        ...(request.body !== undefined ? { raw: request.body } : {}),
      })
    },
    async restart() {
      server = await server.restart()
      portalToken = await signIn(server.url)
    },
  }
  return harness
}

/** Lock-family request headers (LOCK, UNLOCK, REFRESH_LOCK) as ONLYOFFICE Docs sends them. */
export function lockHeaders(lockId: string): Record<string, string> {
  return { 'X-WOPI-Lock': lockId, 'Content-Type': 'application/x-www-form-urlencoded' }
}

/** Downloads the current content through the portal. */
export async function contentOf(harness: WopiHarness, fileId: string): Promise<string> {
  const reply = await call(harness.server.url, 'GET', `/api/2.0/files/file/${fileId}/download`, {
    token: harness.portalToken,
  })
  return reply.text
}

/** The file's record from the portal (version, title, pureContentLength...). */
export async function recordOf(harness: WopiHarness, fileId: string) {
  const reply = await call(harness.server.url, 'GET', `/api/2.0/files/file/${fileId}`, {
    token: harness.portalToken,
  })
  return reply.json.response
}

/** The file's versions, newest first, from the portal. */
export async function versionsOf(harness: WopiHarness, fileId: string) {
  const reply = await call(harness.server.url, 'GET', `/api/2.0/files/file/${fileId}/history`, {
    token: harness.portalToken,
  })
  return reply.json.response
}

/** How many blobs the store holds plus unfinished writes (see countStoredBlobs). */
export function countBlobFiles(server: TestServer): Promise<number> {
  return countStoredBlobs(server)
}

/** Polls until `check` holds (cleanup after an aborted upload runs after the socket dies). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
