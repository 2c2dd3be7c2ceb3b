/**
 * The WOPI client's discovery document, held in memory: a cache of a remote document, so
 * every instance keeps its own copy. It is fetched from FOLIO_WOPI_DISCOVERY_URL on first
 * use, refreshed in the background once it is an hour old, and refreshed at once (at most
 * once a minute) when a proof fails to verify, since the client may have rotated its keys.
 * This module also decides whether a request's proof headers are acceptable.
 */
import type { AppContext } from '../../app/context.js'
import { errorMessage } from '../../core/ids.js'
import type { IncomingHttpHeaders } from 'node:http'
import { wopiSrcOf } from './access-token.js'
import { readProofHeaders } from './headers.js'
import {
  buildProofUrl,
  parseDiscovery,
  verifyProof,
  wopiActionUrl,
  type Discovery,
  type ProofFailure,
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

/** The in-memory discovery of one configured WOPI client. */
export class DiscoveryCache {
  readonly url: string
  readonly #ctx: AppContext
  #discovery: Discovery | undefined
  #fetchedAt = 0
  #lastAttemptAt = Number.NEGATIVE_INFINITY
  #inFlight: Promise<Discovery | undefined> | undefined

  constructor(ctx: AppContext, url: string) {
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
    const response = await fetch(this.url, {
      redirect: 'error',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { Accept: 'text/xml, application/xml' },
    })
    if (response.status !== 200) {
      await response.body?.cancel()
      throw new Error(`discovery answered HTTP ${response.status}`)
    }
    const declared = Number(response.headers.get('content-length') ?? '0')
    if (declared > MAX_DISCOVERY_BYTES) {
      await response.body?.cancel()
      throw new Error('discovery document is too large')
    }
    const text = await response.text()
    if (text.length > MAX_DISCOVERY_BYTES) throw new Error('discovery document is too large')
    return parseDiscovery(text)
  }
}

const caches = new WeakMap<AppContext, DiscoveryCache>()

/**
 * The discovery cache shared by everything built on `ctx` (the WOPI host and the portal's
 * token endpoint), or undefined when no WOPI client is configured.
 */
export function discoveryFor(ctx: AppContext): DiscoveryCache | undefined {
  const url = ctx.config.wopi.discoveryUrl
  if (url === undefined) return undefined
  let cache = caches.get(ctx)
  if (cache === undefined) {
    cache = new DiscoveryCache(ctx, url)
    caches.set(ctx, cache)
  }
  return cache
}

export interface ProofRequest {
  /** The access token as the client sent it (decoded from the query). */
  accessToken: string
  fileId: string
  target: 'file' | 'contents'
  headers: IncomingHttpHeaders
}

/**
 * Checks the proof headers of a WOPI request (MS-WOPI "proof keys"; fact sheet B8, C10).
 * The signed URL is rebuilt from the WOPISrc Folio issued (internal URL + path), never from
 * the Host header. Without a configured WOPI client nothing is checked. A request without
 * X-WOPI-Proof, or one that arrives while no proof keys are known, passes unless
 * FOLIO_WOPI_PROOF_REQUIRED is set. A present proof must verify: a key mismatch first
 * refreshes discovery (at most once a minute) and tries again. Throws ProofRejectedError.
 */
export async function checkProof(ctx: AppContext, request: ProofRequest): Promise<void> {
  const cache = discoveryFor(ctx)
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
  // The client signs the WOPISrc it was given, so rebuild it exactly as it was issued.
  const url = buildProofUrl(wopiSrcOf(ctx, request.fileId), request.accessToken, request.target)
  const input = { accessToken: request.accessToken, url, ...headers, now: ctx.clock.now() }
  let check = verifyProof({ ...input, keys })
  if (!check.ok && check.reason === 'mismatch') {
    const fresh = await cache.refreshAfterFailure()
    if (fresh?.proofKey !== undefined && fresh.proofKey !== keys) {
      check = verifyProof({ ...input, keys: fresh.proofKey })
    }
  }
  if (!check.ok) throw new ProofRejectedError(check.reason)
  // The client signs with a key newer than ours: it rotated, so learn the new pair soon.
  if (check.matched === 'proofold-current') void cache.refreshAfterFailure()
}

/** The `edit` and `view` action URLs discovery offers for a file's extension (when any). */
export interface ActionUrls {
  edit?: string
  view?: string
}

/**
 * Fills discovery's urlsrc for a file's extension. Answers {} when no WOPI client is
 * configured, discovery cannot be fetched, or it has no such action for the extension.
 */
export async function actionUrlsFor(
  ctx: AppContext,
  extension: string,
  wopiSrc: string,
): Promise<ActionUrls> {
  const discovery = await discoveryFor(ctx)?.current()
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
