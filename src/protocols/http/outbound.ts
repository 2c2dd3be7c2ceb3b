import { Agent, type Dispatcher } from 'undici'

/**
 * The one HTTP client Folio uses for its own outbound calls (files from ONLYOFFICE Docs,
 * its command service, the WOPI client's discovery): an undici dispatcher made once by the
 * composition root and handed to each caller, so connections are pooled and every call is
 * made the same way. Redirects are never followed (undici's request does not), so a link
 * cannot bounce Folio to another host.
 */
export type OutboundClient = Dispatcher

/** Opens the outbound client; close it when the server stops. */
export function createOutboundClient(): Agent {
  return new Agent({ keepAliveTimeout: 10_000, connections: 64 })
}
