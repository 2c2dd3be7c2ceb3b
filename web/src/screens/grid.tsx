import { useState } from 'preact/hooks'
import * as api from '../api'
import { FileIcon, FolderIcon } from '../components/icons'
import { Link } from '../components/link'
import { fileKind, formatSize, splitExtension } from '../format'
import type { Entry } from '../items'
import { folderPath, previewPath } from '../router'
import { t } from '../i18n'

/** How the folder screen lists its items. */
export type ListView = 'list' | 'grid'

const VIEW_KEY = 'folio.listView'

/** The view chosen last in this browser (the list until the grid is picked). */
export function savedView(): ListView {
  try {
    return localStorage.getItem(VIEW_KEY) === 'grid' ? 'grid' : 'list'
  } catch {
    return 'list'
  }
}

/** Remembers the chosen view in this browser. */
export function saveView(view: ListView): void {
  try {
    localStorage.setItem(VIEW_KEY, view)
  } catch {
    // Storage refused (private mode): the choice lasts for this page only.
  }
}

/** List / Grid buttons; the grid is offered only while a converter makes thumbnails. */
export function ViewToggle(props: { view: ListView; onChange: (view: ListView) => void }) {
  return (
    <div class="view-toggle" role="group" aria-label={t('grid.view')}>
      {(['list', 'grid'] as const).map((view) => (
        <button
          key={view}
          type="button"
          class="button small"
          aria-pressed={props.view === view}
          onClick={() => props.onChange(view)}
        >
          {view === 'list' ? t('grid.list') : t('grid.grid')}
        </button>
      ))}
    </div>
  )
}

/** The folder's items as cards, each file with an image of its first page. */
export function ItemGrid(props: { entries: Entry[]; capabilities: api.Capabilities; inTrash: boolean }) {
  return (
    <ul class="item-grid" aria-label={t('grid.items')}>
      {props.entries.map((entry) =>
        entry.kind === 'folder' ? (
          <li key={`folder-${entry.item.id}`} class="card" data-kind="folder">
            <div class="card-image">
              <FolderIcon />
            </div>
            {props.inTrash ? (
              <span class="card-name">{entry.item.title}</span>
            ) : (
              <Link href={folderPath(entry.item.id)} class="card-name">
                {entry.item.title}
              </Link>
            )}
          </li>
        ) : (
          <li key={`file-${entry.item.id}`} class="card" data-kind="file">
            <div class="card-image">
              <Thumbnail file={entry.item} capabilities={props.capabilities} />
            </div>
            {props.inTrash ? (
              <span class="card-name">{entry.item.title}</span>
            ) : (
              <Link href={previewPath(entry.item.id)} class="card-name">
                {entry.item.title}
              </Link>
            )}
            <span class="card-meta">{formatSize(entry.item.pureContentLength)}</span>
          </li>
        ),
      )}
    </ul>
  )
}

/**
 * The image of a file's first page, loaded when it scrolls into view: the image itself for
 * an image, the converter's thumbnail for a document, the type icon when there is none or it
 * cannot be loaded.
 */
function Thumbnail(props: { file: api.FileItem; capabilities: api.Capabilities }) {
  const [failed, setFailed] = useState(false)
  const extension = splitExtension(props.file.title)[1].replace(/^\./, '').toLowerCase()
  const src =
    props.capabilities.previews[extension] === 'image'
      ? api.previewUrl(props.file.id)
      : (props.capabilities.conversions[extension] ?? []).includes('png')
        ? `${api.thumbnailUrl(props.file.id)}?v=${props.file.version}`
        : undefined
  if (!src || failed) return <FileIcon kind={fileKind(props.file.fileExst)} />
  return <img class="thumbnail" src={src} alt="" loading="lazy" onError={() => setFailed(true)} />
}
