import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { ConfirmDialog, Dialog } from '../components/dialog'
import { FileIcon, Icon } from '../components/icons'
import { Link } from '../components/link'
import { fileKind, formatDate, formatSize, splitExtension } from '../format'
import { announce } from '../notices'
import { UploadQueue, type Upload } from '../uploads'

/** Rows per page: the server pages, so 10,000 files cost no more than 100. */
export const PAGE_SIZE = 100
/** How often the list refreshes itself (editing and lock state change elsewhere). */
const REFRESH_MS = 15_000

type SortField = api.SortField
type SortOrder = 'ascending' | 'descending'

const NEW_KINDS = {
  document: { label: 'document', extension: '.docx' },
  spreadsheet: { label: 'spreadsheet', extension: '.xlsx' },
  presentation: { label: 'presentation', extension: '.pptx' },
} as const
type NewKind = keyof typeof NEW_KINDS
const NEW_KIND_ORDER: NewKind[] = ['document', 'spreadsheet', 'presentation']

function errorText(error: unknown): string {
  if (error instanceof api.ApiError) {
    if (error.type === 'NAME_TAKEN') return 'A file with that name already exists. Choose another name.'
    if (error.type === 'NAME_INVALID') return `That name is not allowed: ${error.message.replace(/^invalid file name: /, '')}.`
    return error.message
  }
  return 'Something went wrong. Try again.'
}

/** The documents screen: list, sort, filter, page, upload, create, rename, delete, open. */
export function DocumentsScreen(props: { capabilities: api.Capabilities; isAdmin: boolean }) {
  const [sortBy, setSortBy] = useState<SortField>('DateAndTime')
  const [sortOrder, setSortOrder] = useState<SortOrder>('descending')
  const [filterText, setFilterText] = useState('')
  const [filter, setFilter] = useState('')
  const [page, setPage] = useState(0)
  const [data, setData] = useState<api.FilePage | undefined>(undefined)
  const [loading, setLoading] = useState(true)
  const [loadError, setLoadError] = useState('')
  const [renaming, setRenaming] = useState<string | null>(null)
  const [deleting, setDeleting] = useState<api.FileItem | null>(null)
  const [releasing, setReleasing] = useState<api.FileItem | null>(null)
  const [creating, setCreating] = useState<NewKind | null>(null)
  const [uploads, setUploads] = useState<Upload[]>([])
  const [dragging, setDragging] = useState(false)
  const heading = useRef<HTMLHeadingElement>(null)
  const fileInput = useRef<HTMLInputElement>(null)
  const sequence = useRef(0)
  const dragDepth = useRef(0)
  const params = useRef({ sortBy, sortOrder, filter, page })
  params.current = { sortBy, sortOrder, filter, page }

  const load = async (options: { quiet?: boolean } = {}) => {
    const mine = ++sequence.current
    const current = params.current
    if (!options.quiet) setLoading(true)
    try {
      const result = await api.listFiles({
        startIndex: current.page * PAGE_SIZE,
        count: PAGE_SIZE,
        sortBy: current.sortBy,
        sortOrder: current.sortOrder,
        filterValue: current.filter,
      })
      if (mine !== sequence.current) return
      // A page emptied by deletes: step back to the last page that has rows.
      if (result.files.length === 0 && current.page > 0 && result.total > 0) {
        setPage(Math.max(0, Math.ceil(result.total / PAGE_SIZE) - 1))
        return
      }
      setData(result)
      setLoadError('')
    } catch (error) {
      if (mine !== sequence.current) return
      setLoadError(errorText(error))
    } finally {
      if (mine === sequence.current) setLoading(false)
    }
  }
  const loadRef = useRef(load)
  loadRef.current = load

  const queue = useMemo(
    () =>
      new UploadQueue(
        () => props.capabilities.maxFileSize,
        (file) => {
          announce(`Uploaded ${file.title}`)
          void loadRef.current({ quiet: true })
        },
      ),
    [],
  )

  useEffect(() => queue.subscribe(setUploads), [queue])
  useEffect(() => heading.current?.focus(), [])
  // A row that had focus (say, a deleted file's) is gone: put keyboard users back at the top.
  useEffect(() => {
    if (!document.activeElement || document.activeElement === document.body) heading.current?.focus()
  }, [data])
  useEffect(() => {
    void load()
  }, [sortBy, sortOrder, filter, page])

  // Filter as the user types, without a request per key press. Only a changed filter goes
  // back to the first page: on the first render nothing was typed, and a "Next page" clicked
  // within the debounce must not be undone.
  useEffect(() => {
    const wanted = filterText.trim()
    if (wanted === params.current.filter) return
    const timer = setTimeout(() => {
      setFilter(wanted)
      setPage(0)
    }, 250)
    return () => clearTimeout(timer)
  }, [filterText])

  useEffect(() => {
    const refresh = () => {
      if (document.visibilityState === 'visible') void loadRef.current({ quiet: true })
    }
    const timer = setInterval(refresh, REFRESH_MS)
    document.addEventListener('visibilitychange', refresh)
    return () => {
      clearInterval(timer)
      document.removeEventListener('visibilitychange', refresh)
    }
  }, [])

  const sortOn = (field: SortField) => {
    if (field === sortBy) {
      setSortOrder(sortOrder === 'ascending' ? 'descending' : 'ascending')
    } else {
      setSortBy(field)
      setSortOrder(field === 'AZ' ? 'ascending' : 'descending')
    }
    setPage(0)
  }

  const addFiles = (files: FileList | null | undefined) => {
    if (files && files.length > 0) queue.add(Array.from(files))
  }

  const onDrop = (event: DragEvent) => {
    event.preventDefault()
    dragDepth.current = 0
    setDragging(false)
    addFiles(event.dataTransfer?.files)
  }
  const carriesFiles = (event: DragEvent) => Array.from(event.dataTransfer?.types ?? []).includes('Files')

  const files = data?.files ?? []
  const total = data?.total ?? 0
  // The range describes the rows on screen (the loaded page), not the page being fetched.
  const shownFrom = data?.startIndex ?? 0
  const first = total === 0 ? 0 : shownFrom + 1
  const last = Math.min(total, shownFrom + (data?.files.length ?? 0))
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE))

  return (
    <section
      class={`documents${dragging ? ' dragging' : ''}`}
      onDragEnter={(event) => {
        if (!carriesFiles(event)) return
        event.preventDefault()
        dragDepth.current++
        setDragging(true)
      }}
      onDragOver={(event) => {
        if (!carriesFiles(event)) return
        event.preventDefault()
        if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy'
      }}
      onDragLeave={() => {
        dragDepth.current = Math.max(0, dragDepth.current - 1)
        if (dragDepth.current === 0) setDragging(false)
      }}
      onDrop={onDrop}
    >
      <div class="screen-head">
        <h1 ref={heading} tabIndex={-1}>
          Documents
        </h1>
        <div class="toolbar" role="group" aria-label="Add documents">
          <button type="button" class="button primary" onClick={() => fileInput.current?.click()}>
            <Icon name="upload" />
            <span>Upload files</span>
          </button>
          <input
            ref={fileInput}
            type="file"
            multiple
            class="visually-hidden"
            tabIndex={-1}
            aria-hidden="true"
            aria-label="Choose files to upload"
            onChange={(event) => {
              addFiles(event.currentTarget.files)
              event.currentTarget.value = ''
            }}
          />
          {NEW_KIND_ORDER.map((kind) => (
            <button key={kind} type="button" class="button" onClick={() => setCreating(kind)}>
              <Icon name="plus" />
              <span>New {NEW_KINDS[kind].label}</span>
            </button>
          ))}
        </div>
      </div>
      <p class="hint">Drop files anywhere on this page to upload them.</p>

      <UploadPanel uploads={uploads} onCancel={(id) => queue.cancel(id)} onClear={() => queue.clearFinished()} />

      <div class="list-controls">
        <label class="filter">
          <span class="visually-hidden">Filter by name</span>
          <input
            type="search"
            placeholder="Filter by name"
            value={filterText}
            onInput={(event) => setFilterText(event.currentTarget.value)}
          />
        </label>
        <p class="range" aria-live="polite">
          {loading && !data ? 'Loading…' : total === 0 ? 'No files' : `${first}–${last} of ${total.toLocaleString()}`}
        </p>
      </div>

      {loadError ? (
        <p class="form-error" role="alert">
          Could not load your documents: {loadError}{' '}
          <button type="button" class="button" onClick={() => void load()}>
            Retry
          </button>
        </p>
      ) : null}

      <table class="files" aria-busy={loading} aria-label="Your documents">
        <thead>
          <tr>
            <SortHeader label="Name" field="AZ" sortBy={sortBy} sortOrder={sortOrder} onSort={sortOn} class="col-name" />
            <SortHeader label="Size" field="Size" sortBy={sortBy} sortOrder={sortOrder} onSort={sortOn} class="col-size" />
            <SortHeader label="Modified" field="DateAndTime" sortBy={sortBy} sortOrder={sortOrder} onSort={sortOn} class="col-modified" />
            <th scope="col" class="col-by">
              Modified by
            </th>
            <th scope="col" class="col-status">
              Status
            </th>
            <th scope="col" class="col-actions">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {files.map((file) => (
            <FileRow
              key={file.id}
              file={file}
              capabilities={props.capabilities}
              isAdmin={props.isAdmin}
              renaming={renaming === file.id}
              onRename={() => setRenaming(file.id)}
              onRenameDone={(renamed) => {
                setRenaming(null)
                if (renamed) {
                  announce(`Renamed to ${renamed.title}`)
                  void load({ quiet: true })
                }
              }}
              onDelete={() => setDeleting(file)}
              onReleaseLock={() => setReleasing(file)}
            />
          ))}
        </tbody>
      </table>
      {!loading && files.length === 0 && !loadError ? (
        <p class="empty">
          {filter ? `No file name contains “${filter}”.` : 'No documents yet. Upload files or create a new document.'}
        </p>
      ) : null}

      {pages > 1 ? (
        <nav class="pager" aria-label="Pages">
          <button type="button" class="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <span>
            Page {page + 1} of {pages}
          </span>
          <button type="button" class="button" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
            Next page
          </button>
        </nav>
      ) : null}

      <div class="drop-overlay" aria-hidden="true">
        <p>Drop files to upload them</p>
      </div>

      {creating ? (
        <CreateDialog
          kind={creating}
          onClose={() => setCreating(null)}
          onCreated={(file) => {
            setCreating(null)
            announce(`Created ${file.title}`)
            void load({ quiet: true })
          }}
        />
      ) : null}
      {deleting ? (
        <DeleteDialog
          file={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={() => {
            announce(`Deleted ${deleting.title}`)
            setDeleting(null)
            void load({ quiet: true })
          }}
        />
      ) : null}
      {releasing ? (
        <ReleaseLockDialog
          file={releasing}
          onClose={() => setReleasing(null)}
          onReleased={() => {
            announce(`Released the lock on ${releasing.title}`)
            setReleasing(null)
            void load({ quiet: true })
          }}
        />
      ) : null}
    </section>
  )
}

function SortHeader(props: {
  label: string
  field: SortField
  sortBy: SortField
  sortOrder: SortOrder
  onSort: (field: SortField) => void
  class: string
}) {
  const active = props.sortBy === props.field
  const next = active && props.sortOrder === 'ascending' ? 'descending' : 'ascending'
  return (
    <th scope="col" class={props.class} aria-sort={active ? props.sortOrder : 'none'}>
      <button
        type="button"
        class="sort"
        onClick={() => props.onSort(props.field)}
        title={`Sort by ${props.label.toLowerCase()}, ${active ? next : 'default order'}`}
      >
        {props.label}
        <span class="sort-mark" aria-hidden="true">
          {active ? (props.sortOrder === 'ascending' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  )
}

function editorHref(file: api.FileItem, capabilities: api.Capabilities): string | undefined {
  if (capabilities.onlyofficeEditor) return `/editor/${encodeURIComponent(file.id)}`
  if (capabilities.wopiEditor) return `/wopi-host/${encodeURIComponent(file.id)}?action=edit`
  return undefined
}

function FileRow(props: {
  file: api.FileItem
  capabilities: api.Capabilities
  renaming: boolean
  onRename: () => void
  onRenameDone: (renamed?: api.FileItem) => void
  onDelete: () => void
  onReleaseLock: () => void
  isAdmin: boolean
}) {
  const { file } = props
  const kind = fileKind(file.fileExst)
  const editors = file.editing ?? []
  const href = editorHref(file, props.capabilities)
  const renameButton = useRef<HTMLButtonElement>(null)
  const wasRenaming = useRef(false)
  useEffect(() => {
    // Give focus back to the Rename button when inline renaming ends.
    if (wasRenaming.current && !props.renaming) renameButton.current?.focus()
    wasRenaming.current = props.renaming
  }, [props.renaming])

  return (
    <tr>
      <td class="col-name">
        <div class="name-cell">
          <FileIcon kind={kind} />
          {props.renaming ? (
            <RenameForm file={file} onDone={props.onRenameDone} />
          ) : (
            <div class="name-text">
              <a class="file-name" href={href ?? api.downloadUrl(file.id)} {...(href ? { target: '_blank', rel: 'noopener' } : { download: file.title })}>
                {file.title}
              </a>
              <span class="meta-line">
                {formatSize(file.pureContentLength)} · {formatDate(file.updated)}
                {file.updatedBy.displayName ? ` · ${file.updatedBy.displayName}` : ''}
              </span>
            </div>
          )}
        </div>
      </td>
      <td class="col-size">{formatSize(file.pureContentLength)}</td>
      <td class="col-modified">
        <time dateTime={file.updated}>{formatDate(file.updated)}</time>
      </td>
      <td class="col-by">{file.updatedBy.displayName}</td>
      <td class="col-status">
        {editors.length > 0 ? (
          <span class="badge editing">Editing now: {editors.map((user) => user.displayName || user.id).join(', ')}</span>
        ) : null}
        {file.lastSaveError ? (
          <span class="badge failed" title={file.lastSaveError.message}>
            Last save failed
          </span>
        ) : null}
        {file.locked ? (
          <span class="badge locked" title={lockDescription(file)}>
            <Icon name="lock" />
            Locked
          </span>
        ) : null}
        {file.locked ? (
          <button type="button" class="button small" aria-label={`Release the lock on ${file.title}`} onClick={props.onReleaseLock}>
            Release lock
          </button>
        ) : null}
      </td>
      <td class="col-actions">
        <div class="actions">
          {href ? (
            <a class="icon-button" href={href} target="_blank" rel="noopener" aria-label={`Open ${file.title} in the editor`} title="Open in the editor">
              <Icon name="open" />
            </a>
          ) : props.isAdmin ? (
            // Admins see why the editor is missing; others are not offered it at all.
            <button type="button" class="icon-button" disabled aria-label={`Open ${file.title} in the editor (no online editor is connected)`} title="No online editor is connected to Folio (see Configuration in the README)">
              <Icon name="open" />
            </button>
          ) : null}
          <a class="icon-button" href={api.downloadUrl(file.id)} download={file.title} aria-label={`Download ${file.title}`} title="Download">
            <Icon name="download" />
          </a>
          <Link href={`/versions/${encodeURIComponent(file.id)}`} class="icon-button" aria-label={`Versions of ${file.title}`} title="Versions">
            <Icon name="history" />
          </Link>
          <button ref={renameButton} type="button" class="icon-button" aria-label={`Rename ${file.title}`} title="Rename" onClick={props.onRename} disabled={props.renaming}>
            <Icon name="pencil" />
          </button>
          <button type="button" class="icon-button danger" aria-label={`Delete ${file.title}`} title="Delete" onClick={props.onDelete}>
            <Icon name="trash" />
          </button>
        </div>
      </td>
    </tr>
  )
}

function RenameForm(props: { file: api.FileItem; onDone: (renamed?: api.FileItem) => void }) {
  const [value, setValue] = useState(props.file.title)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  // Before paint, not after: a person (or a test) who starts typing at once must not
  // have the selection reset under them half-way through.
  useLayoutEffect(() => {
    const element = input.current
    if (!element) return
    element.focus()
    // Select the name without its extension, as file managers do.
    element.setSelectionRange(0, splitExtension(props.file.title)[0].length)
  }, [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const title = value.trim()
    if (title === props.file.title) return props.onDone()
    if (!title) return setError('Enter a name.')
    setBusy(true)
    try {
      props.onDone(await api.renameFile(props.file.id, title))
    } catch (failure) {
      setError(errorText(failure))
      setBusy(false)
      input.current?.focus()
    }
  }

  return (
    <form class="rename" onSubmit={submit} onKeyDown={(event) => event.key === 'Escape' && props.onDone()}>
      <input
        ref={input}
        value={value}
        aria-label={`New name for ${props.file.title}`}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `rename-error-${props.file.id}` : undefined}
        onInput={(event) => setValue(event.currentTarget.value)}
        disabled={busy}
      />
      <button type="submit" class="button primary" disabled={busy}>
        Save
      </button>
      <button type="button" class="button" onClick={() => props.onDone()}>
        Cancel
      </button>
      {error ? (
        <p id={`rename-error-${props.file.id}`} class="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  )
}

function CreateDialog(props: { kind: NewKind; onClose: () => void; onCreated: (file: api.FileItem) => void }) {
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
      props.onCreated(await api.createFile(base + extension))
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
            aria-describedby="new-file-extension"
            aria-invalid={error ? true : undefined}
            onInput={(event) => setName(event.currentTarget.value)}
          />
          <span id="new-file-extension" class="suffix">
            {extension}
          </span>
        </div>
        {error ? (
          <p class="form-error" role="alert">
            {error}
          </p>
        ) : null}
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

/** 'Locked by Ann since 12 May, 10:04' as far as the lock was recorded. */
function lockDescription(file: api.FileItem): string {
  const by = file.lockedBy?.displayName ? ` by ${file.lockedBy.displayName}` : ''
  const since = file.lockedAt ? ` since ${formatDate(file.lockedAt)}` : ''
  return `Locked by an online editor${by}${since}`
}

function ReleaseLockDialog(props: { file: api.FileItem; onClose: () => void; onReleased: () => void }) {
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
        {props.file.lockedAt ? ` since ${formatDate(props.file.lockedAt)}` : ''}. Release it only if
        that editor was closed: an editor still open loses the lock and must reload, and
        changes it has not saved yet may be lost.
      </p>
    </ConfirmDialog>
  )
}

function DeleteDialog(props: { file: api.FileItem; onClose: () => void; onDeleted: () => void }) {
  return (
    <ConfirmDialog
      title="Delete this file?"
      confirmLabel="Delete"
      tone="danger"
      action={async () => {
        await api.deleteFile(props.file.id)
        props.onDeleted()
      }}
      errorText={errorText}
      onClose={props.onClose}
    >
      <p>
        “<span class="file-name">{props.file.title}</span>” and all its versions will be deleted. This cannot be undone.
      </p>
    </ConfirmDialog>
  )
}

function UploadPanel(props: { uploads: Upload[]; onCancel: (id: number) => void; onClear: () => void }) {
  if (props.uploads.length === 0) return null
  const finished = props.uploads.some((upload) => upload.state !== 'queued' && upload.state !== 'uploading')
  return (
    <section class="uploads" aria-label="Uploads">
      <h2 class="visually-hidden">Uploads</h2>
      <ul>
        {props.uploads.map((upload) => {
          const percent = upload.size === 0 ? 0 : Math.floor((upload.loaded / upload.size) * 100)
          const running = upload.state === 'queued' || upload.state === 'uploading'
          return (
            <li key={upload.id} class={`upload ${upload.state}`} data-state={upload.state}>
              <span class="file-name">{upload.name}</span>
              {upload.state === 'failed' || upload.state === 'cancelled' ? (
                <span class="progress-placeholder" />
              ) : (
                <progress max={Math.max(upload.size, 1)} value={upload.state === 'done' ? Math.max(upload.size, 1) : upload.loaded} aria-label={`Upload of ${upload.name}`} />
              )}
              <span class="upload-status">
                {upload.state === 'queued' ? 'Waiting' : null}
                {upload.state === 'uploading' ? `${percent}%` : null}
                {upload.state === 'done' ? (upload.storedTitle && upload.storedTitle !== upload.name ? `Done, saved as ${upload.storedTitle}` : 'Done') : null}
                {upload.state === 'cancelled' ? 'Cancelled' : null}
                {upload.state === 'failed' ? <span role="alert" class="upload-error">{upload.error}</span> : null}
              </span>
              {running ? (
                <button type="button" class="button subtle" aria-label={`Cancel upload of ${upload.name}`} onClick={() => props.onCancel(upload.id)}>
                  Cancel
                </button>
              ) : null}
            </li>
          )
        })}
      </ul>
      {finished ? (
        <button type="button" class="button subtle" onClick={props.onClear}>
          Clear finished uploads
        </button>
      ) : null}
    </section>
  )
}
