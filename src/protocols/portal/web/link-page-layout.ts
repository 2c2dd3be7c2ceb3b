import { createHash } from 'node:crypto'
import type { FastifyReply } from 'fastify'
import { escapeHtml } from '../../http/error-page.js'
import { languageHeaders, pageText, type PageLanguage } from '../../http/page-texts/index.js'

/** What a share link's pages (a file's, a folder's) have in common: style, CSP, frame. */

const STYLE = `:root{--bg:#f6f7f9;--surface:#fff;--text:#1a202c;--muted:#5a6473;--border:#d9dee5;--accent:#2b6cb0;--accent-text:#fff;color-scheme:light dark;font:16px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','Liberation Sans',sans-serif;color:var(--text);background:var(--bg)}
@media (prefers-color-scheme:dark){:root{--bg:#14171c;--surface:#1d2128;--text:#e7ebf0;--muted:#a3adba;--border:#353c47;--accent:#63a4e8;--accent-text:#0b1420}}
body{margin:0}header{padding:.75rem 1rem;border-bottom:1px solid var(--border);background:var(--surface);font-weight:700}
main{max-width:60rem;margin:1.5rem auto;padding:0 1rem}h1{font-size:1.4rem;margin:0 0 .25rem;overflow-wrap:anywhere}
.meta{margin:0 0 1rem;color:var(--muted)}.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-start;margin-bottom:1rem}
.button{display:inline-block;padding:.5rem 1rem;border-radius:8px;border:1px solid var(--border);background:var(--surface);color:var(--accent);text-decoration:none;font:inherit;cursor:pointer}
.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-text)}
details{display:inline-block}summary{list-style:none}summary::-webkit-details-marker{display:none}
details form{margin-top:.5rem;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}input{font:inherit;padding:.4rem;border:1px solid var(--border);border-radius:6px}
.frame{width:100%;height:75vh;border:1px solid var(--border);border-radius:8px;background:var(--surface)}
.image{display:block;max-width:100%;max-height:75vh;margin:0 auto;border:1px solid var(--border)}
pre{max-height:75vh;overflow:auto;padding:1rem;border:1px solid var(--border);border-radius:8px;background:var(--surface);white-space:pre-wrap;overflow-wrap:anywhere}
.none{padding:1.5rem;border:1px dashed var(--border);border-radius:8px}a:focus-visible,.button:focus-visible{outline:3px solid #f6ad55;outline-offset:2px}
.crumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;margin:0 0 .75rem;padding:0;color:var(--muted)}.crumbs li+li::before{content:'/';margin-right:.25rem}
.crumbs a{color:var(--accent)}.items{list-style:none;margin:0;padding:0;border:1px solid var(--border);border-radius:8px;background:var(--surface)}
.items li{display:flex;align-items:center;gap:.75rem;padding:.5rem .75rem;border-top:1px solid var(--border)}.items li:first-child{border-top:0}
.items .name{flex:1;min-width:0;overflow-wrap:anywhere;color:var(--accent)}.items .info{color:var(--muted);font-size:.9rem;white-space:nowrap}
.thumb{width:48px;height:48px;flex:none;object-fit:contain;border:1px solid var(--border);border-radius:4px;background:var(--bg)}
.badge{width:48px;height:48px;flex:none;display:flex;align-items:center;justify-content:center;border:1px solid var(--border);border-radius:4px;font-size:.7rem;text-transform:uppercase;color:var(--muted)}
.small{padding:.25rem .6rem;font-size:.9rem}
@media (max-width:40rem){.items li{flex-wrap:wrap}.items .name{flex-basis:calc(100% - 4rem)}.items .info{white-space:normal}}`

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64')

/** CSP of a link page: its inline style, previews and thumbnails from Folio itself, forms to Folio. */
const SHARE_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "img-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ')

/** A whole link page around `main` (escaped by the caller), in the guest's language. */
export function linkPage(language: PageLanguage, title: string, main: string): string {
  return `<!doctype html>
<html lang="${language.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} - Folio</title>
<style>${STYLE}</style>
</head>
<body>
<header>Folio</header>
<main>
${main}
</main>
</body>
</html>
`
}

export function sendLinkPage(reply: FastifyReply, language: PageLanguage, html: string): FastifyReply {
  return (
    languageHeaders(reply, language)
      .code(200)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Content-Security-Policy', SHARE_PAGE_CSP)
      // The page's address holds the link's key: never cached, never sent on as a referrer.
      .header('Cache-Control', 'no-store')
      .header('Referrer-Policy', 'no-referrer')
      .send(html)
  )
}

/** The query string that carries the link's key. */
export function keyQuery(key: string): string {
  return `doc=${encodeURIComponent(key)}`
}

/** The address of an item's page (or one of its parts) under a link's key. */
export function linkAddress(itemId: string, key: string, part = ''): string {
  return `/s/${encodeURIComponent(itemId)}${part}?${keyQuery(key)}`
}

/** The path from the linked folder down, each a link, the last one the current page. */
export function crumbs(
  language: PageLanguage,
  path: readonly { id: string; title: string }[],
  key: string,
  currentIsLast: boolean,
): string {
  const items = path.map((folder, i) =>
    currentIsLast && i === path.length - 1
      ? `<li aria-current="page">${escapeHtml(folder.title)}</li>`
      : `<li><a href="${escapeHtml(linkAddress(folder.id, key))}">${escapeHtml(folder.title)}</a></li>`,
  )
  return `<nav class="crumbs" aria-label="${escapeHtml(pageText(language.locale, 'link.crumbs'))}"><ol>${items.join('')}</ol></nav>`
}
