import { conversionTable, familyOf, normalizeExtension } from './formats.js'

/**
 * How a browser is shown a document: the PDF itself, an image as it is, text as text, or
 * the document converted to PDF (which needs a converter). Only raster images are shown
 * inline: an SVG is a document that can carry script, so it only downloads.
 */
export type PreviewKind = 'pdf' | 'image' | 'text' | 'converted'

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
}

/** Plain-text formats shown as text (always sent as text/plain, never as HTML). */
const TEXT_EXTENSIONS: ReadonlySet<string> = new Set([
  'txt',
  'csv',
  'tsv',
  'md',
  'markdown',
  'log',
  'json',
  'xml',
  'yml',
  'yaml',
  'ini',
])

/** A preview: its kind and the Content-Type it is sent with. */
export interface PreviewFormat {
  kind: PreviewKind
  contentType: string
}

/** The preview of a file with this extension, or undefined when it has none. */
export function previewFormatOf(extension: string): PreviewFormat | undefined {
  const ext = normalizeExtension(extension)
  if (ext === undefined) return undefined
  if (ext === 'pdf') return { kind: 'pdf', contentType: 'application/pdf' }
  const image = IMAGE_TYPES[ext]
  if (image !== undefined) return { kind: 'image', contentType: image }
  if (TEXT_EXTENSIONS.has(ext)) return { kind: 'text', contentType: 'text/plain; charset=utf-8' }
  if (familyOf(ext) !== undefined) return { kind: 'converted', contentType: 'application/pdf' }
  return undefined
}

/** The preview kind of every extension that has one (for clients that choose how to show it). */
export function previewKinds(): Record<string, PreviewKind> {
  const extensions = [...Object.keys(IMAGE_TYPES), ...TEXT_EXTENSIONS, ...Object.keys(conversionTable())]
  const kinds: Record<string, PreviewKind> = {}
  for (const extension of extensions) {
    const format = previewFormatOf(extension)
    if (format !== undefined) kinds[extension] = format.kind
  }
  return kinds
}
