import type { ExtractedText, ExtractionInput, ExtractionLimits, TextExtractor } from '../../ports/text-extractor.js'
import { Budget, ExtractionStop } from './budget.js'
import { PACKAGE_FORMATS, readPackageText } from './office-text.js'
import { readPdfText } from './pdf-text.js'
import { HTML_FORMATS, PLAIN_FORMATS, readHtmlText, readPlainText } from './plain-text.js'
import { TextSink } from './text-sink.js'

/** Options of the built-in text extractor. */
export interface TextExtractorOptions {
  /**
   * Asked for every format the built-in readers do not know (legacy .doc, .xls, .ppt, .rtf
   * through a document converter, for example); without it those are `unsupported`.
   */
  fallback?: TextExtractor
  /** Milliseconds since the epoch, for the time limit (Date.now by default). */
  now?: () => number
}

/** Uncompressed bytes a package may expand to, per character of text kept. */
const INFLATED_BYTES_PER_CHAR = 64

function extensionOf(title: string): string {
  const dot = title.lastIndexOf('.')
  return dot === -1 ? '' : title.slice(dot + 1).toLowerCase()
}

function knows(extension: string): boolean {
  return (
    PACKAGE_FORMATS.has(extension) || PLAIN_FORMATS.has(extension) || HTML_FORMATS.has(extension) || extension === 'pdf'
  )
}

/**
 * The built-in text extractor: Office Open XML and OpenDocument packages, plain text,
 * CSV, Markdown, HTML and PDF, read as streams within the limits given to each call.
 */
export function createTextExtractor(options: TextExtractorOptions = {}): TextExtractor {
  const now = options.now ?? Date.now
  return {
    supports(title) {
      return knows(extensionOf(title)) || (options.fallback?.supports(title) ?? false)
    },
    async extract(input: ExtractionInput, limits: ExtractionLimits): Promise<ExtractedText> {
      const extension = extensionOf(input.title)
      if (!knows(extension)) {
        return options.fallback?.supports(input.title) === true
          ? options.fallback.extract(input, limits)
          : { outcome: 'unsupported' }
      }
      const sink = new TextSink(limits.maxChars)
      const budget = new Budget(sink, now() + limits.timeoutMs, limits.maxChars * INFLATED_BYTES_PER_CHAR, now)
      try {
        await read(extension, input, budget)
      } catch (error) {
        if (error instanceof ExtractionStop) return { outcome: 'unreadable', reason: error.reason }
        // A reader library's own error: its message may quote the document, so only its kind is kept.
        const kind = error instanceof Error ? error.name : 'error'
        return { outcome: 'unreadable', reason: `the ${extension} reader failed (${kind})` }
      }
      return { outcome: 'text', text: sink.text(), truncated: sink.truncated }
    },
  }
}

async function read(extension: string, input: ExtractionInput, budget: Budget): Promise<void> {
  const parts = PACKAGE_FORMATS.get(extension)
  if (parts !== undefined) return readPackageText((range) => input.open(range), input.size, parts, budget)
  if (input.size === 0) return
  if (extension === 'pdf') return readPdfText(await input.open(), input.size, budget)
  if (HTML_FORMATS.has(extension)) return readHtmlText(await input.open(), budget)
  return readPlainText(await input.open(), budget)
}
