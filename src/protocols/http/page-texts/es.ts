import type { PageTexts } from './en.js'

export const es: PageTexts = {
  'page.home': 'Volver a sus documentos',
  'page.downloadIt': 'Descargarlo',
  'page.versions': 'Sus versiones',
  'link.sharedBy': 'Compartido por',
  'link.viewOnly': 'Solo lectura',
  'link.download': 'Descargar',
  'link.downloadNamed': 'Descargar {name}',
  'link.openInEditor': 'Abrir en el editor',
  'link.guestName': 'Su nombre (lo ven quienes editan con usted)',
  'link.open': 'Abrir',
  'link.crumbs': 'Carpetas',
  'link.previewOf': 'Vista previa de {name}',
  'link.contentsOf': 'Contenido de {name}',
  'link.noPreview': 'No hay vista previa de este tipo de archivo. Descárguelo para abrirlo.',
  'link.noConverter':
    'La vista previa de este documento necesita LibreOffice, que no se está ejecutando en este Folio. Descargue el documento para abrirlo.',
  'size.bytes': { one: '{count} byte', other: '{count} bytes' },
  'link.folder': 'Carpeta',
  'link.empty': 'Esta carpeta está vacía.',
  'link.folders': { one: '{count} carpeta', other: '{count} carpetas' },
  'link.files': { one: '{count} archivo', other: '{count} archivos' },
  'link.hidden': { one: 'No se muestra {count} elemento más.', other: 'No se muestran {count} elementos más.' },
  'problem.NOT_FOUND.title': 'Este documento no está aquí',
  'problem.NOT_FOUND.message':
    'Puede que se haya eliminado o renombrado, o que el enlace sea incorrecto. Tampoco se pueden abrir documentos de otras personas.',
  'problem.UNKNOWN_PATH.title': 'Aquí no hay ninguna página',
  'problem.UNKNOWN_PATH.message': 'Puede que la dirección esté mal escrita o que la página se haya movido.',
  'problem.NO_EDITOR.title': 'No hay editor en línea',
  'problem.NO_EDITOR.message':
    'Este Folio no tiene ningún editor en línea conectado, así que los documentos no se pueden abrir en el navegador. Aun así puede descargarlos y trabajar con ellos en su ordenador. Su administrador puede conectar un editor.',
  'problem.EDITOR_UNAVAILABLE.title': 'El editor no puede abrir este documento',
  'problem.EDITOR_UNAVAILABLE.message':
    'El editor en línea no puede abrir documentos de este tipo, o no responde. Inténtelo más tarde o descargue el documento.',
  'problem.NOT_SUPPORTED.title': 'Este documento no se puede abrir en el editor',
  'problem.NOT_SUPPORTED.message': 'El editor en línea no abre documentos de este tipo. Puede descargarlo en su lugar.',
  'problem.FORBIDDEN.title': 'No puede abrir esto',
  'problem.FORBIDDEN.message': 'Su cuenta no lo permite. Pregunte al propietario del documento o a su administrador.',
  'problem.GENERIC.title': 'Algo ha ido mal',
  'problem.GENERIC.message': 'Folio no ha podido mostrar esta página. Vuelva a intentarlo en un momento.',
}
