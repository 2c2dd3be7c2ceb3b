import { Readable } from 'node:stream'
import { canConvert, ooxmlTwinOf } from '../../core/conversion/formats.js'
import type { Converter } from '../../ports/converter.js'
import type { ExtractedText, ExtractionInput, ExtractionLimits, TextExtractor } from '../../ports/text-extractor.js'
import { readPlainText } from './plain-text.js'
import { Budget, ExtractionStop } from './budget.js'
import { TextSink } from './text-sink.js'

function extensionOf(title: string): string {
  const dot = title.lastIndexOf('.')
  return dot === -1 ? '' : title.slice(dot + 1).toLowerCase()
}

/** Bytes of converted text read per character kept (UTF-8 takes at most 4). */
const BYTES_PER_CHAR = 4
/** Bytes of a converted OOXML package allowed per character kept. */
const PACKAGE_BYTES_PER_CHAR = 16

/**
 * Reads the formats the built-in readers do not know (.doc, .rtf, .xls, .ppt, ...) through
 * a document converter: a text document becomes plain text; a spreadsheet or a
 * presentation, which the converter cannot turn into plain text, becomes its OOXML twin,
 * read by `ooxmlReader`. The conversion runs under the converter's own limits (time,
 * memory, no network) and the extraction's time limit; what comes back is read within the
 * extraction's character limit. A document the converter cannot read is `unreadable`.
 */
export function converterTextFallback(
  converter: Converter,
  ooxmlReader: TextExtractor,
  now: () => number = Date.now,
): TextExtractor {
  const runs = () => converter.status().kind !== 'off'
  const targetOf = (title: string) => {
    const extension = extensionOf(title)
    if (canConvert(extension, 'txt')) return 'txt' as const
    return ooxmlTwinOf(extension)
  }
  return {
    supports: (title) => runs() && targetOf(title) !== undefined,
    async extract(input: ExtractionInput, limits: ExtractionLimits): Promise<ExtractedText> {
      const target = targetOf(input.title)
      if (!runs() || target === undefined) return { outcome: 'unsupported' }
      const extension = extensionOf(input.title)
      if (input.size === 0) return { outcome: 'text', text: '', truncated: false }
      try {
        const converted = await converter.convert({
          source: { kind: 'stream', stream: await input.open(), extension },
          target,
          // Plain text is streamed and cut at the characters kept; a package is held in
          // memory to be read as a zip, so its size is bounded.
          ...(target === 'txt' ? {} : { maxOutputBytes: limits.maxChars * PACKAGE_BYTES_PER_CHAR }),
          signal: AbortSignal.timeout(limits.timeoutMs),
        })
        if (target !== 'txt') {
          const chunks: Buffer[] = []
          for await (const chunk of converted.stream()) chunks.push(Buffer.from(chunk))
          const bytes = Buffer.concat(chunks)
          return ooxmlReader.extract(
            {
              title: `converted.${target}`,
              size: bytes.length,
              open: async (range) =>
                Readable.from([range === undefined ? bytes : bytes.subarray(range.start, range.end + 1)]),
            },
            limits,
          )
        }
        const sink = new TextSink(limits.maxChars)
        const budget = new Budget(sink, now() + limits.timeoutMs, limits.maxChars * BYTES_PER_CHAR, now)
        const stream = converted.stream()
        try {
          await readPlainText(stream, budget)
        } finally {
          stream.destroy()
        }
        return { outcome: 'text', text: sink.text(), truncated: sink.truncated }
      } catch (error) {
        if (error instanceof ExtractionStop) return { outcome: 'unreadable', reason: error.reason }
        // The converter's message names no content of the document; a reader's might.
        const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : 'error'
        return { outcome: 'unreadable', reason: `the converter could not read this .${extension} (${code})` }
      }
    },
  }
}
