import { useEffect, useState } from 'preact/hooks'
import * as api from '../api'
import { errorText } from '../error-text'
import { describe, itemsOf, type Entry } from '../items'
import { Dialog } from './dialog'
import { Icon } from './icons'

interface Place {
  id: string
  title: string
}

/**
 * "Copy to": the reader walks their folders (from the top of Documents) and copies the rows
 * into the one open. A name already taken there gets a free one (`name (2).ext`), as a move
 * does. A copied folder is not offered as a destination (a folder cannot go inside itself).
 */
export function CopyDialog(props: { entries: Entry[]; onClose: () => void; onCopied: (destination: string) => void }) {
  const [trail, setTrail] = useState<Place[]>([{ id: '@my', title: 'Documents' }])
  const [folders, setFolders] = useState<api.FolderItem[] | undefined>(undefined)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const here = trail[trail.length - 1] ?? { id: '@my', title: 'Documents' }
  const copying = new Set(props.entries.filter((e) => e.kind === 'folder').map((e) => e.item.id))
  const offered = (folders ?? []).filter((folder) => !copying.has(folder.id))

  useEffect(() => {
    let current = true
    setFolders(undefined)
    api
      .listFolder(here.id, {
        startIndex: 0,
        count: 1000,
        sortBy: 'AZ',
        sortOrder: 'ascending',
        filterValue: '',
        filterType: 'FoldersOnly',
      })
      .then((page) => current && setFolders(page.folders))
      .catch((failure: unknown) => current && setError(errorText(failure)))
    return () => {
      current = false
    }
  }, [here.id])

  const copy = async () => {
    setBusy(true)
    setError('')
    try {
      await api.copyItems(itemsOf(props.entries), here.id)
      props.onCopied(here.title)
    } catch (failure) {
      setError(errorText(failure))
      setBusy(false)
    }
  }

  return (
    <Dialog title={`Copy ${describe(props.entries)} to`} onClose={props.onClose}>
      <nav aria-label="Folder to copy to" class="picker-trail">
        {trail.map((place, index) =>
          index === trail.length - 1 ? (
            <span key={place.id} aria-current="location">
              {place.title}
            </span>
          ) : (
            <button
              key={place.id}
              type="button"
              class="link-button"
              onClick={() => setTrail(trail.slice(0, index + 1))}
            >
              {place.title}
            </button>
          ),
        )}
      </nav>
      <ul class="picker-folders" aria-label={`Folders in ${here.title}`} aria-busy={folders === undefined}>
        {offered.map((folder) => (
          <li key={folder.id}>
            <button
              type="button"
              class="picker-folder"
              onClick={() => setTrail([...trail, { id: folder.id, title: folder.title }])}
            >
              <Icon name="folder" />
              <span>{folder.title}</span>
            </button>
          </li>
        ))}
        {folders !== undefined && offered.length === 0 ? <li class="hint">No folders here.</li> : null}
      </ul>
      {busy ? (
        <p class="hint" role="status">
          Copying to {here.title}…
        </p>
      ) : null}
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" class="button primary" disabled={busy || folders === undefined} onClick={copy}>
          Copy here
        </button>
      </div>
    </Dialog>
  )
}
