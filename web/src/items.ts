import type { FileItem, FolderItem, Items } from './api'
import { t } from './i18n'

/** A row of a folder's list: a file or a folder. */
export type Entry = { kind: 'file'; item: FileItem } | { kind: 'folder'; item: FolderItem }

/** A row's key, unique across files and folders ('file:<id>', 'folder:<id>'). */
export function keyOf(entry: Entry): string {
  return `${entry.kind}:${entry.item.id}`
}

/** The ids of some rows, as the file operations take them. */
export function itemsOf(entries: readonly Entry[]): Items {
  return {
    fileIds: entries.filter((e) => e.kind === 'file').map((e) => e.item.id),
    folderIds: entries.filter((e) => e.kind === 'folder').map((e) => e.item.id),
  }
}

/** "Report.docx", or "3 items". */
export function describe(entries: readonly Entry[]): string {
  const [only] = entries
  if (entries.length === 1 && only) return only.item.title
  return t('items.count', { count: entries.length })
}

/** The media type rows carry while dragged inside the page (never files from outside). */
export const DRAG_TYPE = 'application/x-folio-items'

/** Items read back from a drop, or undefined when it carried none of ours. */
export function droppedItems(event: DragEvent): Items | undefined {
  const text = event.dataTransfer?.getData(DRAG_TYPE)
  if (!text) return undefined
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== 'object' || parsed === null) return undefined
    const fileIds =
      'fileIds' in parsed && Array.isArray(parsed.fileIds)
        ? parsed.fileIds.filter((v): v is string => typeof v === 'string')
        : []
    const folderIds =
      'folderIds' in parsed && Array.isArray(parsed.folderIds)
        ? parsed.folderIds.filter((v): v is string => typeof v === 'string')
        : []
    return { fileIds, folderIds }
  } catch {
    return undefined
  }
}

/** True while a drag of our rows is over the element. */
export function carriesItems(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes(DRAG_TYPE)
}
