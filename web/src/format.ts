import { scaleBytes } from '../../src/core/units/byte-scale.js'
import { formatLocale, t, type MessageKey } from './i18n'

/** Intl formatters are costly to make: one per locale and kind, made when first used. */
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>()
function numberFormat(key: string, make: (locale: string) => Intl.NumberFormat): Intl.NumberFormat {
  const locale = formatLocale()
  const found = formatters.get(`${locale}:${key}`)
  if (found instanceof Intl.NumberFormat) return found
  const made = make(locale)
  formatters.set(`${locale}:${key}`, made)
  return made
}
function dateFormat(withSeconds: boolean): Intl.DateTimeFormat {
  const locale = formatLocale()
  const key = `${locale}:date:${String(withSeconds)}`
  const found = formatters.get(key)
  if (found instanceof Intl.DateTimeFormat) return found
  const made = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: withSeconds ? 'medium' : 'short' })
  formatters.set(key, made)
  return made
}

const SIZE_UNITS = ['kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const

/**
 * Bytes as people of the interface's language read them: '940 bytes', '12.3 kB', '4.1 MB'
 * ('12,3 ko' in French); units of 1024, one decimal below 100.
 */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return t('size.bytes', { count: bytes })
  const scaled = scaleBytes(bytes, SIZE_UNITS.length + 1)
  const value = scaled.value
  const unit = scaled.unit - 1
  const name = SIZE_UNITS[unit] ?? 'terabyte'
  const digits = value >= 100 ? 0 : 1
  const format = numberFormat(
    `${name}:${digits}`,
    (locale) =>
      new Intl.NumberFormat(locale, {
        style: 'unit',
        unit: name,
        unitDisplay: 'short',
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      }),
  )
  return format.format(digits === 0 ? Math.round(value) : value)
}

/** A person's storage: '12.3 kB of 500 MB', or '12.3 kB' with no quota; '' when not told. */
export function storageText(person: { usedSpace?: number; quotaLimit?: number }): string {
  if (person.usedSpace === undefined) return ''
  const used = formatSize(person.usedSpace)
  if (person.quotaLimit === undefined || person.quotaLimit < 0) return used
  return t('storage.usedOfLimit', { used, limit: formatSize(person.quotaLimit) })
}

/** An ISO date from the API in the interface's language and the reader's time zone. */
export function formatDate(iso: string): string {
  const ms = Date.parse(iso)
  return Number.isNaN(ms) ? '' : dateFormat(false).format(ms)
}

/**
 * Dates of a list (versions): to the minute, except where two or more fall in the same
 * minute, which are shown with seconds so they can be told apart.
 */
export function formatDates(isos: readonly string[]): string[] {
  const short = isos.map(formatDate)
  const counts = new Map<string, number>()
  for (const text of short) counts.set(text, (counts.get(text) ?? 0) + 1)
  return isos.map((iso, i) => {
    const text = short[i] ?? ''
    const ms = Date.parse(iso)
    return (counts.get(text) ?? 0) > 1 && !Number.isNaN(ms) ? dateFormat(true).format(ms) : text
  })
}

export type FileKind = 'document' | 'spreadsheet' | 'presentation' | 'pdf' | 'text' | 'image' | 'archive' | 'other'

const KINDS: Record<string, FileKind> = {}
for (const ext of ['docx', 'docm', 'doc', 'dotx', 'dotm', 'dot', 'odt', 'ott', 'rtf', 'epub', 'fb2']) {
  KINDS[ext] = 'document'
}
for (const ext of ['xlsx', 'xlsm', 'xls', 'xltx', 'xltm', 'xlt', 'ods', 'ots', 'csv', 'xlsb']) {
  KINDS[ext] = 'spreadsheet'
}
for (const ext of ['pptx', 'pptm', 'ppt', 'potx', 'potm', 'pot', 'ppsx', 'ppsm', 'pps', 'odp', 'otp']) {
  KINDS[ext] = 'presentation'
}
KINDS.pdf = 'pdf'
for (const ext of ['txt', 'md', 'markdown', 'log', 'html', 'htm', 'xml', 'json', 'yaml', 'yml', 'ini']) {
  KINDS[ext] = 'text'
}
for (const ext of ['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg', 'bmp', 'tif', 'tiff', 'heic']) {
  KINDS[ext] = 'image'
}
for (const ext of ['zip', '7z', 'rar', 'tar', 'gz', 'tgz', 'bz2', 'xz']) {
  KINDS[ext] = 'archive'
}

/** The kind of a file, from its extension ('.docx' or 'docx'). */
export function fileKind(extension: string): FileKind {
  return KINDS[extension.replace(/^\./, '').toLowerCase()] ?? 'other'
}

/** The catalog key of what each kind is called, for the icon's accessible name. */
export const KIND_LABELS: Record<FileKind, MessageKey> = {
  document: 'kind.document',
  spreadsheet: 'kind.spreadsheet',
  presentation: 'kind.presentation',
  pdf: 'kind.pdf',
  text: 'kind.text',
  image: 'kind.image',
  archive: 'kind.archive',
  other: 'kind.other',
}

const SOURCE_LABELS: Record<string, MessageKey> = {
  create: 'versions.sourceCreate',
  upload: 'versions.sourceUpload',
  wopi: 'versions.sourceWopi',
  'exit-save': 'versions.sourceExitSave',
  'force-save': 'versions.sourceForceSave',
  restore: 'versions.sourceRestore',
  copy: 'versions.sourceCopy',
}

/** How a version came to be, in words (the `source` of the history API). */
export function versionSourceLabel(source: string): string {
  const label = SOURCE_LABELS[source]
  return label ? t(label) : source
}

/** Splits 'Report.final.docx' into ['Report.final', '.docx']. */
export function splitExtension(title: string): [string, string] {
  const dot = title.lastIndexOf('.')
  if (dot <= 0) return [title, '']
  return [title.slice(0, dot), title.slice(dot)]
}
