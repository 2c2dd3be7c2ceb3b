import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { ConfirmDialog, Dialog } from '../components/dialog'
import { Icon } from '../components/icons'
import { errorText } from '../error-text'
import { formatDate } from '../format'
import { describe, itemsOf, type Entry } from '../items'
import { NamePreview } from '../components/name-preview'
import { storedName } from '../names'

export const NEW_KINDS = {
  document: { label: 'document', extension: '.docx' },
  spreadsheet: { label: 'spreadsheet', extension: '.xlsx' },
  presentation: { label: 'presentation', extension: '.pptx' },
} as const
export type NewKind = keyof typeof NEW_KINDS
export const NEW_KIND_ORDER: NewKind[] = ['document', 'spreadsheet', 'presentation']

/** A new blank document, spreadsheet or presentation in `folder`. */
export function CreateDialog(props: {
  kind: NewKind
  folder: string
  /** An online editor is connected: the new file opens in it. */
  hasEditor: boolean
  onClose: () => void
  onCreated: (file: api.FileItem) => void
}) {
  const { label, extension } = NEW_KINDS[props.kind]
  const [name, setName] = useState(`New ${label}`)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.select(), [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const base = name.trim().replace(new RegExp(`\\${extension}$`, 'i'), '')
    if (!base) return setError('Enter a name.')
    setBusy(true)
    try {
      props.onCreated(await api.createFile(storedName(base + extension) ?? base + extension, props.folder))
    } catch (failure) {
      setError(errorText(failure))
      setBusy(false)
    }
  }

  return (
    <Dialog title={`New ${label}`} onClose={props.onClose}>
      <form onSubmit={submit}>
        <label for="new-file-name">Name</label>
        <div class="with-suffix">
          <input
            id="new-file-name"
            ref={input}
            value={name}
            required
            aria-describedby="new-file-extension new-file-preview"
            aria-invalid={error ? true : undefined}
            onInput={(event) => setName(event.currentTarget.value)}
          />
          <span id="new-file-extension" class="suffix">
            {extension}
          </span>
        </div>
        <NamePreview
          id="new-file-preview"
          wanted={name.trim().replace(new RegExp(`\\${extension}$`, 'i'), '') + extension}
        />
        <FormError text={error} />
        <p class="hint" id="new-file-what">
          {props.hasEditor
            ? `Creates an empty ${label} here and opens it in the editor in a new tab.`
            : `Creates an empty ${label} here. No online editor is connected to Folio, so download it to write in it with an office app, then upload it again as a new version.`}
        </p>
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="button primary" disabled={busy}>
            Create
          </button>
        </div>
      </form>
    </Dialog>
  )
}

/** A new folder in `parent`. */
export function NewFolderDialog(props: {
  parent: string
  onClose: () => void
  onCreated: (folder: api.FolderItem) => void
}) {
  const [name, setName] = useState('New folder')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.select(), [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const title = name.trim()
    if (!title) return setError('Enter a name.')
    setBusy(true)
    try {
      props.onCreated(await api.createFolder(props.parent, storedName(title) ?? title))
    } catch (failure) {
      setError(errorText(failure))
      setBusy(false)
    }
  }

  return (
    <Dialog title="New folder" onClose={props.onClose}>
      <form onSubmit={submit}>
        <label for="new-folder-name">Folder name</label>
        <input
          id="new-folder-name"
          ref={input}
          value={name}
          required
          aria-invalid={error ? true : undefined}
          aria-describedby="new-folder-preview"
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <NamePreview id="new-folder-preview" wanted={name} />
        <FormError text={error} />
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="button primary" disabled={busy}>
            Create folder
          </button>
        </div>
      </form>
    </Dialog>
  )
}

function FormError(props: { text: string }) {
  if (!props.text) return null
  return (
    <p class="form-error" role="alert">
      {props.text}
    </p>
  )
}

/** Moves rows to the trash, or (from the trash, `forever`) deletes them for good. */
export function DeleteDialog(props: {
  entries: Entry[]
  forever: boolean
  onClose: () => void
  onDeleted: () => void
}) {
  const [only] = props.entries
  const one = props.entries.length === 1 && only
  const what = one ? (only.kind === 'file' ? 'this file' : 'this folder') : `these ${props.entries.length} items`
  return (
    <ConfirmDialog
      title={props.forever ? `Delete ${what} forever?` : `Delete ${what}?`}
      confirmLabel={props.forever ? 'Delete forever' : 'Delete'}
      tone="danger"
      action={async () => {
        await api.deleteItems(itemsOf(props.entries), props.forever)
        props.onDeleted()
      }}
      errorText={errorText}
      onClose={props.onClose}
    >
      <p>
        {one ? (
          <>
            “<span class="file-name">{only.item.title}</span>”
          </>
        ) : (
          `${props.entries.length} items`
        )}{' '}
        {props.forever
          ? 'and all versions will be deleted for good. This cannot be undone.'
          : `will be moved to the trash${one && only.kind === 'folder' ? ' with everything in it' : ''}. You can restore ${one ? 'it' : 'them'} from the Trash until it is emptied or its date to be deleted for good, shown there, has come.`}
      </p>
    </ConfirmDialog>
  )
}

/** Deletes everything in the trash for good. */
export function EmptyTrashDialog(props: { onClose: () => void; onEmptied: () => void }) {
  return (
    <ConfirmDialog
      title="Empty the trash?"
      confirmLabel="Empty trash"
      tone="danger"
      action={async () => {
        await api.emptyTrash()
        props.onEmptied()
      }}
      errorText={errorText}
      onClose={props.onClose}
    >
      <p>Everything in the trash, with all its versions, will be deleted for good. This cannot be undone.</p>
    </ConfirmDialog>
  )
}

/** 'Locked by Ann since 12 May, 10:04' as far as the lock was recorded. */
export function lockDescription(file: api.FileItem): string {
  const by = file.lockedBy?.displayName ? ` by ${file.lockedBy.displayName}` : ''
  const since = file.lockedAt ? ` since ${formatDate(file.lockedAt)}` : ''
  return `Locked by an online editor${by}${since}`
}

export function ReleaseLockDialog(props: { file: api.FileItem; onClose: () => void; onReleased: () => void }) {
  return (
    <ConfirmDialog
      title="Release the lock?"
      confirmLabel="Release lock"
      tone="danger"
      action={async () => {
        await api.releaseLock(props.file.id)
        props.onReleased()
      }}
      errorText={errorText}
      onClose={props.onClose}
    >
      <p>
        “<span class="file-name">{props.file.title}</span>” is locked by an online editor
        {props.file.lockedBy?.displayName ? ` of ${props.file.lockedBy.displayName}` : ''}
        {props.file.lockedAt ? ` since ${formatDate(props.file.lockedAt)}` : ''}. Release it only if that editor was
        closed: an editor still open loses the lock and must reload, and changes it has not saved yet may be lost.
      </p>
    </ConfirmDialog>
  )
}

interface PickerPlace {
  id: string
  title: string
}

/**
 * "Move to": the reader walks their folders (starting at the top of Documents) and moves
 * the rows into the one open. The moved folders themselves are not offered (a folder cannot
 * go inside itself).
 */
export function MoveDialog(props: { entries: Entry[]; onClose: () => void; onMoved: (destination: string) => void }) {
  const [trail, setTrail] = useState<PickerPlace[]>([{ id: '@my', title: 'Documents' }])
  const [folders, setFolders] = useState<api.FolderItem[] | undefined>(undefined)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const here = trail[trail.length - 1] ?? { id: '@my', title: 'Documents' }
  const moving = new Set(props.entries.filter((e) => e.kind === 'folder').map((e) => e.item.id))

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
      .then((page) => {
        if (current) setFolders(page.folders)
      })
      .catch((failure: unknown) => current && setError(errorText(failure)))
    return () => {
      current = false
    }
  }, [here.id])

  const move = async () => {
    setBusy(true)
    try {
      await api.moveItems(itemsOf(props.entries), here.id)
      props.onMoved(here.title)
    } catch (failure) {
      setError(errorText(failure))
      setBusy(false)
    }
  }

  return (
    <Dialog title={`Move ${describe(props.entries)} to`} onClose={props.onClose}>
      <nav aria-label="Folder to move to" class="picker-trail">
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
        {(folders ?? [])
          .filter((folder) => !moving.has(folder.id))
          .map((folder) => (
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
        {folders !== undefined && folders.filter((f) => !moving.has(f.id)).length === 0 ? (
          <li class="hint">No folders here.</li>
        ) : null}
      </ul>
      <FormError text={error} />
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" class="button primary" disabled={busy || folders === undefined} onClick={move}>
          Move here
        </button>
      </div>
    </Dialog>
  )
}
