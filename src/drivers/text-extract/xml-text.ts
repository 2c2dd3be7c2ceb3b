import { decodeXML } from 'entities'
import type { TextSink } from './text-sink.js'

/** Which parts of an XML part are text, by qualified element name (prefix as written). */
export interface XmlTextRules {
  /** Only character data inside these elements is text; undefined: all character data. */
  textIn?: ReadonlySet<string>
  /** The end of these elements ends a line (paragraphs, rows). */
  lineAfter: ReadonlySet<string>
  /** These elements stand for a blank (tabs, breaks, repeated spaces). */
  blankFor: ReadonlySet<string>
}

/** Longest tag kept while scanning; a longer one (never in a real document) is skipped. */
const MAX_TAG_CHARS = 64 * 1024

/**
 * An incremental scanner of XML character data: push decoded text in any chunks, and the
 * text the rules pick goes to the sink. Written here rather than with an XML library
 * because documents only need their words: no tree, no namespaces resolved, no DTD (so
 * no entity expansion attack), and a constant amount of memory per document.
 */
export function createXmlTextScanner(rules: XmlTextRules, sink: TextSink) {
  let inTag = false
  let tag = ''
  let text = ''
  let depth = 0
  const keepsText = () => rules.textIn === undefined || depth > 0
  const flushText = () => {
    if (text !== '') sink.add(decodeXML(text))
    text = ''
  }
  const closeTag = (raw: string) => {
    if (raw.startsWith('?') || raw.startsWith('!')) return
    if (raw.startsWith('/')) {
      const name = raw.slice(1).trim()
      if (rules.textIn?.has(name) === true && depth > 0) depth--
      if (rules.lineAfter.has(name)) sink.add('\n')
      return
    }
    const selfClosing = raw.endsWith('/')
    const name = /^[^\s/>]+/.exec(raw)?.[0] ?? ''
    if (rules.blankFor.has(name)) sink.add(' ')
    if (selfClosing) {
      if (rules.lineAfter.has(name)) sink.add('\n')
      return
    }
    if (rules.textIn?.has(name) === true) depth++
  }
  return {
    push(chunk: string): void {
      let at = 0
      while (at < chunk.length && !sink.full) {
        if (inTag) {
          const end = chunk.indexOf('>', at)
          const piece = end === -1 ? chunk.slice(at) : chunk.slice(at, end)
          if (tag.length < MAX_TAG_CHARS) tag += piece
          if (end === -1) return
          closeTag(tag)
          tag = ''
          inTag = false
          at = end + 1
        } else {
          const start = chunk.indexOf('<', at)
          const piece = start === -1 ? chunk.slice(at) : chunk.slice(at, start)
          if (keepsText()) {
            text += piece
            // A long run without tags is handed over whole words at a time, never unbounded.
            if (text.length > sink.maxChars) flushText()
          }
          if (start === -1) return
          flushText()
          inTag = true
          at = start + 1
        }
      }
    },
    end(): void {
      if (!inTag) flushText()
    },
  }
}
