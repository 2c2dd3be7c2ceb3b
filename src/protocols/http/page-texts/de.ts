import type { PageTexts } from './en.js'

export const de: PageTexts = {
  'page.home': 'Zurück zu Ihren Dokumenten',
  'page.downloadIt': 'Herunterladen',
  'page.versions': 'Versionen ansehen',
  'link.sharedBy': 'Geteilt von',
  'link.viewOnly': 'Nur ansehen',
  'link.download': 'Herunterladen',
  'link.downloadNamed': '{name} herunterladen',
  'link.openInEditor': 'Im Editor öffnen',
  'link.guestName': 'Ihr Name (andere Bearbeitende sehen ihn)',
  'link.open': 'Öffnen',
  'link.crumbs': 'Ordner',
  'link.previewOf': 'Vorschau von {name}',
  'link.contentsOf': 'Inhalt von {name}',
  'link.noPreview': 'Für diese Art von Datei gibt es keine Vorschau. Laden Sie sie herunter, um sie zu öffnen.',
  'link.noConverter':
    'Eine Vorschau dieses Dokuments braucht LibreOffice, das auf diesem Folio nicht läuft. Laden Sie das Dokument herunter, um es zu öffnen.',
  'size.bytes': { one: '{count} Byte', other: '{count} Byte' },
  'link.folder': 'Ordner',
  'link.empty': 'Dieser Ordner ist leer.',
  'link.folders': { one: '{count} Ordner', other: '{count} Ordner' },
  'link.files': { one: '{count} Datei', other: '{count} Dateien' },
  'link.hidden': {
    one: '{count} weiteres Element wird nicht angezeigt.',
    other: '{count} weitere Elemente werden nicht angezeigt.',
  },
  'problem.NOT_FOUND.title': 'Dieses Dokument ist nicht hier',
  'problem.NOT_FOUND.message':
    'Es wurde vielleicht gelöscht oder umbenannt, oder der Link ist falsch. Dokumente anderer Personen lassen sich ebenfalls nicht öffnen.',
  'problem.UNKNOWN_PATH.title': 'Hier gibt es keine Seite',
  'problem.UNKNOWN_PATH.message': 'Die Adresse ist vielleicht vertippt, oder die Seite wurde verschoben.',
  'problem.NO_EDITOR.title': 'Kein Online-Editor vorhanden',
  'problem.NO_EDITOR.message':
    'Mit diesem Folio ist kein Online-Editor verbunden, daher lassen sich Dokumente nicht im Browser öffnen. Sie können sie weiterhin herunterladen und auf Ihrem Computer bearbeiten. Ihre Administration kann einen Editor verbinden.',
  'problem.EDITOR_UNAVAILABLE.title': 'Der Editor kann dieses Dokument nicht öffnen',
  'problem.EDITOR_UNAVAILABLE.message':
    'Der Online-Editor kann Dokumente dieses Typs nicht öffnen, oder er antwortet nicht. Versuchen Sie es später erneut, oder laden Sie das Dokument herunter.',
  'problem.NOT_SUPPORTED.title': 'Dieses Dokument lässt sich nicht im Editor öffnen',
  'problem.NOT_SUPPORTED.message':
    'Der Online-Editor öffnet Dokumente dieses Typs nicht. Sie können es stattdessen herunterladen.',
  'problem.FORBIDDEN.title': 'Sie dürfen dies nicht öffnen',
  'problem.FORBIDDEN.message':
    'Ihr Konto erlaubt dies nicht. Fragen Sie die Person, der das Dokument gehört, oder Ihre Administration.',
  'problem.GENERIC.title': 'Etwas ist schiefgelaufen',
  'problem.GENERIC.message': 'Folio konnte diese Seite nicht anzeigen. Versuchen Sie es gleich noch einmal.',
}
