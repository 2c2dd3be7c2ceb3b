import type { Readable } from 'node:stream'

/** A stored version whose words are wanted: its name (for the format) and its bytes. */
export interface ExtractionInput {
  /** The file's title; its extension picks the reader. */
  title: string
  /** Size of the bytes in octets. */
  size: number
  /**
   * Opens the bytes, or the inclusive byte range `range` of them, as a stream (a zip
   * reader reads the central directory and then only the parts it wants).
   */
  open(range?: { start: number; end: number }): Promise<Readable>
}

/** How much one extraction may take. */
export interface ExtractionLimits {
  /** Most characters of text kept; the rest is left out (the result says `truncated`). */
  maxChars: number
  /** Longest one document may take, in ms; past it the reader stops and fails. */
  timeoutMs: number
}

/**
 * What a reader made of a document:
 * - `text`: the words it holds, at most maxChars characters (`truncated` when cut);
 * - `unsupported`: no reader knows this format (the file is found by its name only);
 * - `unreadable`: the reader failed (damaged, encrypted, too slow, a zip bomb); `reason`
 *   is a short sentence for the log, with no content of the document in it.
 */
export type ExtractedText =
  | { outcome: 'text'; text: string; truncated: boolean }
  | { outcome: 'unsupported' }
  | { outcome: 'unreadable'; reason: string }

/**
 * Reads the text of stored documents for the search index. Never throws for a bad
 * document: that is an `unreadable` result. A driver reads the bytes as a stream and
 * stops as soon as a limit is reached.
 */
export interface TextExtractor {
  /** True when some reader of this extractor knows the format of a file named `title`. */
  supports(title: string): boolean
  extract(input: ExtractionInput, limits: ExtractionLimits): Promise<ExtractedText>
}
