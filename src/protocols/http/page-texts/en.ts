/**
 * The English texts of the pages the server renders itself (a link's file and folder pages,
 * the problem pages): the source the other languages follow. `{name}` is a placeholder;
 * a `{ one, other }` pair is chosen by `count` through Intl.PluralRules.
 */
export const en = {
  'page.home': 'Back to your documents',
  'page.downloadIt': 'Download it',
  'page.versions': 'Its versions',
  'link.sharedBy': 'Shared by',
  'link.viewOnly': 'View only',
  'link.download': 'Download',
  'link.downloadNamed': 'Download {name}',
  'link.openInEditor': 'Open in editor',
  'link.guestName': 'Your name (others editing see it)',
  'link.open': 'Open',
  'link.crumbs': 'Folders',
  'link.previewOf': 'Preview of {name}',
  'link.contentsOf': 'Contents of {name}',
  'link.noPreview': 'There is no preview of this kind of file. Download it to open it.',
  'link.noConverter':
    'A preview of this document needs LibreOffice, which is not running on this Folio. Download the document to open it.',
  'size.bytes': { one: '{count} byte', other: '{count} bytes' },
  'link.folder': 'Folder',
  'link.empty': 'This folder is empty.',
  'link.folders': { one: '{count} folder', other: '{count} folders' },
  'link.files': { one: '{count} file', other: '{count} files' },
  'link.hidden': { one: '{count} more item is not shown.', other: '{count} more items are not shown.' },
  'problem.NOT_FOUND.title': 'This document is not here',
  'problem.NOT_FOUND.message':
    'It may have been deleted or renamed, or the link may be wrong. Documents of other people cannot be opened either.',
  'problem.UNKNOWN_PATH.title': 'There is no page here',
  'problem.UNKNOWN_PATH.message': 'The address may be mistyped, or the page may have moved.',
  'problem.NO_EDITOR.title': 'No online editor here',
  'problem.NO_EDITOR.message':
    'This Folio has no online editor connected, so documents cannot be opened in the browser. You can still download them and work on them on your computer. Your administrator can connect an editor.',
  'problem.EDITOR_UNAVAILABLE.title': 'The editor cannot open this document',
  'problem.EDITOR_UNAVAILABLE.message':
    'The online editor offers no way to open documents of this type, or it is not answering. Try again later, or download the document instead.',
  'problem.NOT_SUPPORTED.title': 'This document cannot be opened in the editor',
  'problem.NOT_SUPPORTED.message':
    'The online editor does not open documents of this type. You can download it instead.',
  'problem.FORBIDDEN.title': 'You may not open this',
  'problem.FORBIDDEN.message': "Your account does not allow this. Ask the document's owner or your administrator.",
  'problem.GENERIC.title': 'Something went wrong',
  'problem.GENERIC.message': 'Folio could not show this page. Try again in a moment.',
} as const

export type PageTextKey = keyof typeof en
export type PageText = string | { readonly one?: string; readonly other: string }
/** A language's texts: every English key, nothing more (a missing key is a type error). */
export type PageTexts = { readonly [K in PageTextKey]: PageText }
