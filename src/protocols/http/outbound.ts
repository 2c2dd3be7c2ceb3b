import type { Dispatcher } from 'undici'
import { createStreamingGetter, type StreamedResponse } from './streaming-get.js'

/** What a call through the outbound client may set (undici's request options, no dispatcher). */
export type OutboundRequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> &
  Partial<Pick<Dispatcher.RequestOptions, 'method'>>

/**
 * The one HTTP client Folio uses for its own outbound calls (files from ONLYOFFICE Docs,
 * its command service, the WOPI client's discovery): one pool of connections made once by
 * the composition root and handed to each caller, so every call is made the same way.
 * Redirects are never followed (undici's request does not), so a link cannot bounce Folio
 * to another host. undici is loaded on the first call: a server with neither Docs nor a
 * WOPI client configured never loads it (about 20 MiB of memory). Big bodies (files from
 * Docs) come through `get`, on node:http, so an editor save never loads undici.
 */
export interface OutboundClient {
  request(url: string, options: OutboundRequestOptions): Promise<Dispatcher.ResponseData>
  /** GETs `url` for its body as a stream; `timeoutMs` covers headers and body. */
  get(url: string, timeoutMs: number): Promise<StreamedResponse>
  close(): Promise<void>
}

/** Opens the outbound client; close it when the server stops. */
export function createOutboundClient(): OutboundClient {
  let loaded: Promise<{ agent: Dispatcher; request: typeof import('undici').request }> | undefined
  const load = () => {
    loaded ??= import('undici').then(({ Agent, request }) => ({
      agent: new Agent({ keepAliveTimeout: 10_000, connections: 64 }),
      request,
    }))
    return loaded
  }
  const getter = createStreamingGetter()
  return {
    async request(url, options) {
      const { agent, request } = await load()
      return request(url, { ...options, dispatcher: agent })
    },
    get: (url, timeoutMs) => getter.get(url, timeoutMs),
    async close() {
      getter.close()
      if (loaded === undefined) return
      await (await loaded).agent.close()
    },
  }
}
