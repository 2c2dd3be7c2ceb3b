/**
 * Words of search, the same for every store: text and queries are cut into runs of letters
 * and digits, lower-cased and stripped of accents (café, Café and CAFE are one word), with
 * no stemming (report does not find reports, but the last word of a query is a prefix:
 * 'repo' finds 'report' and 'reports'). Computed here, once, so SQLite FTS5 and
 * PostgreSQL's tsvector index exactly the same words and give the same results.
 */

/** Most words of a query used; the rest is ignored. */
export const MAX_QUERY_TERMS = 16
/** Longest word kept (a longer run of letters is cut): no real word is longer. */
export const MAX_TERM_CHARS = 64
/** Characters of a query looked at; a longer query is cut there. */
export const MAX_QUERY_CHARS = 1024

const WORD = /[\p{L}\p{N}]+/gu
const MARKS = /\p{M}+/gu

/** Lower case, compatibility forms unfolded (ﬁ is fi), accents dropped. */
export function foldWord(word: string): string {
  return word.normalize('NFKD').replace(MARKS, '').toLowerCase()
}

/** A string safe to handle: lone surrogates (invalid UTF-16) replaced, NUL and controls dropped. */
function wellFormed(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
}

/** The folded words of a text, in order, each at most MAX_TERM_CHARS long. */
export function wordsOf(text: string): string[] {
  const words: string[] = []
  for (const match of wellFormed(text).matchAll(WORD)) {
    for (const part of foldWord(match[0]).match(WORD) ?? []) words.push(part.slice(0, MAX_TERM_CHARS))
  }
  return words
}

/** What the index stores for a text: its folded words separated by spaces. */
export function indexTermsOf(text: string): string {
  return wordsOf(text).join(' ')
}

/** The words of a query, deduplicated, at most MAX_QUERY_TERMS; [] when it has none. */
export function queryTermsOf(query: string): string[] {
  const terms = [...new Set(wordsOf(query.slice(0, MAX_QUERY_CHARS)))]
  return terms.slice(0, MAX_QUERY_TERMS)
}

/**
 * The lower-cased, space-separated pieces of a query for a match on names (each must
 * occur in the title, in any order), at most MAX_QUERY_TERMS; NUL and controls dropped.
 */
export function namePiecesOf(query: string): string[] {
  const pieces = wellFormed(query.slice(0, MAX_QUERY_CHARS).normalize('NFC'))
    .toLowerCase()
    .split(/\s+/)
    .filter((piece) => piece !== '')
  return [...new Set(pieces)].slice(0, MAX_QUERY_TERMS)
}

/**
 * True when the words of `title` hold the query's terms as the index matches them: every
 * term a whole word, the last one as a prefix.
 */
export function titleHas(title: string, terms: readonly string[]): boolean {
  if (terms.length === 0) return false
  const words = wordsOf(title)
  const last = terms.length - 1
  return terms.every((term, i) => words.some((word) => (i === last ? word.startsWith(term) : word === term)))
}

/** Characters of text shown around the first matching word. */
const SNIPPET_CHARS = 160

/**
 * A short excerpt of `text` around the first word that matches the query's terms (every
 * term whole, the last one as a prefix), with '…' where it was cut; undefined when no
 * word of the text matches.
 */
export function snippetOf(text: string, terms: readonly string[]): string | undefined {
  if (terms.length === 0) return undefined
  const last = terms[terms.length - 1] ?? ''
  const whole = new Set(terms.slice(0, -1))
  for (const match of text.matchAll(WORD)) {
    const folded = foldWord(match[0])
    if (!whole.has(folded) && !folded.startsWith(last)) continue
    const at = match.index
    let start = Math.max(0, at - SNIPPET_CHARS / 4)
    let end = Math.min(text.length, start + SNIPPET_CHARS)
    // Whole words at both ends.
    while (start > 0 && /[\p{L}\p{N}]/u.test(text.charAt(start - 1))) start--
    while (end < text.length && /[\p{L}\p{N}]/u.test(text.charAt(end))) end++
    const body = text.slice(start, end).replace(/\s+/g, ' ').trim()
    return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`
  }
  return undefined
}
