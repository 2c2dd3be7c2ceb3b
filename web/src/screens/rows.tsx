import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { LINK_LEVELS, accessLabel, allowed } from '../access'
import { ActionsMenu, type MenuAction } from '../components/actions-menu'
import { FileIcon, FolderIcon, Icon } from '../components/icons'
import { Link } from '../components/link'
import { downloadAs } from '../downloads'
import { inDesktopEditors } from '../desktop'
import { errorText } from '../error-text'
import { formatLocale, inSentence, t } from '../i18n'
import { fileKind, formatDate, formatSize, splitExtension } from '../format'
import type { Entry } from '../items'
import { folderPath, navigate, previewPath } from '../router'
import { lockDescription } from './item-dialogs'
import { NamePreview } from '../components/name-preview'
import { ConvertAndEdit, editsAfterConversion } from '../components/convert-and-edit'
import { storedName } from '../names'

export type SortField = api.SortField
export type SortOrder = 'ascending' | 'descending'

/** Which part of the tree the list shows: it decides the buttons rows get. */
export type Section = 'my' | 'share' | 'trash'

export function SortHeader(props: {
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
        title={t('sort.title', {
          // German capitalises nouns; the others write the column's name in lower case here.
          label: inSentence(props.label),
          order: active ? t(next === 'ascending' ? 'sort.ascending' : 'sort.descending') : t('sort.default'),
        })}
      >
        {props.label}
        <span class="sort-mark" aria-hidden="true">
          {active ? (props.sortOrder === 'ascending' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  )
}

/** Where a file opens in the configured editor; undefined when there is none. */
export function editorHref(file: api.FileItem, capabilities: api.Capabilities): string | undefined {
  // `doceditor` in the address: ONLYOFFICE's Desktop Editors open it as an editor tab.
  if (capabilities.onlyofficeEditor) return `/doceditor/${encodeURIComponent(file.id)}`
  if (capabilities.wopiEditor) return `/wopi-host/${encodeURIComponent(file.id)}?action=edit`
  return undefined
}

/** What every row gets from the list: selection, dragging and the row's actions. */
export interface RowProps {
  section: Section
  /** The caller's access to the folder on screen (undefined in a section such as Shared with me). */
  parentAccess?: number | undefined
  selected: boolean
  onSelect: (selected: boolean) => void
  renaming: boolean
  onRename: () => void
  onRenameDone: (renamed?: { title: string }) => void
  /** The item was just made here: highlighted so the eye finds it. */
  justMade?: boolean
  onDelete: () => void
  onMove: () => void
  onCopy: () => void
  onShare: () => void
  onRestore: () => void
  /** Attributes that make the row draggable (its own items, or the whole selection). */
  drag: Record<string, unknown>
  /** Attributes that make the row a drop target (folders only). */
  drop?: Record<string, unknown>
}

function SelectCell(props: { title: string; selected: boolean; onSelect: (selected: boolean) => void }) {
  return (
    <td class="col-select">
      <input
        type="checkbox"
        checked={props.selected}
        aria-label={t('rows.select', { title: props.title })}
        onChange={(event) => props.onSelect(event.currentTarget.checked)}
      />
    </td>
  )
}

/** Where a trashed item came from, or who shared an item with the reader. */
function PlaceBadge(props: { item: api.FileItem | api.FolderItem; section: Section }) {
  if (props.section === 'trash') {
    const { originTitle, autoDelete } = props.item
    return (
      <>
        {originTitle ? <span class="badge">{t('rows.from', { title: originTitle })}</span> : null}
        {autoDelete ? <span class="badge">{t('rows.deletedOn', { date: formatDate(autoDelete) })}</span> : null}
      </>
    )
  }
  if (props.section === 'share' && props.item.owner) {
    return (
      <span class="badge shared" title={accessLabel(props.item.access ?? 2)}>
        {t('rows.sharedBy', { name: props.item.owner.displayName, access: accessLabel(props.item.access ?? 2) })}
      </span>
    )
  }
  return null
}

/** The owner's markers on a row: shared with people (who), and a link that is on (its access). */
function SharingMarks(props: { item: api.SharingFacts }) {
  const people = props.item.sharedWith ?? []
  const link = props.item.sharedLink
  if (people.length === 0 && (link === null || link === undefined)) return null
  const who = t('rows.sharedWith', {
    names: new Intl.ListFormat(formatLocale(), { type: 'unit' }).format(people.map((person) => person.displayName)),
  })
  const linkText =
    link === null || link === undefined
      ? ''
      : t(LINK_LEVELS.find((level) => level.access === link)?.labelKey ?? 'link.anyone')
  return (
    <span class="sharing-marks">
      {people.length > 0 ? (
        <span class="sharing-mark" role="img" aria-label={who} title={who}>
          <Icon name="share" />
        </span>
      ) : null}
      {linkText ? (
        <span
          class="sharing-mark"
          role="img"
          aria-label={t('rows.linkOn', { access: inSentence(linkText) })}
          title={t('rows.linkOn', { access: inSentence(linkText) })}
        >
          <Icon name="link" />
        </span>
      ) : null}
    </span>
  )
}

/** The actions only an item's owner has: share, move, delete (and, in the trash, restore). */
function OwnerActions(
  props: RowProps & {
    title: string
    mayManage: boolean
    mayCopy: boolean
    mayTrash: boolean
    mayRename: boolean
    focus: RenameFocus
    /** A file's versions page: on the row at desktop width, in the menu at phone width. */
    versionsHref?: string
  },
) {
  const { title } = props
  if (props.section === 'trash') {
    return (
      <>
        <button
          type="button"
          class="icon-button"
          aria-label={t('rows.restore', { title })}
          title={t('common.restore')}
          onClick={props.onRestore}
        >
          <Icon name="restore" />
        </button>
        <button
          type="button"
          class="icon-button danger"
          aria-label={t('rows.deleteForever', { title })}
          title={t('documents.deleteForever')}
          onClick={props.onDelete}
        >
          <Icon name="trash" />
        </button>
      </>
    )
  }
  return (
    <>
      {props.mayManage ? (
        <button
          type="button"
          class="icon-button wide-only"
          aria-label={t('rows.share', { title })}
          title={t('common.share')}
          onClick={props.onShare}
        >
          <Icon name="share" />
        </button>
      ) : null}
      {props.mayManage ? (
        <button
          type="button"
          class="icon-button wide-only"
          aria-label={t('rows.move', { title })}
          title={t('common.moveTo')}
          onClick={props.onMove}
        >
          <Icon name="move" />
        </button>
      ) : null}
      {props.mayCopy ? (
        <button
          type="button"
          class="icon-button wide-only"
          aria-label={t('rows.copy', { title })}
          title={t('copy.copyTo')}
          onClick={props.onCopy}
        >
          <Icon name="copy" />
        </button>
      ) : null}
      {props.mayRename ? (
        <button
          ref={props.focus.renameButton}
          type="button"
          class="icon-button wide-only"
          aria-label={t('rows.rename', { title })}
          title={t('common.rename')}
          onClick={props.onRename}
          disabled={props.renaming}
        >
          <Icon name="pencil" />
        </button>
      ) : null}
      {props.mayTrash ? (
        <button
          type="button"
          class="icon-button danger wide-only"
          aria-label={t('rows.delete', { title })}
          title={t('common.delete')}
          onClick={props.onDelete}
        >
          <Icon name="trash" />
        </button>
      ) : null}
      <ActionsMenu
        class="narrow-only"
        label={t('rows.moreActions', { title })}
        title={t('rows.moreActionsTitle')}
        buttonRef={props.focus.moreButton}
        actions={menuActions(props)}
      />
    </>
  )
}

/** The row's actions after open and download, as the "More actions" menu lists them at phone width. */
function menuActions(
  props: RowProps & {
    mayManage: boolean
    mayCopy: boolean
    mayTrash: boolean
    mayRename: boolean
    versionsHref?: string
  },
): MenuAction[] {
  const actions: MenuAction[] = []
  const { versionsHref } = props
  if (versionsHref) actions.push({ label: t('common.versions'), icon: 'history', run: () => navigate(versionsHref) })
  if (props.mayManage) actions.push({ label: t('common.share'), icon: 'share', run: props.onShare })
  if (props.mayManage) actions.push({ label: t('common.moveTo'), icon: 'move', run: props.onMove })
  if (props.mayCopy) actions.push({ label: t('copy.copyTo'), icon: 'copy', run: props.onCopy })
  if (props.mayRename)
    actions.push({ label: t('common.rename'), icon: 'pencil', run: props.onRename, disabled: props.renaming })
  if (props.mayTrash) actions.push({ label: t('common.delete'), icon: 'trash', run: props.onDelete, danger: true })
  return actions
}

/** Where focus goes back to when inline renaming ends. */
interface RenameFocus {
  renameButton: { current: HTMLButtonElement | null }
  moreButton: { current: HTMLButtonElement | null }
}

/**
 * Gives focus back to the Rename button when inline renaming ends, or to "More actions"
 * where the row shows that instead (phone width: the Rename button is not displayed).
 */
function useRenameFocus(renaming: boolean): RenameFocus {
  const renameButton = useRef<HTMLButtonElement>(null)
  const moreButton = useRef<HTMLButtonElement>(null)
  const wasRenaming = useRef(false)
  useEffect(() => {
    if (wasRenaming.current && !renaming) {
      const shown = renameButton.current && renameButton.current.getClientRects().length > 0
      ;(shown ? renameButton.current : moreButton.current)?.focus()
    }
    wasRenaming.current = renaming
  }, [renaming])
  return { renameButton, moreButton }
}

export function FolderRow(props: RowProps & { folder: api.FolderItem }) {
  const { folder } = props
  const may = allowed(folder.access, props.parentAccess)
  const focus = useRenameFocus(props.renaming)
  // Counts are shown only where the listing gave them.
  const counted = folder.filesCount !== undefined || folder.foldersCount !== undefined
  const count = (folder.filesCount ?? 0) + (folder.foldersCount ?? 0)
  const items = counted ? t('items.count', { count }) : ''
  return (
    <tr
      class={`folder-row${props.justMade ? ' just-made' : ''}`}
      data-kind="folder"
      data-key={`folder:${folder.id}`}
      {...props.drag}
      {...(props.drop ?? {})}
    >
      <SelectCell title={folder.title} selected={props.selected} onSelect={props.onSelect} />
      <td class="col-name">
        <div class="name-cell">
          <FolderIcon />
          {props.renaming ? (
            <RenameForm entry={{ kind: 'folder', item: folder }} onDone={props.onRenameDone} />
          ) : (
            <div class="name-text">
              {props.section === 'trash' ? (
                <span class="folder-name">{folder.title}</span>
              ) : (
                <span class="name-line">
                  <Link href={folderPath(folder.id)} class="folder-name">
                    {folder.title}
                  </Link>
                  <SharingMarks item={folder} />
                </span>
              )}
              <span class="meta-line">
                {[items, folder.updated ? formatDate(folder.updated) : ''].filter(Boolean).join(' · ')}
              </span>
            </div>
          )}
        </div>
      </td>
      <td class="col-size">{items}</td>
      <td class="col-modified">
        {folder.updated ? <time dateTime={folder.updated}>{formatDate(folder.updated)}</time> : null}
      </td>
      <td class="col-by">{folder.createdBy?.displayName ?? folder.owner?.displayName ?? ''}</td>
      <td class="col-status">
        <PlaceBadge item={folder} section={props.section} />
      </td>
      <td class="col-actions">
        <div class="actions">
          <button
            type="button"
            class="icon-button"
            onClick={() => downloadAs(api.archiveUrl({ folderIds: [folder.id], fileIds: [] }), `${folder.title}.zip`)}
            aria-label={t('rows.downloadZip', { title: folder.title })}
            title={t('rows.downloadZipTitle')}
          >
            <Icon name="download" />
          </button>
          <OwnerActions
            {...props}
            title={folder.title}
            mayManage={may.manage}
            mayCopy={may.copy}
            mayTrash={may.trash}
            mayRename={may.rename}
            focus={focus}
          />
        </div>
      </td>
    </tr>
  )
}

export function FileRow(
  props: RowProps & {
    file: api.FileItem
    capabilities: api.Capabilities
    isAdmin: boolean
    onReleaseLock: () => void
    /** "Convert and edit" made the file's OOXML twin beside it. */
    onConverted?: (result: api.FileItem) => void
  },
) {
  const { file } = props
  const may = allowed(file.access, props.parentAccess)
  const kind = fileKind(file.fileExst)
  const editors = file.editing ?? []
  const inTrash = props.section === 'trash'
  // Trashed files open nowhere: they only download.
  const href = inTrash ? undefined : editorHref(file, props.capabilities)
  // A legacy document (.doc, .odt ...) is converted to OOXML before the editor opens it.
  const twin = inTrash || !may.convert ? undefined : editsAfterConversion(file.title, props.capabilities)
  const focus = useRenameFocus(props.renaming)
  const versionsHref = `/versions/${encodeURIComponent(file.id)}`

  return (
    <tr class={props.justMade ? 'just-made' : undefined} data-kind="file" data-key={`file:${file.id}`} {...props.drag}>
      <SelectCell title={file.title} selected={props.selected} onSelect={props.onSelect} />
      <td class="col-name">
        <div class="name-cell">
          <FileIcon kind={kind} />
          {props.renaming ? (
            <RenameForm entry={{ kind: 'file', item: file }} onDone={props.onRenameDone} />
          ) : (
            <div class="name-text">
              <span class="name-line">
                {inTrash ? (
                  <a class="file-name" href={api.downloadUrl(file.id)} download={file.title}>
                    {file.title}
                  </a>
                ) : href && inDesktopEditors() ? (
                  // The Desktop Editors open a /doceditor address as an editor tab of their own.
                  <a class="file-name" href={href}>
                    {file.title}
                  </a>
                ) : (
                  // A click opens the preview page, with Download, Download as and the editor.
                  <Link class="file-name" href={previewPath(file.id)}>
                    {file.title}
                  </Link>
                )}
                <SharingMarks item={file} />
              </span>
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
        <PlaceBadge item={file} section={props.section} />
        {editors.length > 0 ? (
          <span class="badge editing">
            {t('rows.editingNow', {
              names: new Intl.ListFormat(formatLocale(), { type: 'unit' }).format(
                editors.map((user) => user.displayName || user.id),
              ),
            })}
          </span>
        ) : null}
        {file.lastSaveError ? (
          <span class="badge failed" title={file.lastSaveError.message}>
            {t('rows.lastSaveFailed')}
          </span>
        ) : null}
        {file.locked ? (
          <span class="badge locked" title={lockDescription(file)}>
            <Icon name="lock" />
            {t('rows.locked')}
          </span>
        ) : null}
        {file.locked && may.manage && !inTrash ? (
          <button
            type="button"
            class="button small"
            aria-label={t('rows.releaseLock', { title: file.title })}
            onClick={props.onReleaseLock}
          >
            {t('release.confirm')}
          </button>
        ) : null}
      </td>
      <td class="col-actions">
        <div class="actions">
          {twin ? (
            <ConvertAndEdit
              file={file}
              twin={twin}
              variant="icon"
              editorHref={(result) => editorHref(result, props.capabilities)}
              {...(props.onConverted ? { onConverted: props.onConverted } : {})}
            />
          ) : href && may.open ? (
            <a
              class="icon-button"
              href={href}
              target="_blank"
              rel="noopener"
              aria-label={t('rows.openInEditor', { title: file.title })}
              title={t('rows.openInEditorTitle')}
            >
              <Icon name="open" />
            </a>
          ) : props.isAdmin && !inTrash ? (
            // Admins see why the editor is missing; others are not offered it at all.
            <button
              type="button"
              class="icon-button"
              disabled
              aria-label={t('rows.openNoEditor', { title: file.title })}
              title={t('rows.noEditorTitle')}
            >
              <Icon name="open" />
            </button>
          ) : null}
          <a
            class="icon-button"
            href={api.downloadUrl(file.id)}
            download={file.title}
            aria-label={t('rows.download', { title: file.title })}
            title={t('common.download')}
          >
            <Icon name="download" />
          </a>
          {!inTrash ? (
            <Link
              href={versionsHref}
              class="icon-button wide-only"
              aria-label={t('rows.versionsOf', { title: file.title })}
              title={t('common.versions')}
            >
              <Icon name="history" />
            </Link>
          ) : null}
          <OwnerActions
            {...props}
            title={file.title}
            mayManage={may.manage}
            mayCopy={may.copy}
            mayTrash={may.trash}
            mayRename={may.rename}
            focus={focus}
            {...(inTrash ? {} : { versionsHref })}
          />
        </div>
      </td>
    </tr>
  )
}

/** Renames a file or folder in place; Escape cancels. */
function RenameForm(props: { entry: Entry; onDone: (renamed?: { title: string }) => void }) {
  const { item } = props.entry
  const [value, setValue] = useState(item.title)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  // Before paint, not after: a person (or a test) who starts typing at once must not
  // have the selection reset under them half-way through.
  useLayoutEffect(() => {
    const element = input.current
    if (!element) return
    element.focus()
    // Select a file's name without its extension, as file managers do.
    element.setSelectionRange(0, props.entry.kind === 'file' ? splitExtension(item.title)[0].length : item.title.length)
  }, [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const title = value.trim()
    if (title === item.title) return props.onDone()
    if (!title) return setError(t('dialogs.enterName'))
    // Sent as shown under the field: repaired by the rule Folio repairs new names with.
    const stored = storedName(title) ?? title
    setBusy(true)
    try {
      props.onDone(
        props.entry.kind === 'file' ? await api.renameFile(item.id, stored) : await api.renameFolder(item.id, stored),
      )
    } catch (failure) {
      setError(errorText(failure))
      setBusy(false)
      input.current?.focus()
    }
  }

  const errorId = `rename-error-${props.entry.kind}-${item.id}`
  return (
    <form class="rename" onSubmit={submit} onKeyDown={(event) => event.key === 'Escape' && props.onDone()}>
      <input
        ref={input}
        value={value}
        aria-label={t('rows.newName', { title: item.title })}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : `${errorId}-preview`}
        onInput={(event) => setValue(event.currentTarget.value)}
        disabled={busy}
      />
      <NamePreview id={`${errorId}-preview`} wanted={value} />
      <button type="submit" class="button primary" disabled={busy}>
        {t('common.save')}
      </button>
      <button type="button" class="button" onClick={() => props.onDone()}>
        {t('common.cancel')}
      </button>
      {error ? (
        <p id={errorId} class="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  )
}
