import type { Readable } from 'node:stream'
import { DomainError } from '../../core/errors.js'
import type { OutboundClient } from '../http/outbound.js'
import type { StreamedResponse } from '../http/streaming-get.js'
import { errorMessage } from '../../core/ids.js'

/** A response body on its way in, with its declared length when Docs sent one. */
export interface FetchedBody {
  body: Readable
  length?: number
}

/** Fetches one link; throws UPSTREAM_FAILED for anything but a 200. */
export type DocsFetcher = (url: string) => Promise<FetchedBody>

/** Limits of a fetch from Docs. */
export interface DocsFetchOptions {
  /** Whole request, headers and body, in ms. */
  timeoutMs: number
  /** The process's outbound HTTP client. */
  client: OutboundClient
}

/**
 * GETs a link on the Docs server (already checked by toInternalDocsUrl). Redirects are
 * not followed: a 3xx is a failure, so a cache link can never bounce Folio to another
 * host. The body is returned as a stream for the blob store to cap and hash; the
 * timeout covers it too.
 */
export function docsFetcher(options: DocsFetchOptions): DocsFetcher {
  return async (url) => {
    let response: StreamedResponse
    try {
      response = await options.client.get(url, options.timeoutMs)
    } catch (error) {
      throw new DomainError('UPSTREAM_FAILED', `could not reach ONLYOFFICE Docs: ${errorMessage(error)}`)
    }
    if (response.statusCode !== 200) {
      // Drained, so the connection can serve the next call.
      response.body.on('error', () => undefined).resume()
      const why = response.statusCode >= 300 && response.statusCode < 400 ? ' (redirects are not followed)' : ''
      throw new DomainError('UPSTREAM_FAILED', `ONLYOFFICE Docs answered ${response.statusCode}${why}`)
    }
    const declared = response.headers['content-length']
    const length = declared !== undefined && /^\d{1,15}$/.test(declared) ? Number(declared) : undefined
    return length === undefined ? { body: response.body } : { body: response.body, length }
  }
}
