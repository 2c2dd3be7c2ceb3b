import { useEffect, useState } from 'preact/hooks'
import * as api from '../api'
import { errorText } from '../error-text'
import { t } from '../i18n'
import { itemsOf, type Entry } from '../items'
import { Dialog } from './dialog'
import { Icon } from './icons'

interface Place {
  id: string
  title: string
}

/** The words of one use of the picker ("Move … to", "Copy here"). */
export interface FolderPickerTexts {
  title: string
  trail: string
  confirm: string
  /** Said while the items go (`{title}` is the destination); nothing is said when absent. */
  busy?: (destination: string) => string
}

/**
 * A dialog where the reader walks their folders (from the top of Documents) and sends the
 * rows into the one open: Move to and Copy to. The rows' own folders are not offered (a
 * folder cannot go inside itself). `send` does the work; on success `onDone` gets the
 * destination's title, on failure the dialog stays open and says why.
 */
export function FolderPickerDialog(props: {
  entries: Entry[]
  texts: FolderPickerTexts
  send: (items: api.Items, destinationId: string) => Promise<unknown>
  onClose: () => void
  onDone: (destination: string) => void
}) {
  const [trail, setTrail] = useState<Place[]>(() => [{ id: '@my', title: t('section.documents') }])
  const [folders, setFolders] = useState<api.FolderItem[] | undefined>(undefined)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const here = trail[trail.length - 1] ?? { id: '@my', title: t('section.documents') }
  const sending = new Set(props.entries.filter((e) => e.kind === 'folder').map((e) => e.item.id))
  const offered = (folders ?? []).filter((folder) => !sending.has(folder.id))

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

  const send = async () => {
    setBusy(true)
    setError('')
    try {
      await props.send(itemsOf(props.entries), here.id)
      props.onDone(here.title)
    } catch (failure) {
      setError(errorText(failure))
      setBusy(false)
    }
  }

  return (
    <Dialog title={props.texts.title} onClose={props.onClose}>
      <nav aria-label={props.texts.trail} class="picker-trail">
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
      <ul
        class="picker-folders"
        aria-label={t('move.foldersIn', { title: here.title })}
        aria-busy={folders === undefined}
      >
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
        {folders !== undefined && offered.length === 0 ? <li class="hint">{t('move.noFolders')}</li> : null}
      </ul>
      {busy && props.texts.busy ? (
        <p class="hint" role="status">
          {props.texts.busy(here.title)}
        </p>
      ) : null}
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose}>
          {t('common.cancel')}
        </button>
        <button type="button" class="button primary" disabled={busy || folders === undefined} onClick={send}>
          {props.texts.confirm}
        </button>
      </div>
    </Dialog>
  )
}
