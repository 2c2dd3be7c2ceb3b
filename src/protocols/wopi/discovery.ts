/**
 * The WOPI client's discovery document, held in memory: a cache of a remote document, so
 * every instance keeps its own copy. That is safe with several instances: the copy only
 * mirrors the WOPI client's published document, each instance refreshes its own, and no
 * decision of one instance depends on another's copy. It is fetched from
 * FOLIO_WOPI_DISCOVERY_URL on first use, refreshed in the background once it is an hour
 * old, and refreshed at once (at most once a minute) when a proof fails to verify, since
 * the client may have rotated its keys.
 * This module also decides whether a request's proof headers are acceptable.
 */
import type { Config } from '../../config/load.js'
import type { ActionUrls, Clock, Logger, WopiActions } from '../../app/index.js'
import { errorMessage } from '../../core/ids.js'
import type { IncomingHttpHeaders } from 'node:http'
import type { OutboundClient } from '../http/outbound.js'
import { readProofHeaders } from './headers.js'
import {
  parseDiscovery,
  verifyProof,
  wopiActionUrl,
  type Discovery,
  type ProofCheck,
  type ProofFailure,
  type ProofKeys,
} from './proof-keys.js'

/** A discovery older than this is fetched again in the background. */
const REFRESH_AFTER_MS = 60 * 60 * 1000
/** Fetches triggered by failures (or retried after an error) are spaced at least this far. */
const MIN_REFETCH_GAP_MS = 60 * 1000
const FETCH_TIMEOUT_MS = 10_000
const MAX_DISCOVERY_BYTES = 4 * 1024 * 1024

/** A proof that failed to verify (or is required and missing): WOPI says 500. */
export class ProofRejectedError extends Error {
  readonly reason: ProofFailure | 'no-keys'
  constructor(reason: ProofFailure | 'no-keys') {
    super(`WOPI proof rejected: ${reason}`)
    this.name = 'ProofRejectedError'
    this.reason = reason
  }
}

/** What the discovery cache needs around it. */
export interface DiscoverySurroundings {
  config: Config
  clock: Clock
  logger: Logger
  /** The process's outbound HTTP client. */
  client: OutboundClient
}

/** The in-memory discovery of one configured WOPI client. */
export class DiscoveryCache {
  readonly url: string
  readonly #ctx: DiscoverySurroundings
  #discovery: Discovery | undefined
  #fetchedAt = 0
  #lastAttemptAt = Number.NEGATIVE_INFINITY
  #inFlight: Promise<Discovery | undefined> | undefined

  constructor(ctx: DiscoverySurroundings, url: string) {
    this.#ctx = ctx
    this.url = url
  }

  /**
   * The discovery to use now. The first call waits for the fetch; later calls answer from
   * memory and start a background refresh once the copy is an hour old. Undefined while
   * no fetch has ever succeeded (a failed fetch is retried at most once a minute).
   */
  async current(): Promise<Discovery | undefined> {
    const now = this.#ctx.clock.now()
    const mayFetch = now - this.#lastAttemptAt >= MIN_REFETCH_GAP_MS
    if (this.#discovery === undefined) return mayFetch ? this.#refresh() : this.#inFlight
    if (now - this.#fetchedAt >= REFRESH_AFTER_MS && mayFetch) void this.#refresh()
    return this.#discovery
  }

  /** Fetches again unless a fetch started less than a minute ago; answers the newest copy. */
  async refreshAfterFailure(): Promise<Discovery | undefined> {
    if (this.#ctx.clock.now() - this.#lastAttemptAt < MIN_REFETCH_GAP_MS) {
      return this.#inFlight ?? this.#discovery
    }
    return this.#refresh()
  }

  #refresh(): Promise<Discovery | undefined> {
    if (this.#inFlight) return this.#inFlight
    this.#lastAttemptAt = this.#ctx.clock.now()
    const attempt = this.#fetch()
      .then((discovery) => {
        this.#discovery = discovery
        this.#fetchedAt = this.#ctx.clock.now()
        return discovery
      })
      .catch((error: unknown) => {
        const facts = { err: errorMessage(error), url: this.url }
        this.#ctx.logger.warn(facts, 'WOPI discovery fetch failed')
        return this.#discovery
      })
      .finally(() => {
        this.#inFlight = undefined
      })
    this.#inFlight = attempt
    return attempt
  }

  async #fetch(): Promise<Discovery> {
    // A redirect is not followed: it answers 3xx, which is refused like any other status.
    const response = await this.#ctx.client.request(this.url, {
      method: 'GET',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { Accept: 'text/xml, application/xml' },
    })
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined)
      throw new Error(`discovery answered HTTP ${response.statusCode}`)
    }
    const header = response.headers['content-length']
    const declared = Number((Array.isArray(header) ? header[0] : header) ?? '0')
    if (declared > MAX_DISCOVERY_BYTES) {
      await response.body.dump().catch(() => undefined)
      throw new Error('discovery document is too large')
    }
    const text = await response.body.text()
    if (text.length > MAX_DISCOVERY_BYTES) throw new Error('discovery document is too large')
    return parseDiscovery(text)
  }
}

export interface ProofRequest {
  /** The access token as the client sent it (decoded from the query). */
  accessToken: string
  /**
   * The request URL as the client requested it, each way Folio may have been reached
   * (see requestUrlsForProof); the proof must verify against one of them.
   */
  urls: readonly string[]
  headers: IncomingHttpHeaders
}

/**
 * Checks the proof headers of a WOPI request (MS-WOPI proof keys:
 * https://learn.microsoft.com/microsoft-365/cloud-storage-partner-program/online/scenarios/proofkeys).
 * The client signs the full URL it requested, query string included as sent
 * (access_token_ttl and any other parameter, the token in its own encoding), so the proof
 * is checked against that URL, never against one rebuilt from the token. Without a
 * configured WOPI client nothing is checked. A request without X-WOPI-Proof, or one that
 * arrives while no proof keys are known, passes unless FOLIO_WOPI_PROOF_REQUIRED is set. A
 * present proof must verify: a key mismatch first refreshes discovery (at most once a
 * minute) and tries again. Throws ProofRejectedError.
 */
async function checkProof(
  ctx: DiscoverySurroundings,
  cache: DiscoveryCache | undefined,
  request: ProofRequest,
): Promise<void> {
  if (cache === undefined) return
  const required = ctx.config.wopi.proofRequired
  const headers = readProofHeaders(request.headers)
  if (headers.proof === undefined) {
    if (required) throw new ProofRejectedError('missing')
    return
  }
  let discovery = await cache.current()
  if (discovery?.proofKey === undefined) discovery = await cache.refreshAfterFailure()
  const keys = discovery?.proofKey
  if (keys === undefined) {
    if (required) throw new ProofRejectedError('no-keys')
    return
  }
  const now = ctx.clock.now()
  const verifyAny = (candidate: ProofKeys): ProofCheck => {
    let check: ProofCheck = { ok: false, reason: 'mismatch' }
    for (const url of request.urls) {
      check = verifyProof({ accessToken: request.accessToken, url, ...headers, now, keys: candidate })
      if (check.ok || check.reason !== 'mismatch') return check
    }
    return check
  }
  let check = verifyAny(keys)
  if (!check.ok && check.reason === 'mismatch') {
    const fresh = await cache.refreshAfterFailure()
    if (fresh?.proofKey !== undefined && fresh.proofKey !== keys) check = verifyAny(fresh.proofKey)
  }
  if (!check.ok) throw new ProofRejectedError(check.reason)
  // The client signs with a key newer than ours: it rotated, so learn the new pair soon.
  if (check.matched === 'proofold-current') void cache.refreshAfterFailure()
}

/**
 * Fills discovery's urlsrc for a file's extension. Answers {} when no WOPI client is
 * configured, discovery cannot be fetched, or it has no such action for the extension.
 */
async function actionUrlsFor(
  ctx: DiscoverySurroundings,
  cache: DiscoveryCache | undefined,
  extension: string,
  wopiSrc: string,
): Promise<ActionUrls> {
  const discovery = await cache?.current()
  if (discovery === undefined || extension === '') return {}
  const find = (name: string) => {
    const matching = discovery.actions.filter(
      (action) => action.name === name && action.ext.toLowerCase() === extension,
    )
    // Prefer the zone that matches how Folio is reached (external-https for an https URL).
    const scheme = ctx.config.publicUrl.startsWith('https:') ? 'https' : 'http'
    return matching.find((action) => action.zone?.endsWith(scheme)) ?? matching[0]
  }
  const urls: ActionUrls = {}
  const edit = find('edit')
  const view = find('view')
  if (edit) urls.edit = wopiActionUrl(edit.urlsrc, { wopiSrc })
  if (view) urls.view = wopiActionUrl(view.urlsrc, { wopiSrc })
  return urls
}

/** Checks the proof headers of WOPI requests (see checkProof). */
export interface ProofChecker {
  /** False when no WOPI client is configured: checkProof would accept everything. */
  readonly checksProofs: boolean
  checkProof(request: ProofRequest): Promise<void>
}

/** The configured WOPI client's discovery: proof checks for the host, action URLs for the app. */
export interface WopiDiscovery extends ProofChecker, WopiActions {
  /** Learns the client's keys ahead of its first request (failures are logged and retried). */
  warmUp(): void
}

/**
 * The one discovery cache of this process, made by the composition root and shared by the
 * WOPI host (proofs) and the application (action URLs). Without FOLIO_WOPI_DISCOVERY_URL
 * nothing is fetched: proofs are not checked and no action URLs are offered.
 */
export function createWopiDiscovery(ctx: DiscoverySurroundings): WopiDiscovery {
  const url = ctx.config.wopi.discoveryUrl
  const cache = url === undefined ? undefined : new DiscoveryCache(ctx, url)
  return {
    checksProofs: cache !== undefined,
    warmUp: () => void cache?.current(),
    checkProof: (request) => checkProof(ctx, cache, request),
    actionUrlsFor: (extension, wopiSrc) => actionUrlsFor(ctx, cache, extension, wopiSrc),
  }
}
