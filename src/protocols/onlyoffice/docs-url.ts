/**
 * Which links from a callback Folio will fetch. Docs builds `url`
 * and `changesurl` from the address the browser used, which Folio may not reach, and an
 * unchecked url is a server-side request forgery. So a link is fetched only when it
 * lies under FOLIO_DOCS_URL or FOLIO_DOCS_INTERNAL_URL, and it is then fetched from the
 * internal address.
 */

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
 * The internal address to fetch `link` from, or undefined when the link is not on
 * the Docs server (another host, port or scheme, a path outside a Docs path prefix,
 * user info, or not a URL at all).
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
    // The rewrite must not step outside the internal base (e.g. through encoded dots).
    if (rewritten.origin !== internal.origin || !rewritten.pathname.startsWith(internal.pathname)) {
      return undefined
    }
    return rewritten.href
  }
  return undefined
}
