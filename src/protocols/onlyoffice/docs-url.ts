/**
 * Which links from Docs Folio will fetch (a callback's `url` and `changesurl`, the
 * editor's "save copy as" link). Docs builds them from the address the browser used,
 * which Folio may not reach, and an unchecked url is a server-side request forgery. So a
 * link is fetched only when it lies in Docs' file cache under FOLIO_DOCS_URL or
 * FOLIO_DOCS_INTERNAL_URL, and it is then fetched from the internal address.
 */

/** Where Docs serves the files it made (saves, changes, conversions), under its base. */
const CACHE_PATH = 'cache/files/'

export interface DocsAddresses {
  /** FOLIO_DOCS_URL: Docs as browsers reach it. */
  url: string
  /** FOLIO_DOCS_INTERNAL_URL: Docs as Folio reaches it. */
  internalUrl: string
}

function parse(value: string): URL | undefined {
  try {
    return new URL(value)
  } catch {
    return undefined
  }
}

/** The base with exactly one trailing slash, so '/docs' never matches '/docs-evil'. */
function asBase(value: string): URL | undefined {
  return parse(value.replace(/\/*$/, '/'))
}

/**
 * The internal address to fetch `link` from, or undefined when the link is not in the
 * Docs server's file cache (another host, port or scheme, a path outside a Docs path
 * prefix or outside `cache/files/`, user info, or not a URL at all).
 */
export function toInternalDocsUrl(link: string, docs: DocsAddresses): string | undefined {
  const target = parse(link)
  const internal = asBase(docs.internalUrl)
  if (!target || !internal) return undefined
  if (target.username !== '' || target.password !== '') return undefined
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return undefined
  for (const candidate of [docs.url, docs.internalUrl]) {
    const base = asBase(candidate)
    if (!base || base.origin !== target.origin) continue
    if (!target.pathname.startsWith(base.pathname)) continue
    const rest = target.pathname.slice(base.pathname.length)
    const rewritten = new URL(internal.href + rest + target.search)
    // Only Docs' file cache: any other path of Docs (its command service, health check,
    // admin pages) is no file of an editor. Checked after the rewrite, which resolves
    // dot segments, so encoded dots cannot step out of the cache or the internal base.
    const cache = internal.pathname + CACHE_PATH
    if (rewritten.origin !== internal.origin || !rewritten.pathname.startsWith(cache)) {
      return undefined
    }
    return rewritten.href
  }
  return undefined
}
