/**
 * ONLYOFFICE's FileType numbers (the `fileType` of a file in the portal API) and the
 * extensions its list filters (DocumentsOnly, PresentationsOnly, SpreadsheetsOnly) match.
 */

/** FileType: Unknown 0, Archive 1, Video 2, Audio 3, Image 4, Spreadsheet 5, Presentation 6, Document 7. */
export type PortalFileType = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7

const BY_TYPE: Record<Exclude<PortalFileType, 0>, readonly string[]> = {
  1: ['zip', 'rar', '7z', 'tar', 'gz', 'tgz', 'bz2', 'xz'],
  2: ['mp4', 'avi', 'mkv', 'mov', 'webm', 'mpeg', 'mpg', 'wmv', 'm4v'],
  3: ['mp3', 'wav', 'ogg', 'flac', 'm4a', 'aac', 'wma', 'opus'],
  4: ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'svg', 'webp', 'tif', 'tiff', 'ico', 'heic'],
  5: ['xlsx', 'xls', 'ods', 'csv', 'xlsm', 'xltx', 'xlt', 'ots', 'fods', 'xlsb'],
  6: ['pptx', 'ppt', 'odp', 'ppsx', 'pps', 'potx', 'pot', 'otp', 'fodp', 'pptm'],
  7: [
    'docx',
    'doc',
    'odt',
    'rtf',
    'txt',
    'pdf',
    'docm',
    'dotx',
    'dot',
    'ott',
    'fodt',
    'html',
    'htm',
    'epub',
    'fb2',
    'djvu',
    'xps',
    'md',
  ],
}

const KNOWN_TYPES = [1, 2, 3, 4, 5, 6, 7] as const

const TYPE_OF = new Map<string, PortalFileType>()
for (const type of KNOWN_TYPES) {
  for (const extension of BY_TYPE[type]) TYPE_OF.set(extension, type)
}

/** The FileType of an extension (without the dot, any case); 0 when unknown. */
export function portalFileTypeOf(extension: string): PortalFileType {
  return TYPE_OF.get(extension.toLowerCase()) ?? 0
}

/** The title suffixes ('.docx', ...) of one FileType, for list filters. */
export function suffixesOf(type: Exclude<PortalFileType, 0>): string[] {
  return BY_TYPE[type].map((extension) => `.${extension}`)
}
