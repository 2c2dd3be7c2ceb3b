import type { PageTexts } from './en.js'

export const fr: PageTexts = {
  'page.home': 'Retour à vos documents',
  'page.downloadIt': 'Le télécharger',
  'page.versions': 'Ses versions',
  'link.sharedBy': 'Partagé par',
  'link.viewOnly': 'Lecture seule',
  'link.download': 'Télécharger',
  'link.downloadNamed': 'Télécharger {name}',
  'link.openInEditor': "Ouvrir dans l'éditeur",
  'link.guestName': 'Votre nom (visible des autres personnes qui modifient)',
  'link.open': 'Ouvrir',
  'link.crumbs': 'Dossiers',
  'link.previewOf': 'Aperçu de {name}',
  'link.contentsOf': 'Contenu de {name}',
  'link.noPreview': "Ce type de fichier n'a pas d'aperçu. Téléchargez-le pour l'ouvrir.",
  'link.noConverter':
    "L'aperçu de ce document nécessite LibreOffice, qui ne fonctionne pas sur ce Folio. Téléchargez le document pour l'ouvrir.",
  'size.bytes': { one: '{count} octet', other: '{count} octets' },
  'link.folder': 'Dossier',
  'link.empty': 'Ce dossier est vide.',
  'link.folders': { one: '{count} dossier', other: '{count} dossiers' },
  'link.files': { one: '{count} fichier', other: '{count} fichiers' },
  'link.hidden': {
    one: "{count} autre élément n'est pas affiché.",
    other: '{count} autres éléments ne sont pas affichés.',
  },
  'problem.NOT_FOUND.title': "Ce document n'est pas ici",
  'problem.NOT_FOUND.message':
    "Il a peut-être été supprimé ou renommé, ou le lien est erroné. Les documents d'autres personnes ne peuvent pas être ouverts non plus.",
  'problem.UNKNOWN_PATH.title': "Il n'y a pas de page ici",
  'problem.UNKNOWN_PATH.message': "L'adresse est peut-être mal saisie, ou la page a été déplacée.",
  'problem.NO_EDITOR.title': 'Aucun éditeur en ligne ici',
  'problem.NO_EDITOR.message':
    "Aucun éditeur en ligne n'est connecté à ce Folio : les documents ne peuvent donc pas être ouverts dans le navigateur. Vous pouvez toujours les télécharger et les modifier sur votre ordinateur. Votre administrateur peut connecter un éditeur.",
  'problem.EDITOR_UNAVAILABLE.title': "L'éditeur ne peut pas ouvrir ce document",
  'problem.EDITOR_UNAVAILABLE.message':
    "L'éditeur en ligne ne sait pas ouvrir les documents de ce type, ou il ne répond pas. Réessayez plus tard, ou téléchargez le document.",
  'problem.NOT_SUPPORTED.title': "Ce document ne peut pas être ouvert dans l'éditeur",
  'problem.NOT_SUPPORTED.message':
    "L'éditeur en ligne n'ouvre pas les documents de ce type. Vous pouvez le télécharger à la place.",
  'problem.FORBIDDEN.title': 'Vous ne pouvez pas ouvrir ceci',
  'problem.FORBIDDEN.message':
    'Votre compte ne le permet pas. Demandez au propriétaire du document ou à votre administrateur.',
  'problem.GENERIC.title': "Un problème s'est produit",
  'problem.GENERIC.message': "Folio n'a pas pu afficher cette page. Réessayez dans un instant.",
}
