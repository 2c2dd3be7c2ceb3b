import { useEffect, useRef } from 'preact/hooks'
import { t, type MessageKey } from '../i18n'
import { Dialog } from './dialog'

/** The keys the file list answers, as the help overlay lists them (key names as the keyboard's language writes them). */
export const SHORTCUTS: ReadonlyArray<{ keys: Array<MessageKey | string>; does: MessageKey }> = [
  { keys: ['↓', '↑'], does: 'shortcuts.nextRow' },
  { keys: ['key.enter'], does: 'shortcuts.open' },
  { keys: ['key.space'], does: 'shortcuts.select' },
  { keys: ['key.ctrl', 'A'], does: 'shortcuts.selectAll' },
  { keys: ['key.escape'], does: 'shortcuts.clear' },
  { keys: ['F2'], does: 'shortcuts.rename' },
  { keys: ['key.delete'], does: 'shortcuts.delete' },
  { keys: ['?'], does: 'shortcuts.help' },
]

/** A key's name: a catalog key ('key.ctrl') in the interface's language, else the key itself ('F2'). */
function keyName(key: MessageKey | string): string {
  return key.startsWith('key.') ? t(key as MessageKey) : key
}

/** What the list does for each shortcut; `key` is the row's key ('file:<id>'), undefined off the rows. */
export interface ListShortcutActions {
  selectAll: () => void
  clearSelection: () => boolean
  rename: (key: string | undefined) => void
  remove: (key: string | undefined) => void
  help: () => void
}

/** True while the person types: a key there is text, never a shortcut. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement)
    return true
  if (!(target instanceof HTMLInputElement)) return false
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'range', 'color'].includes(target.type)
}

/** The element arrows move to in a row: its name (a link) when it has one, else its checkbox. */
function rowTarget(row: Element | null | undefined): HTMLElement | undefined {
  if (!row) return undefined
  const name = row.querySelector<HTMLElement>('a.file-name, a.folder-name')
  return name ?? row.querySelector<HTMLElement>('input[type="checkbox"]') ?? undefined
}

/**
 * The file list's keyboard shortcuts (see SHORTCUTS), on the whole page while the list is
 * on screen: never while typing in a field, nor while a dialog is open (it has its own keys).
 * Arrows move focus between the rows of `table`; Enter on a row's name is the link's own.
 */
export function useListShortcuts(table: { current: HTMLTableElement | null }, actions: ListShortcutActions): void {
  const latest = useRef(actions)
  latest.current = actions
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || typing(event.target)) return
      if (document.querySelector('dialog[open]')) return
      const body = table.current?.tBodies[0]
      if (!body || table.current?.hidden) return
      const rows = Array.from(body.rows)
      const current = event.target instanceof Element ? event.target.closest('tr') : null
      const index = current ? rows.indexOf(current) : -1
      const key = index >= 0 ? (rows[index]?.dataset.key ?? undefined) : undefined
      const act = (run: () => void) => {
        event.preventDefault()
        run()
      }
      const plain = !event.ctrlKey && !event.metaKey
      // Arrows move between rows from a row, or from nowhere in particular (the page, its
      // heading); elsewhere (a toolbar, the pager) they keep scrolling the page.
      const fromAnywhere = event.target === document.body || event.target instanceof HTMLHeadingElement
      if ((event.key === 'ArrowDown' || event.key === 'ArrowUp') && plain && (index >= 0 || fromAnywhere)) {
        const next = event.key === 'ArrowDown' ? Math.min(rows.length - 1, index + 1) : Math.max(0, index - 1)
        return act(() => rowTarget(rows[next])?.focus())
      }
      if ((event.key === 'a' || event.key === 'A') && (event.ctrlKey || event.metaKey) && !event.shiftKey)
        return act(latest.current.selectAll)
      if (!plain) return
      if (event.key === 'Escape') {
        // Only when there was a selection: Escape elsewhere keeps its own meaning.
        if (latest.current.clearSelection()) event.preventDefault()
        return
      }
      if (event.key === 'F2') return act(() => latest.current.rename(key))
      if (event.key === 'Delete') return act(() => latest.current.remove(key))
      if (event.key === '?') return act(latest.current.help)
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [table])
}

/** The help overlay: every shortcut of the list, in an accessible dialog Escape closes. */
export function ShortcutsHelp(props: { onClose: () => void }) {
  return (
    <Dialog title={t('shortcuts.title')} onClose={props.onClose}>
      <dl class="shortcuts">
        {SHORTCUTS.map((shortcut) => (
          <div key={shortcut.does} class="shortcut">
            <dt>
              {shortcut.keys.map((key, index) => (
                <span key={key}>
                  {index > 0 ? (key === '↑' ? ' / ' : ' + ') : null}
                  <kbd>{keyName(key)}</kbd>
                </span>
              ))}
            </dt>
            <dd>{t(shortcut.does)}</dd>
          </div>
        ))}
      </dl>
      <p class="hint">{t('shortcuts.typing')}</p>
      <div class="dialog-actions">
        <button type="button" class="button primary" onClick={props.onClose}>
          {t('common.close')}
        </button>
      </div>
    </Dialog>
  )
}
