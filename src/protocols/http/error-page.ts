import { createHash } from 'node:crypto'
import type { FastifyReply } from 'fastify'
import type { ErrorCode } from '../../core/errors.js'
import { languageHeaders, pageLanguage, pageText, type PageLocale, type PageTextKey } from './page-texts/index.js'

/**
 * The one page Folio answers a browser with when it cannot show what was asked for: a
 * readable message in Folio's colours with a way back, instead of JSON. Every browser
 * route (the editor pages, the WOPI host page, an unknown path) renders it from one table,
 * in the language the request's Accept-Language asks for (page-texts/).
 */

/** Why a browser page cannot be shown. Domain error codes, plus the routes' own reasons. */
export type PageProblem = ErrorCode | 'NO_EDITOR' | 'UNKNOWN_PATH' | 'EDITOR_UNAVAILABLE'

/** What the page says about one problem: its status, heading and explanation. */
export interface ProblemPage {
  status: number
  title: string
  message: string
}

/** The status of each problem a person may meet in a browser; anything else is GENERIC. */
const PROBLEM_STATUS: Partial<Record<PageProblem, number>> = {
  NOT_FOUND: 404,
  UNKNOWN_PATH: 404,
  NO_EDITOR: 404,
  EDITOR_UNAVAILABLE: 502,
  NOT_SUPPORTED: 415,
  FORBIDDEN: 403,
}

/** The words of a problem in a language: its catalog entries (page-texts/), GENERIC if it has none. */
function problemWords(problem: PageProblem, locale: PageLocale): ProblemPage {
  const status = PROBLEM_STATUS[problem]
  const name = status === undefined ? 'GENERIC' : problem
  return {
    status: status ?? 500,
    title: pageText(locale, `problem.${name}.title` as PageTextKey),
    message: pageText(locale, `problem.${name}.message` as PageTextKey),
  }
}

/** The English words for each problem with words of its own. */
export const PROBLEM_PAGES: Partial<Record<PageProblem, ProblemPage>> = Object.fromEntries(
  Object.keys(PROBLEM_STATUS).map((problem) => [problem, problemWords(problem as PageProblem, 'en')]),
)

/** The page for a problem (the generic one for a problem without words of its own). */
export function problemPage(problem: PageProblem, locale: PageLocale = 'en'): ProblemPage {
  return problemWords(problem, locale)
}

/** A link the page offers besides the way back to the documents: its words, or their catalog key. */
export type PageLink = { href: string; label: string } | { href: string; text: PageTextKey }

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

// Folio's colours (web/src/styles.css), light and dark, inline so the page stands alone.
const STYLE = `:root{--bg:#f6f7f9;--surface:#fff;--text:#1a202c;--muted:#5a6473;--border:#d9dee5;--accent:#2b6cb0;--accent-text:#fff;color-scheme:light dark;font:16px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','Liberation Sans',sans-serif;color:var(--text);background:var(--bg)}
@media (prefers-color-scheme:dark){:root{--bg:#14171c;--surface:#1d2128;--text:#e7ebf0;--muted:#a3adba;--border:#353c47;--accent:#63a4e8;--accent-text:#0b1420}}
body{margin:0}header{padding:.75rem 1rem;border-bottom:1px solid var(--border);background:var(--surface);font-weight:700}
header a{color:var(--text);text-decoration:none}main{max-width:36rem;margin:3rem auto;padding:1.5rem;background:var(--surface);border:1px solid var(--border);border-radius:8px}
h1{font-size:1.4rem;margin:0 0 .5rem}p{margin:0 0 1rem;color:var(--muted)}nav{display:flex;flex-wrap:wrap;gap:.5rem}
nav a{display:inline-block;padding:.5rem 1rem;border-radius:8px;border:1px solid var(--border);color:var(--accent);text-decoration:none}
nav a:first-child{background:var(--accent);border-color:var(--accent);color:var(--accent-text)}a:focus-visible{outline:3px solid #f6ad55;outline-offset:2px}`

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64')

/** The Content-Security-Policy of an error page: its inline style and nothing else. */
export const ERROR_PAGE_CONTENT_SECURITY_POLICY =
  `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'self'; form-action 'none'; ` +
  "frame-ancestors 'none'; base-uri 'none'"

/** The HTML of the page for `problem`, with a link back to the documents and `links`. */
export function renderProblemPage(
  problem: PageProblem,
  links: readonly PageLink[] = [],
  locale: PageLocale = 'en',
): string {
  const page = problemPage(problem, locale)
  const nav = [{ href: '/', label: pageText(locale, 'page.home') }, ...links]
    .map((link) => {
      const label = 'text' in link ? pageText(locale, link.text) : link.label
      return `<a href="${escapeHtml(link.href)}">${escapeHtml(label)}</a>`
    })
    .join('')
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} - Folio</title>
<style>${STYLE}</style>
</head>
<body>
<header><a href="/">Folio</a></header>
<main>
<h1>${escapeHtml(page.title)}</h1>
<p>${escapeHtml(page.message)}</p>
<nav>${nav}</nav>
</main>
</body>
</html>
`
}

/**
 * Answers the page for `problem` with its status, in the language of the request's
 * Accept-Language; never cached, never framed.
 */
export function sendProblemPage(reply: FastifyReply, problem: PageProblem, links: readonly PageLink[] = []) {
  const language = pageLanguage(reply.request.headers['accept-language'])
  return languageHeaders(reply, language)
    .code(problemPage(problem).status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('Content-Security-Policy', ERROR_PAGE_CONTENT_SECURITY_POLICY)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .send(renderProblemPage(problem, links, language.locale))
}

/** True when the request is a browser asking for a page (a GET or HEAD that accepts HTML). */
export function wantsPage(method: string, accept: string | undefined): boolean {
  return (method === 'GET' || method === 'HEAD') && /\btext\/html\b/i.test(accept ?? '')
}
