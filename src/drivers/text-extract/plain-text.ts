import type { Readable } from 'node:stream'
import { decodeHTML } from 'entities'
import type { Budget } from './budget.js'

/** Formats read as UTF-8 text as they are. */
export const PLAIN_FORMATS: ReadonlySet<string> = new Set(['txt', 'text', 'csv', 'tsv', 'md', 'markdown', 'log'])
export const HTML_FORMATS: ReadonlySet<string> = new Set(['html', 'htm', 'xhtml'])

/** Reads UTF-8 text until the sink is full. */
export async function readPlainText(stream: Readable, budget: Budget): Promise<void> {
  const decoder = new TextDecoder('utf-8')
  try {
    for await (const chunk of stream) {
      budget.check()
      budget.sink.add(decoder.decode(chunk, { stream: true }))
      if (budget.done()) return
    }
    budget.sink.add(decoder.decode())
  } finally {
    stream.destroy()
  }
}

/** Raw HTML read per character kept: markup is usually a few times the text. */
const HTML_BYTES_PER_CHAR = 8

/** Elements whose content is not text a reader sees. */
const HIDDEN = /<(script|style|noscript|template|head)\b[\s\S]*?<\/\1\s*>/gi
/** Elements that start a new line. */
const BLOCK =
  /<\/?(p|div|br|li|ul|ol|tr|td|th|h[1-6]|section|article|header|footer|table|blockquote|pre|title)\b[^>]*>/gi

/**
 * Reads the text of an HTML page: the markup, comments, scripts and styles left out,
 * character references decoded. Reads at most a bounded amount of markup.
 */
export async function readHtmlText(stream: Readable, budget: Budget): Promise<void> {
  const limit = budget.sink.maxChars * HTML_BYTES_PER_CHAR
  const decoder = new TextDecoder('utf-8')
  let markup = ''
  try {
    for await (const chunk of stream) {
      budget.check()
      markup += decoder.decode(chunk, { stream: true })
      if (markup.length >= limit) break
    }
    markup += decoder.decode()
  } finally {
    stream.destroy()
  }
  const text = markup
    .replace(/<!--[\s\S]*?(-->|$)/g, ' ')
    .replace(HIDDEN, ' ')
    .replace(BLOCK, '\n')
    .replace(/<[^>]*>/g, ' ')
  budget.sink.add(decodeHTML(text))
}
