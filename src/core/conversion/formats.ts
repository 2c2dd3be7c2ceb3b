/**
 * Which documents Folio converts to what. One table for every converter (LibreOffice,
 * ONLYOFFICE Docs): a source extension belongs to a family, and a family has its targets.
 * A pair outside the table is refused before any converter is asked.
 */

/** Every format a conversion can produce; `png` is an image of the first page (a thumbnail). */
export const CONVERSION_TARGETS = [
  'pdf',
  'docx',
  'xlsx',
  'pptx',
  'odt',
  'ods',
  'odp',
  'txt',
  'csv',
  'rtf',
  'png',
] as const

export type ConversionTarget = (typeof CONVERSION_TARGETS)[number]

/** What kind of document a source is, which decides what it can become. */
export type DocumentFamily = 'text' | 'spreadsheet' | 'presentation' | 'pdf'

const FAMILY_OF_SOURCE: Readonly<Record<string, DocumentFamily>> = {
  docx: 'text',
  docm: 'text',
  dotx: 'text',
  doc: 'text',
  dot: 'text',
  odt: 'text',
  ott: 'text',
  rtf: 'text',
  txt: 'text',
  html: 'text',
  htm: 'text',
  xlsx: 'spreadsheet',
  xlsm: 'spreadsheet',
  xltx: 'spreadsheet',
  xls: 'spreadsheet',
  ods: 'spreadsheet',
  ots: 'spreadsheet',
  csv: 'spreadsheet',
  pptx: 'presentation',
  pptm: 'presentation',
  potx: 'presentation',
  ppt: 'presentation',
  odp: 'presentation',
  otp: 'presentation',
  pdf: 'pdf',
}

const TARGETS_OF_FAMILY: Readonly<Record<DocumentFamily, readonly ConversionTarget[]>> = {
  text: ['pdf', 'docx', 'odt', 'txt', 'rtf', 'png'],
  spreadsheet: ['pdf', 'xlsx', 'ods', 'csv', 'png'],
  presentation: ['pdf', 'pptx', 'odp', 'png'],
  pdf: ['png'],
}

/** Legacy and open formats and the OOXML format ONLYOFFICE edits them in. */
const OOXML_TWIN: Readonly<Record<DocumentFamily, ConversionTarget | undefined>> = {
  text: 'docx',
  spreadsheet: 'xlsx',
  presentation: 'pptx',
  pdf: undefined,
}

/** Largest side of a thumbnail, in pixels. */
export const THUMBNAIL_MAX_PIXELS = 512

/** 'docx' from 'docx', '.DOCX' or ' .docx '; undefined for anything but letters and digits. */
export function normalizeExtension(value: string): string | undefined {
  const text = value.trim().toLowerCase().replace(/^\./, '')
  return /^[a-z0-9]{1,10}$/.test(text) ? text : undefined
}

/** True when `value` names a format conversions can produce. */
export function isConversionTarget(value: string): value is ConversionTarget {
  return CONVERSION_TARGETS.some((target) => target === value)
}

/** The family of a source extension, or undefined when Folio does not convert it. */
export function familyOf(extension: string): DocumentFamily | undefined {
  const normalized = normalizeExtension(extension)
  return normalized === undefined ? undefined : FAMILY_OF_SOURCE[normalized]
}

/** What a source extension converts to (never the source's own format). */
export function conversionTargets(sourceExtension: string): readonly ConversionTarget[] {
  const source = normalizeExtension(sourceExtension)
  const family = familyOf(sourceExtension)
  if (family === undefined) return []
  return TARGETS_OF_FAMILY[family].filter((target) => target !== source)
}

/** Every source extension Folio converts, with what it converts to. */
export function conversionTable(): Record<string, readonly ConversionTarget[]> {
  return Object.fromEntries(Object.keys(FAMILY_OF_SOURCE).map((source) => [source, conversionTargets(source)]))
}

/** True when the table converts `sourceExtension` to `target`. */
export function canConvert(sourceExtension: string, target: string): boolean {
  const normalized = normalizeExtension(target)
  return normalized !== undefined && conversionTargets(sourceExtension).some((t) => t === normalized)
}

/** The OOXML format a legacy or open document is edited in, or undefined (already OOXML, or none). */
export function ooxmlTwinOf(sourceExtension: string): ConversionTarget | undefined {
  const family = familyOf(sourceExtension)
  if (family === undefined) return undefined
  const twin = OOXML_TWIN[family]
  return twin !== undefined && canConvert(sourceExtension, twin) ? twin : undefined
}

/** The converted file's name: `report.docx` as pdf is `report.pdf`. */
export function convertedName(title: string, target: ConversionTarget): string {
  const dot = title.lastIndexOf('.')
  const base = dot > 0 ? title.slice(0, dot) : title
  return `${base}.${target}`
}
