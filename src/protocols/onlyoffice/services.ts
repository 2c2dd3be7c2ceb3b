import type { Config } from '../../config/load.js'
import type { Clock } from '../../app/index.js'
import { DomainError } from '../../core/errors.js'
import type { OutboundClient } from '../http/outbound.js'
import { docsCommandClient, type DocsCommandClient } from './command-client.js'
import { docsFetcher, type DocsFetcher } from './docs-fetch.js'

/** Longest Folio waits for a file from Docs (Docs' own download timeout is 2 min too). */
export const DOCS_DOWNLOAD_TIMEOUT_MS = 120_000

/** Longest Folio waits for the command service. */
export const DOCS_COMMAND_TIMEOUT_MS = 10_000

type DocsSettings = NonNullable<Config['docs']>

/** The Docs settings, or NOT_SUPPORTED when FOLIO_DOCS_URL is not set. */
export function requireDocsSettings(ctx: { config: Config }): DocsSettings {
  const docs = ctx.config.docs
  if (!docs) throw new DomainError('NOT_SUPPORTED', 'ONLYOFFICE Docs is not configured (FOLIO_DOCS_URL)')
  return docs
}

/**
 * The command service client of this installation, made once by the composition root;
 * undefined when ONLYOFFICE Docs is not configured.
 */
export function commandClientFor(config: Config, clock: Clock, client: OutboundClient): DocsCommandClient | undefined {
  const docs = config.docs
  if (!docs) return undefined
  return docsCommandClient({
    internalUrl: docs.internalUrl,
    jwtSecret: docs.jwtSecret,
    timeoutMs: DOCS_COMMAND_TIMEOUT_MS,
    now: () => clock.now(),
    client,
  })
}

/** The fetcher for files Docs serves (links must be vetted with toInternalDocsUrl first). */
export function createDocsFetcher(client: OutboundClient): DocsFetcher {
  return docsFetcher({ timeoutMs: DOCS_DOWNLOAD_TIMEOUT_MS, client })
}

/** Problems with the Docs settings worth a warning at start-up. */
export function docsSettingWarnings(docs: DocsSettings): string[] {
  const warnings: string[] = []
  if (docs.jwtSecret === undefined) {
    warnings.push(
      'FOLIO_DOCS_URL is set but FOLIO_DOCS_JWT_SECRET is not: callbacks and editor configs are ' +
        'not signed, so anyone who learns a callback URL can post saves for that file. Set the ' +
        'same secret as JWT_SECRET of ONLYOFFICE Docs.',
    )
  }
  return warnings
}
