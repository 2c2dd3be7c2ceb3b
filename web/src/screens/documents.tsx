import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { allowed } from '../access'
import { Breadcrumbs, type Crumb } from '../components/breadcrumbs'
import { GoneFolder, type Gone } from '../components/gone-folder'
import { Icon } from '../components/icons'
import { SearchBox } from '../components/search-box'
import { ShortcutsHelp, useListShortcuts } from '../components/list-shortcuts'
import { ShareDialog } from '../components/share-dialog'
import { SameNameDialog } from '../components/same-name-dialog'
import { UploadPanel } from '../components/upload-panel'
import { errorText } from '../error-text'
import { t, type MessageKey } from '../i18n'
import { carriesItems, describe, droppedItems, DRAG_TYPE, itemsOf, keyOf, type Entry } from '../items'
import { downloadAs } from '../downloads'
import { useLeaveWarning, usePageFileDrops } from '../file-drops'
import { announce } from '../notices'
import { reportSection } from '../section'
import { UploadQueue, type Upload } from '../uploads'
import {
  CreateDialog,
  DeleteDialog,
  EmptyTrashDialog,
  MoveDialog,
  CopyDialog,
  NEW_KIND_ORDER,
  NEW_KINDS,
  NewFolderDialog,
  ReleaseLockDialog,
  type NewKind,
} from './item-dialogs'
import { FolderGone, isGone } from './folder-gone'
import { ItemGrid, ViewToggle, savedView, saveView, type ListView } from './grid'
import { editorHref, FileRow, FolderRow, SortHeader, type Section, type SortField, type SortOrder } from './rows'

/** Rows per page: the server pages, so 10,000 files cost no more than 100. */
export const PAGE_SIZE = 100
/** How often the list refreshes itself (editing, lock and sharing state change elsewhere). */
const REFRESH_MS = 15_000

/** The dialog open over the list, if any. */
type Open =
  | { kind: 'create'; newKind: NewKind }
  | { kind: 'new-folder' }
  | { kind: 'delete'; entries: Entry[] }
  | { kind: 'move'; entries: Entry[] }
  | { kind: 'copy'; entries: Entry[] }
  | { kind: 'share'; entry: Entry }
  | { kind: 'release'; file: api.FileItem }
  | { kind: 'empty-trash' }

const SECTION_TITLES: Record<string, MessageKey> = {
  '@my': 'section.documents',
  '@share': 'section.shared',
  '@trash': 'section.trash',
}

/** ONLYOFFICE's FolderType of the "Shared with me" section, which a sharee's folders carry. */
const SHARE_ROOT_TYPE = 6
/** ONLYOFFICE's FolderType of the trash, which a deleted folder's listing carries. */
const TRASH_ROOT_TYPE = 3

/** The section on screen; a folder id is 'share' once its listing says it was reached through a share. */
function sectionOf(folder: string, current: api.FolderItem | undefined): Section {
  if (folder === '@share') return 'share'
  if (folder === '@trash') return 'trash'
  return current?.rootFolderType === SHARE_ROOT_TYPE ? 'share' : 'my'
}

/**
 * A folder's screen: the top of one's documents, a folder inside it, "Shared with me" or
 * the trash. Lists folders then files (sort, filter, page), uploads and creates into the
 * folder, and offers on each row what the reader's access allows: open, download, share,
 * move (dialog or drag onto a folder or breadcrumb), rename, delete to the trash, restore.
 */
export function DocumentsScreen(props: {
  folder: string
  capabilities: api.Capabilities
  isAdmin: boolean
  selfId: string
}) {
  const [sortBy, setSortBy] = useState<SortField>('DateAndTime')
  const [sortOrder, setSortOrder] = useState<SortOrder>('descending')
  const [filterText, setFilterText] = useState('')
  // The grid of thumbnails needs a converter; without one the list is the only view.
  const [view, setView] = useState<ListView>(savedView)
  const grid = view === 'grid' && props.capabilities.converter
  const [filter, setFilter] = useState('')
  // "Shared by me": Folio filters the whole folder, so the pages and the total count only those.
  const [sharedOnly, setSharedOnly] = useState(false)
  const [page, setPage] = useState(0)
  const [data, setData] = useState<api.FolderPage | undefined>(undefined)
  // Which folder `data` was read from: the previous folder's page is on screen for a moment
  // after navigating, and its access must not decide this folder's buttons.
  const [dataFolder, setDataFolder] = useState('')
  const loadedFolder = dataFolder === props.folder ? data?.current : undefined
  const section = sectionOf(props.folder, loadedFolder)
  const [loading, setLoading] = useState(true)
  const [loadError, setLoadError] = useState('')
  // The folder on screen can no longer be read (access removed, deleted for good).
  const [gone, setGone] = useState(false)
  // The item just made here: scrolled to and highlighted once the list shows it.
  const [made, setMade] = useState<string | undefined>(undefined)
  const [renaming, setRenaming] = useState<string | null>(null)
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  const [open, setOpen] = useState<Open | null>(null)
  const [path, setPath] = useState<Crumb[] | undefined>(undefined)
  const [uploads, setUploads] = useState<Upload[]>([])
  const heading = useRef<HTMLHeadingElement>(null)
  const fileInput = useRef<HTMLInputElement>(null)
  const table = useRef<HTMLTableElement>(null)
  const [helpOpen, setHelpOpen] = useState(false)
  const sequence = useRef(0)
  const params = useRef({ sortBy, sortOrder, filter, sharedOnly, page, folder: props.folder })
  params.current = { sortBy, sortOrder, filter, sharedOnly, page, folder: props.folder }

  const load = async (options: { quiet?: boolean } = {}) => {
    const mine = ++sequence.current
    const current = params.current
    if (!options.quiet) setLoading(true)
    try {
      const result = await api.listFolder(current.folder, {
        startIndex: current.page * PAGE_SIZE,
        count: PAGE_SIZE,
        sortBy: current.sortBy,
        sortOrder: current.sortOrder,
        filterValue: current.filter,
        sharedByMe: current.sharedOnly,
      })
      if (mine !== sequence.current) return
      const rows = result.files.length + result.folders.length
      // A page emptied by deletes: step back to the last page that has rows.
      if (rows === 0 && current.page > 0 && result.total > 0) {
        setPage(Math.max(0, Math.ceil(result.total / PAGE_SIZE) - 1))
        return
      }
      setData(result)
      setDataFolder(current.folder)
      setLoadError('')
      setGone(false)
    } catch (error) {
      if (mine !== sequence.current) return
      if (isGone(error) && !SECTION_TITLES[current.folder]) {
        setGone(true)
        return
      }
      setLoadError(error instanceof api.ApiError && error.status === 404 ? t('documents.loadGone') : errorText(error))
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
          announce(t('documents.uploaded', { title: file.title }))
          void loadRef.current({ quiet: true })
        },
      ),
    [],
  )

  useEffect(() => queue.subscribe(setUploads), [queue])

  // Another folder: start at its first page, unfiltered, nothing selected.
  const shownFolder = useRef(props.folder)
  useEffect(() => {
    heading.current?.focus()
    if (shownFolder.current === props.folder) return
    shownFolder.current = props.folder
    setData(undefined)
    setGone(false)
    setSelected(new Set())
    setRenaming(null)
    setFilterText('')
    setFilter('')
    setSharedOnly(false)
    setPage(0)
  }, [props.folder])

  // The breadcrumbs: the section, then each folder down to this one.
  useEffect(() => {
    const title = SECTION_TITLES[props.folder]
    if (title) return setPath([{ folder: props.folder, title: t(title) }])
    setPath(undefined)
    let current = true
    api.folderPath(props.folder).then(
      (folders) => {
        if (!current) return
        // A sharee's way starts at "Shared with me"; an owner's at their documents.
        reportSection(props.folder, folders[0]?.id === '@share' ? '@share' : '@my')
        setPath(
          folders.map((f, index) => {
            if (f.id === '@share') return { folder: '@share', title: t('section.shared') }
            return index === 0 ? { folder: '@my', title: t('section.documents') } : { folder: f.id, title: f.title }
          }),
        )
      },
      // Someone else's folder: its way down is not the reader's to see.
      () => {
        if (!current) return
        reportSection(props.folder, '@share')
        setPath([{ folder: '@share', title: t('section.shared') }])
      },
    )
    return () => {
      current = false
    }
  }, [props.folder])

  // Show what was just made: scroll its row into view once the list has it. The highlight
  // fades by itself (CSS) and is dropped on the next folder.
  useEffect(() => {
    if (!made) return
    const row = document.querySelector('tr.just-made')
    if (row) row.scrollIntoView({ block: 'center', behavior: 'smooth' })
  }, [made, data])
  useEffect(() => setMade(undefined), [props.folder])

  // A row that had focus (say, a deleted file's) is gone: put keyboard users back at the top.
  useEffect(() => {
    if (!document.activeElement || document.activeElement === document.body) heading.current?.focus()
  }, [data])
  useEffect(() => {
    void load()
  }, [sortBy, sortOrder, filter, sharedOnly, page, props.folder])

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

  const entries: Entry[] = [
    ...(data?.folders ?? []).map((item): Entry => ({ kind: 'folder', item })),
    ...(data?.files ?? []).map((item): Entry => ({ kind: 'file', item })),
  ]
  const chosen = entries.filter((entry) => selected.has(keyOf(entry)))
  // Adding is for a folder (one's own, or one shared with edit access), never a section
  // of others' items or the trash; nothing is offered before the folder's access is known.
  // A folder that went to the trash (say, reached again with Back) or is gone altogether
  // when it is opened (one that goes while on screen keeps its rows and says why below).
  // A trashed folder reached by Back or a bookmark: where it went, and no live controls.
  const trashedView: Gone | undefined =
    loadedFolder?.rootFolderType === TRASH_ROOT_TYPE && props.folder !== '@trash'
      ? {
          kind: 'trashed',
          title: loadedFolder.title,
          ...(loadedFolder.originTitle ? { originTitle: loadedFolder.originTitle } : {}),
        }
      : undefined
  const inFolder = props.folder !== '@share' && section !== 'trash' && trashedView === undefined
  const mayAdd = inFolder && loadedFolder !== undefined && allowed(loadedFolder.access).rename
  const sectionKey = SECTION_TITLES[props.folder]
  const title = sectionKey ? t(sectionKey) : (data?.current.title ?? t('common.folder'))
  // A section's crumb is named in the language on screen now, not the one it was read in.
  const named = (path ?? []).map((crumb) => {
    const key = SECTION_TITLES[crumb.folder]
    return key ? { ...crumb, title: t(key) } : crumb
  })
  const crumbs =
    named.length > 0 && !SECTION_TITLES[props.folder]
      ? [...named.filter((crumb) => crumb.folder !== props.folder), { folder: props.folder, title }]
      : named

  const [sameName, setSameName] = useState<{ files: File[]; folder: string } | null>(null)
  // Files named like one already listed here are held back for a question: a new version
  // of that file, or both kept. The rest go up at once.
  const addFiles = (files: FileList | null | undefined) => {
    if (!files || files.length === 0) return
    const listed = new Set(dataFolder === props.folder ? (data?.files ?? []).map((f) => f.title.toLowerCase()) : [])
    const picked = Array.from(files)
    const clashing = picked.filter((file) => listed.has(file.name.toLowerCase()))
    const fresh = picked.filter((file) => !listed.has(file.name.toLowerCase()))
    if (fresh.length > 0) queue.add(fresh, props.folder)
    if (clashing.length > 0) setSameName({ files: clashing, folder: props.folder })
  }

  const fail = (error: unknown) => {
    announce(errorText(error), 'error')
    void load({ quiet: true })
  }

  const done = (message: string) => {
    announce(message)
    setSelected(new Set())
    void load({ quiet: true })
  }

  const moveTo = async (items: api.Items, destination: string, destinationTitle: string) => {
    const folderIds = items.folderIds.filter((id) => id !== destination)
    const count = folderIds.length + items.fileIds.length
    if (count === 0) return
    try {
      await api.moveItems({ fileIds: items.fileIds, folderIds }, destination)
      done(t('documents.movedCount', { count, destination: destinationTitle }))
    } catch (error) {
      fail(error)
    }
  }

  const restore = async (picked: Entry[]) => {
    try {
      await api.restoreItems(itemsOf(picked))
      done(t('documents.restored', { what: describe(picked) }))
    } catch (error) {
      fail(error)
    }
  }

  // One file downloads as itself; anything more (or any folder) as one zip archive, so the
  // browser asks once and folders keep their contents.
  const download = (picked: Entry[]) => {
    const [only] = picked
    if (only === undefined) return
    if (picked.length === 1 && only.kind === 'file') return downloadAs(api.downloadUrl(only.item.id), only.item.title)
    const ids = (kind: Entry['kind']) => picked.filter((entry) => entry.kind === kind).map((entry) => entry.item.id)
    const name = picked.length === 1 ? `${only.item.title}.zip` : `${t('section.documents')}.zip`
    downloadAs(api.archiveUrl({ folderIds: ids('folder'), fileIds: ids('file') }), name)
  }

  const select = (entry: Entry, on: boolean) => {
    const next = new Set(selected)
    if (on) next.add(keyOf(entry))
    else next.delete(keyOf(entry))
    setSelected(next)
  }

  // Own rows in one's own folders can be dragged: the whole selection when the row is in it.
  const dragProps = (entry: Entry): Record<string, unknown> => {
    if (section !== 'my' || !allowed(entry.item.access).manage) return {}
    return {
      draggable: true,
      onDragStart: (event: DragEvent) => {
        const moving = selected.has(keyOf(entry)) ? chosen : [entry]
        event.dataTransfer?.setData(DRAG_TYPE, JSON.stringify(itemsOf(moving)))
        if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move'
      },
    }
  }

  const dropProps = (folder: string, folderTitle: string): Record<string, unknown> => ({
    onDragOver: (event: DragEvent) => {
      if (!carriesItems(event)) return
      event.preventDefault()
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'move'
      if (event.currentTarget instanceof HTMLElement) event.currentTarget.classList.add('drop-target')
    },
    onDragLeave: (event: DragEvent) => {
      if (event.currentTarget instanceof HTMLElement) event.currentTarget.classList.remove('drop-target')
    },
    onDrop: (event: DragEvent) => {
      if (event.currentTarget instanceof HTMLElement) event.currentTarget.classList.remove('drop-target')
      const items = droppedItems(event)
      if (!items) return
      event.preventDefault()
      event.stopPropagation()
      void moveTo(items, folder, folderTitle)
    },
  })

  // Files dropped anywhere on the page go into the folder on screen.
  const dragging = usePageFileDrops(mayAdd, addFiles)
  useLeaveWarning(uploads.some((upload) => upload.state === 'queued' || upload.state === 'uploading'))

  const total = data?.total ?? 0
  // The range describes the rows on screen (the loaded page), not the page being fetched.
  const shownFrom = data?.startIndex ?? 0
  const first = total === 0 ? 0 : shownFrom + 1
  const last = Math.min(total, shownFrom + entries.length)
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE))
  const allChosen = entries.length > 0 && chosen.length === entries.length
  const chosenManageable = chosen.every((entry) => allowed(entry.item.access).manage)
  const chosenCopyable = chosen.every((entry) => allowed(entry.item.access).copy)
  // The access to the folder on screen, for what full access allows inside it (a section
  // such as Shared with me is no folder: nothing in it is deleted by a sharee).
  const parentAccess = SECTION_TITLES[props.folder] ? undefined : loadedFolder?.access
  const chosenTrashable = chosen.every((entry) => allowed(entry.item.access, parentAccess).trash)

  // The list's keyboard shortcuts: each acts on the selection, else on the row with focus,
  // and offers only what the row's buttons offer.
  const entryOf = (key: string | undefined) => entries.find((entry) => keyOf(entry) === key)
  useListShortcuts(table, {
    selectAll: () => setSelected(new Set(entries.map(keyOf))),
    clearSelection: () => {
      if (selected.size === 0) return false
      setSelected(new Set())
      return true
    },
    rename: (key) => {
      const [only] = chosen
      const entry = entryOf(key) ?? (chosen.length === 1 ? only : undefined)
      if (!entry || section === 'trash' || !allowed(entry.item.access, parentAccess).rename) return
      setRenaming(keyOf(entry))
    },
    remove: (key) => {
      const row = entryOf(key)
      const picked = chosen.length > 0 && (row === undefined || selected.has(keyOf(row))) ? chosen : row ? [row] : []
      if (picked.length === 0) return
      const may = section === 'trash' || picked.every((entry) => allowed(entry.item.access, parentAccess).trash)
      if (may) setOpen({ kind: 'delete', entries: picked })
    },
    help: () => setHelpOpen(true),
  })

  const rowProps = (entry: Entry) => ({
    section,
    justMade: made === keyOf(entry),
    parentAccess,
    selected: selected.has(keyOf(entry)),
    onSelect: (on: boolean) => select(entry, on),
    renaming: renaming === keyOf(entry),
    onRename: () => setRenaming(keyOf(entry)),
    onRenameDone: (renamed?: { title: string }) => {
      setRenaming(null)
      if (renamed) {
        announce(t('documents.renamedTo', { title: renamed.title }))
        void load({ quiet: true })
      }
    },
    onDelete: () => setOpen({ kind: 'delete', entries: [entry] }),
    onMove: () => setOpen({ kind: 'move', entries: [entry] }),
    onCopy: () => setOpen({ kind: 'copy', entries: [entry] }),
    onShare: () => setOpen({ kind: 'share', entry }),
    onRestore: () => void restore([entry]),
    drag: dragProps(entry),
  })

  if (gone) return <FolderGone />
  if (trashedView) return <GoneFolder gone={trashedView} />

  return (
    <section class={`documents${dragging ? ' dragging' : ''}`}>
      <Breadcrumbs
        crumbs={crumbs}
        dropTarget={(folder) =>
          folder === '@my' || !SECTION_TITLES[folder]
            ? dropProps(folder, crumbs.find((c) => c.folder === folder)?.title ?? '')
            : {}
        }
      />
      <div class="screen-head">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {mayAdd ? (
          <div class="toolbar" role="group" aria-label={t('documents.addGroup')}>
            <button type="button" class="button primary" onClick={() => fileInput.current?.click()}>
              <Icon name="upload" />
              <span>{t('documents.uploadFiles')}</span>
            </button>
            <input
              ref={fileInput}
              type="file"
              multiple
              class="visually-hidden"
              tabIndex={-1}
              aria-hidden="true"
              aria-label={t('documents.chooseFiles')}
              onChange={(event) => {
                addFiles(event.currentTarget.files)
                event.currentTarget.value = ''
              }}
            />
            {NEW_KIND_ORDER.map((kind) => (
              <button
                key={kind}
                type="button"
                class="button"
                onClick={() => setOpen({ kind: 'create', newKind: kind })}
              >
                <Icon name="plus" />
                <span>{t(NEW_KINDS[kind].newLabel)}</span>
              </button>
            ))}
            <button type="button" class="button" onClick={() => setOpen({ kind: 'new-folder' })}>
              <Icon name="folder" />
              <span>{t('documents.newFolder')}</span>
            </button>
          </div>
        ) : null}
        {section === 'trash' ? (
          <div class="toolbar">
            <button
              type="button"
              class="button danger"
              disabled={total === 0}
              onClick={() => setOpen({ kind: 'empty-trash' })}
            >
              <Icon name="trash" />
              <span>{t('documents.emptyTrash')}</span>
            </button>
          </div>
        ) : null}
      </div>
      {mayAdd ? <p class="hint">{t('documents.dropHint')}</p> : null}
      {section === 'trash' ? <p class="hint">{t('documents.trashHint')}</p> : null}

      {sameName ? (
        <SameNameDialog
          names={sameName.files.map((file) => file.name)}
          onNewVersion={() => {
            queue.add(sameName.files, sameName.folder, false)
            setSameName(null)
          }}
          onKeepBoth={() => {
            queue.add(sameName.files, sameName.folder, true)
            setSameName(null)
          }}
          onClose={() => setSameName(null)}
        />
      ) : null}
      <UploadPanel uploads={uploads} onCancel={(id) => queue.cancel(id)} onClear={() => queue.clearFinished()} />

      <SearchBox capabilities={props.capabilities} />

      <div class="list-controls">
        <label class="filter">
          <span class="visually-hidden">{t('documents.filterByName')}</span>
          <input
            type="search"
            placeholder={t('documents.filterByName')}
            value={filterText}
            onInput={(event) => setFilterText(event.currentTarget.value)}
          />
        </label>
        {section === 'my' ? (
          <label class="checkbox shared-filter">
            <input
              type="checkbox"
              checked={sharedOnly}
              onChange={(event) => {
                setSharedOnly(event.currentTarget.checked)
                setPage(0)
                setSelected(new Set())
              }}
            />
            {t('documents.sharedByMe')}
          </label>
        ) : null}
        {props.capabilities.converter ? (
          <ViewToggle
            view={view}
            onChange={(next) => {
              setView(next)
              saveView(next)
            }}
          />
        ) : null}
        <button
          type="button"
          class="icon-button shortcuts-button"
          aria-label={t('shortcuts.title')}
          title={t('shortcuts.buttonTitle')}
          aria-keyshortcuts="?"
          onClick={() => setHelpOpen(true)}
        >
          <Icon name="keyboard" />
        </button>
        <p class="range" aria-live="polite">
          {loading && !data
            ? t('common.loading')
            : total === 0
              ? t('documents.noFiles')
              : t('documents.range', { first, last, total })}
        </p>
      </div>

      {chosen.length > 0 ? (
        <div class="bulk-bar" role="group" aria-label={t('documents.selectedItems')}>
          <span>{t('documents.selectedCount', { count: chosen.length })}</span>
          {section === 'trash' ? (
            <>
              <button type="button" class="button" onClick={() => void restore(chosen)}>
                <Icon name="restore" />
                <span>{t('common.restore')}</span>
              </button>
              <button type="button" class="button danger" onClick={() => setOpen({ kind: 'delete', entries: chosen })}>
                <Icon name="trash" />
                <span>{t('documents.deleteForever')}</span>
              </button>
            </>
          ) : (
            <>
              {chosenManageable ? (
                <button type="button" class="button" onClick={() => setOpen({ kind: 'move', entries: chosen })}>
                  <Icon name="move" />
                  <span>{t('common.moveTo')}</span>
                </button>
              ) : null}
              {chosenCopyable ? (
                <button type="button" class="button" onClick={() => setOpen({ kind: 'copy', entries: chosen })}>
                  <Icon name="copy" />
                  <span>{t('copy.copyTo')}</span>
                </button>
              ) : null}
              <button type="button" class="button" onClick={() => download(chosen)}>
                <Icon name="download" />
                <span>{t('common.download')}</span>
              </button>
              {chosenTrashable ? (
                <button
                  type="button"
                  class="button danger"
                  onClick={() => setOpen({ kind: 'delete', entries: chosen })}
                >
                  <Icon name="trash" />
                  <span>{t('common.delete')}</span>
                </button>
              ) : null}
            </>
          )}
          <button type="button" class="button subtle" onClick={() => setSelected(new Set())}>
            {t('documents.clearSelection')}
          </button>
        </div>
      ) : null}

      {loadError ? (
        <p class="form-error" role="alert">
          {props.folder === '@my'
            ? t('documents.loadFailedMine', { reason: loadError })
            : t('documents.loadFailed', { title, reason: loadError })}{' '}
          <button type="button" class="button" onClick={() => void load()}>
            {t('common.retry')}
          </button>
        </p>
      ) : null}

      {grid ? <ItemGrid entries={entries} capabilities={props.capabilities} inTrash={section === 'trash'} /> : null}
      <table
        ref={table}
        class="files"
        hidden={grid}
        aria-busy={loading}
        aria-label={section === 'my' ? t('documents.yourDocuments') : title}
      >
        <thead>
          <tr>
            <th scope="col" class="col-select">
              <input
                type="checkbox"
                aria-label={t('documents.selectAll')}
                checked={allChosen}
                disabled={entries.length === 0}
                onChange={(event) => setSelected(event.currentTarget.checked ? new Set(entries.map(keyOf)) : new Set())}
              />
            </th>
            <SortHeader
              label={t('documents.colName')}
              field="AZ"
              sortBy={sortBy}
              sortOrder={sortOrder}
              onSort={sortOn}
              class="col-name"
            />
            <SortHeader
              label={t('documents.colSize')}
              field="Size"
              sortBy={sortBy}
              sortOrder={sortOrder}
              onSort={sortOn}
              class="col-size"
            />
            <SortHeader
              label={t('documents.colModified')}
              field="DateAndTime"
              sortBy={sortBy}
              sortOrder={sortOrder}
              onSort={sortOn}
              class="col-modified"
            />
            <th scope="col" class="col-by">
              {t('documents.colModifiedBy')}
            </th>
            <th scope="col" class="col-status">
              {t('documents.colStatus')}
            </th>
            <th scope="col" class="col-actions">
              <span class="visually-hidden">{t('documents.colActions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) =>
            entry.kind === 'folder' ? (
              <FolderRow
                key={keyOf(entry)}
                folder={entry.item}
                {...rowProps(entry)}
                {...(section === 'my' ? { drop: dropProps(entry.item.id, entry.item.title) } : {})}
              />
            ) : (
              <FileRow
                key={keyOf(entry)}
                file={entry.item}
                capabilities={props.capabilities}
                isAdmin={props.isAdmin}
                onReleaseLock={() => setOpen({ kind: 'release', file: entry.item })}
                onConverted={(result) => {
                  announce(t('documents.converted', { title: entry.item.title, result: result.title }))
                  setMade(keyOf({ kind: 'file', item: result }))
                  void load({ quiet: true })
                }}
                {...rowProps(entry)}
              />
            ),
          )}
        </tbody>
      </table>
      {!loading && entries.length === 0 && !loadError ? (
        <p class="empty">{emptyText(props.folder, filter, sharedOnly)}</p>
      ) : null}

      {pages > 1 ? (
        <nav class="pager" aria-label={t('documents.pages')}>
          <button type="button" class="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            {t('documents.previousPage')}
          </button>
          <span>{t('documents.pageOf', { page: page + 1, pages })}</span>
          <button type="button" class="button" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
            {t('documents.nextPage')}
          </button>
        </nav>
      ) : null}

      <div class="drop-overlay" aria-hidden="true">
        <p>{t('documents.dropOverlay')}</p>
      </div>

      {helpOpen ? <ShortcutsHelp onClose={() => setHelpOpen(false)} /> : null}
      <OpenDialog
        open={open}
        folder={props.folder}
        section={section}
        selfId={props.selfId}
        capabilities={props.capabilities}
        onClose={() => setOpen(null)}
        onDone={(message, key) => {
          setOpen(null)
          if (key) setMade(key)
          done(message)
        }}
      />
    </section>
  )
}

function emptyText(folder: string, filter: string, sharedOnly = false): string {
  if (filter) return t(sharedOnly ? 'documents.emptyFilteredShared' : 'documents.emptyFiltered', { filter })
  if (sharedOnly) return t('documents.emptySharedByMe')
  if (folder === '@my') return t('documents.emptyMine')
  if (folder === '@share') return t('documents.emptyShared')
  if (folder === '@trash') return t('documents.emptyTrashList')
  return t('documents.emptyFolder')
}

/** The dialog the list opened; each reports back in a sentence for the notices. */
function OpenDialog(props: {
  open: Open | null
  folder: string
  section: Section
  selfId: string
  capabilities: api.Capabilities
  onClose: () => void
  /** `made`: the key of an item the dialog created, to show it in the list. */
  onDone: (message: string, made?: string) => void
}) {
  const { open } = props
  if (!open) return null
  switch (open.kind) {
    case 'create':
      return (
        <CreateDialog
          kind={open.newKind}
          folder={props.folder}
          hasEditor={props.capabilities.onlyofficeEditor || props.capabilities.wopiEditor}
          onClose={props.onClose}
          onCreated={(file) => {
            // With an editor, a new document is made to be written in: open it there at once.
            const href = editorHref(file, props.capabilities)
            if (href) window.open(href, '_blank', 'noopener')
            props.onDone(t('documents.created', { title: file.title }), keyOf({ kind: 'file', item: file }))
          }}
        />
      )
    case 'new-folder':
      return (
        <NewFolderDialog
          parent={props.folder}
          onClose={props.onClose}
          onCreated={(folder) =>
            props.onDone(t('documents.createdFolder', { title: folder.title }), keyOf({ kind: 'folder', item: folder }))
          }
        />
      )
    case 'delete': {
      const forever = props.section === 'trash'
      const what = describe(open.entries)
      return (
        <DeleteDialog
          entries={open.entries}
          forever={forever}
          onClose={props.onClose}
          onDeleted={() =>
            props.onDone(forever ? t('documents.deletedForGood', { what }) : t('documents.movedToTrash', { what }))
          }
        />
      )
    }
    case 'move':
      return (
        <MoveDialog
          entries={open.entries}
          onClose={props.onClose}
          onMoved={(destination) => props.onDone(t('documents.moved', { what: describe(open.entries), destination }))}
        />
      )
    case 'copy':
      return (
        <CopyDialog
          entries={open.entries}
          onClose={props.onClose}
          onCopied={(destination) => props.onDone(t('documents.copied', { what: describe(open.entries), destination }))}
        />
      )
    case 'share':
      return (
        <ShareDialog
          target={{ kind: open.entry.kind, id: open.entry.item.id }}
          title={open.entry.item.title}
          selfId={props.selfId}
          onClose={props.onClose}
        />
      )
    case 'release':
      return (
        <ReleaseLockDialog
          file={open.file}
          onClose={props.onClose}
          onReleased={() => props.onDone(t('documents.releasedLock', { title: open.file.title }))}
        />
      )
    case 'empty-trash':
      return <EmptyTrashDialog onClose={props.onClose} onEmptied={() => props.onDone(t('documents.trashEmptied'))} />
  }
}
