/** Bytes as people read them: '940 bytes', '12.3 KB', '4.1 MB'. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`
  const units = ['KB', 'MB', 'GB', 'TB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`
}

/** A person's storage: '12.3 KB of 500 MB', or '12.3 KB' with no quota; '' when not told. */
export function storageText(person: { usedSpace?: number; quotaLimit?: number }): string {
  if (person.usedSpace === undefined) return ''
  const used = formatSize(person.usedSpace)
  return person.quotaLimit === undefined || person.quotaLimit < 0 ? used : `${used} of ${formatSize(person.quotaLimit)}`
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** An ISO date from the API in the reader's locale and time zone. */
export function formatDate(iso: string): string {
  const ms = Date.parse(iso)
  return Number.isNaN(ms) ? '' : dateFormat.format(ms)
}

const withSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' })

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
    return (counts.get(text) ?? 0) > 1 && !Number.isNaN(ms) ? withSeconds.format(ms) : text
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

/** What each kind is called, for the icon's accessible name. */
export const KIND_LABELS: Record<FileKind, string> = {
  document: 'Document',
  spreadsheet: 'Spreadsheet',
  presentation: 'Presentation',
  pdf: 'PDF',
  text: 'Text',
  image: 'Image',
  archive: 'Archive',
  other: 'File',
}

/** How a version came to be, in words (the `source` of the history API). */
export function versionSourceLabel(source: string): string {
  const labels: Record<string, string> = {
    create: 'Created',
    upload: 'Uploaded',
    wopi: 'Saved in the editor (WOPI)',
    'exit-save': 'Saved when the editor closed',
    'force-save': 'Saved with the Save button',
    restore: 'Restored',
    copy: 'Copied',
  }
  return labels[source] ?? source
}

/** Splits 'Report.final.docx' into ['Report.final', '.docx']. */
export function splitExtension(title: string): [string, string] {
  const dot = title.lastIndexOf('.')
  if (dot <= 0) return [title, '']
  return [title.slice(0, dot), title.slice(dot)]
}
