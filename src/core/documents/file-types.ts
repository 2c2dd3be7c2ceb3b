/**
 * What Folio knows about file types: MIME types for downloads and the
 * ONLYOFFICE documentType of each editable or viewable extension.
 */

export type DocumentType = 'word' | 'cell' | 'slide' | 'pdf'

interface TypeInfo {
  mime: string
  documentType?: DocumentType
  /** ONLYOFFICE Docs can save this format back (edit mode, not only view). */
  editable?: boolean
}

const TYPES: Record<string, TypeInfo> = {
  docx: {
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    documentType: 'word',
    editable: true,
  },
  xlsx: {
    mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    documentType: 'cell',
    editable: true,
  },
  pptx: {
    mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    documentType: 'slide',
    editable: true,
  },
  odt: { mime: 'application/vnd.oasis.opendocument.text', documentType: 'word', editable: true },
  ods: {
    mime: 'application/vnd.oasis.opendocument.spreadsheet',
    documentType: 'cell',
    editable: true,
  },
  odp: {
    mime: 'application/vnd.oasis.opendocument.presentation',
    documentType: 'slide',
    editable: true,
  },
  doc: { mime: 'application/msword', documentType: 'word' },
  xls: { mime: 'application/vnd.ms-excel', documentType: 'cell' },
  ppt: { mime: 'application/vnd.ms-powerpoint', documentType: 'slide' },
  rtf: { mime: 'application/rtf', documentType: 'word', editable: true },
  txt: { mime: 'text/plain', documentType: 'word', editable: true },
  csv: { mime: 'text/csv', documentType: 'cell', editable: true },
  pdf: { mime: 'application/pdf', documentType: 'pdf' },
}

const OCTET_STREAM = 'application/octet-stream'

/** MIME type to serve a file with; application/octet-stream for unknown types. */
export function mimeTypeOf(extension: string): string {
  return TYPES[extension.toLowerCase()]?.mime ?? OCTET_STREAM
}

/** The ONLYOFFICE documentType, or undefined when the editor cannot open it. */
export function documentTypeOf(extension: string): DocumentType | undefined {
  return TYPES[extension.toLowerCase()]?.documentType
}

/** True when an online editor can save this format back. */
export function isEditableType(extension: string): boolean {
  return TYPES[extension.toLowerCase()]?.editable === true
}
