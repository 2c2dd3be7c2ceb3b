import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { ConfirmDialog, Dialog } from '../components/dialog'
import { FolderPickerDialog } from '../components/folder-picker'
import { Icon } from '../components/icons'
import { errorText } from '../error-text'
import { formatDate } from '../format'
import { t } from '../i18n'
import { describe, itemsOf, type Entry } from '../items'
import { NamePreview } from '../components/name-preview'
import { storedName } from '../names'

// Whole phrases per kind (not 'New ' + kind): other languages inflect the adjective.
export const NEW_KINDS = {
  document: {
    newLabel: 'newKind.document',
    createsHere: 'newKind.documentCreates',
    createsOffline: 'newKind.documentOffline',
    extension: '.docx',
  },
  spreadsheet: {
    newLabel: 'newKind.spreadsheet',
    createsHere: 'newKind.spreadsheetCreates',
    createsOffline: 'newKind.spreadsheetOffline',
    extension: '.xlsx',
  },
  presentation: {
    newLabel: 'newKind.presentation',
    createsHere: 'newKind.presentationCreates',
    createsOffline: 'newKind.presentationOffline',
    extension: '.pptx',
  },
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
  const { newLabel, createsHere, createsOffline, extension } = NEW_KINDS[props.kind]
  const [name, setName] = useState(() => t(newLabel))
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.select(), [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const base = name.trim().replace(new RegExp(`\\${extension}$`, 'i'), '')
    if (!base) return setError(t('dialogs.enterName'))
    setBusy(true)
    try {
      props.onCreated(await api.createFile(storedName(base + extension) ?? base + extension, props.folder))
    } catch (failure) {
      setError(errorText(failure))
      setBusy(false)
    }
  }

  return (
    <Dialog title={t(newLabel)} onClose={props.onClose}>
      <form onSubmit={submit}>
        <label for="new-file-name">{t('dialogs.name')}</label>
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
          {props.hasEditor ? t(createsHere) : t(createsOffline)}
        </p>
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" class="button primary" disabled={busy}>
            {t('dialogs.create')}
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
  const [name, setName] = useState(() => t('documents.newFolder'))
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.select(), [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const title = name.trim()
    if (!title) return setError(t('dialogs.enterName'))
    setBusy(true)
    try {
      props.onCreated(await api.createFolder(props.parent, storedName(title) ?? title))
    } catch (failure) {
      setError(errorText(failure))
      setBusy(false)
    }
  }

  return (
    <Dialog title={t('documents.newFolder')} onClose={props.onClose}>
      <form onSubmit={submit}>
        <label for="new-folder-name">{t('dialogs.folderName')}</label>
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
            {t('common.cancel')}
          </button>
          <button type="submit" class="button primary" disabled={busy}>
            {t('dialogs.createFolder')}
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
  const count = props.entries.length
  const title = one
    ? only.kind === 'file'
      ? t(props.forever ? 'delete.fileForeverTitle' : 'delete.fileTitle')
      : t(props.forever ? 'delete.folderForeverTitle' : 'delete.folderTitle')
    : t(props.forever ? 'delete.itemsForeverTitle' : 'delete.itemsTitle', { count })
  const rest = props.forever
    ? t('delete.foreverRest', { count })
    : one
      ? t(only.kind === 'folder' ? 'delete.folderToTrashRest' : 'delete.fileToTrashRest')
      : t('delete.itemsToTrashRest', { count })
  return (
    <ConfirmDialog
      title={title}
      confirmLabel={props.forever ? t('documents.deleteForever') : t('common.delete')}
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
          t('items.count', { count })
        )}{' '}
        {rest}
      </p>
    </ConfirmDialog>
  )
}

/** Deletes everything in the trash for good. */
export function EmptyTrashDialog(props: { onClose: () => void; onEmptied: () => void }) {
  return (
    <ConfirmDialog
      title={t('emptyTrash.title')}
      confirmLabel={t('documents.emptyTrash')}
      tone="danger"
      action={async () => {
        await api.emptyTrash()
        props.onEmptied()
      }}
      errorText={errorText}
      onClose={props.onClose}
    >
      <p>{t('emptyTrash.body')}</p>
    </ConfirmDialog>
  )
}

/** 'Locked by Ann since 12 May, 10:04' as far as the lock was recorded. */
export function lockDescription(file: api.FileItem): string {
  const name = file.lockedBy?.displayName
  const date = file.lockedAt ? formatDate(file.lockedAt) : undefined
  if (name && date) return t('lock.byNameSince', { name, date })
  if (name) return t('lock.byName', { name })
  if (date) return t('lock.since', { date })
  return t('lock.locked')
}

export function ReleaseLockDialog(props: { file: api.FileItem; onClose: () => void; onReleased: () => void }) {
  return (
    <ConfirmDialog
      title={t('release.title')}
      confirmLabel={t('release.confirm')}
      tone="danger"
      action={async () => {
        await api.releaseLock(props.file.id)
        props.onReleased()
      }}
      errorText={errorText}
      onClose={props.onClose}
    >
      <p>
        “<span class="file-name">{props.file.title}</span>” {releaseLockText(props.file)}
      </p>
    </ConfirmDialog>
  )
}

/** The lock in a sentence after the file's name, and when releasing it is safe. */
function releaseLockText(file: api.FileItem): string {
  const name = file.lockedBy?.displayName
  const date = file.lockedAt ? formatDate(file.lockedAt) : undefined
  const locked =
    name && date
      ? t('release.lockedOfSince', { name, date })
      : name
        ? t('release.lockedOf', { name })
        : date
          ? t('release.lockedSince', { date })
          : t('release.locked')
  return `${locked} ${t('release.advice')}`
}

/**
 * "Move to": the reader walks their folders (starting at the top of Documents) and moves
 * the rows into the one open.
 */
export function MoveDialog(props: { entries: Entry[]; onClose: () => void; onMoved: (destination: string) => void }) {
  return (
    <FolderPickerDialog
      entries={props.entries}
      texts={{
        title: t('move.title', { what: describe(props.entries) }),
        trail: t('move.trail'),
        confirm: t('move.here'),
      }}
      send={api.moveItems}
      onClose={props.onClose}
      onDone={props.onMoved}
    />
  )
}

/**
 * "Copy to": as Move to, copying; a name already taken there gets a free one
 * (`name (2).ext`), as a move does.
 */
export function CopyDialog(props: { entries: Entry[]; onClose: () => void; onCopied: (destination: string) => void }) {
  return (
    <FolderPickerDialog
      entries={props.entries}
      texts={{
        title: t('copy.title', { what: describe(props.entries) }),
        trail: t('copy.trail'),
        confirm: t('copy.here'),
        busy: (destination) => t('copy.busy', { title: destination }),
      }}
      send={api.copyItems}
      onClose={props.onClose}
      onDone={props.onCopied}
    />
  )
}
