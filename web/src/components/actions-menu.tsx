import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { Icon, type IconName } from './icons'

/** One entry of an actions menu. */
export interface MenuAction {
  label: string
  icon: IconName
  run: () => void
  danger?: boolean
  disabled?: boolean
}

/**
 * A "More actions" button and the menu it opens (the WAI-ARIA menu button pattern): Enter,
 * Space or ↓ open it on the first entry, ↑ on the last; arrows, Home and End move; Escape
 * closes it and focus goes back to the button; Tab or a click elsewhere closes it. Keys
 * handled here are marked handled, so the file list's own shortcuts leave them alone.
 */
export function ActionsMenu(props: {
  label: string
  title: string
  actions: readonly MenuAction[]
  class?: string
  /** The button, for whoever gives focus back after an action (an inline rename ends). */
  buttonRef?: { current: HTMLButtonElement | null }
}) {
  const [open, setOpen] = useState(false)
  const [start, setStart] = useState<'first' | 'last'>('first')
  const ownButton = useRef<HTMLButtonElement>(null)
  const button = props.buttonRef ?? ownButton
  const menu = useRef<HTMLUListElement>(null)
  const id = useId()

  const items = () =>
    Array.from(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]:not([disabled])') ?? [])
  const close = (refocus: boolean) => {
    setOpen(false)
    if (refocus) button.current?.focus()
  }

  useEffect(() => {
    if (!open) return
    const list = items()
    ;(start === 'first' ? list[0] : list[list.length - 1])?.focus()
    const outside = (event: PointerEvent) => {
      const target = event.target as Node | null
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false)
    }
    document.addEventListener('pointerdown', outside)
    return () => document.removeEventListener('pointerdown', outside)
  }, [open])

  const onMenuKey = (event: KeyboardEvent) => {
    const list = items()
    const at = list.indexOf(document.activeElement as HTMLButtonElement)
    const go = (index: number) => {
      event.preventDefault()
      event.stopPropagation()
      list[(index + list.length) % list.length]?.focus()
    }
    if (event.key === 'ArrowDown') return go(at + 1)
    if (event.key === 'ArrowUp') return go(at - 1)
    if (event.key === 'Home') return go(0)
    if (event.key === 'End') return go(list.length - 1)
    if (event.key === 'Escape') {
      event.preventDefault()
      event.stopPropagation()
      return close(true)
    }
    if (event.key === 'Tab') return close(false)
    // Every other key stays with the menu (no Delete or F2 of the list underneath).
    if (event.key !== 'Enter' && event.key !== ' ') event.preventDefault()
  }

  return (
    <div class={`actions-menu${props.class ? ` ${props.class}` : ''}`}>
      <button
        ref={button}
        type="button"
        class="icon-button"
        aria-label={props.label}
        title={props.title}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => {
          setStart('first')
          setOpen(!open)
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault()
            event.stopPropagation()
            setStart(event.key === 'ArrowDown' ? 'first' : 'last')
            setOpen(true)
          }
        }}
      >
        <Icon name="more" />
      </button>
      {open ? (
        <ul ref={menu} id={id} role="menu" aria-label={props.label} class="menu" onKeyDown={onMenuKey}>
          {props.actions.map((action) => (
            <li key={action.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                class={action.danger ? 'danger' : undefined}
                disabled={action.disabled}
                onClick={() => {
                  close(true)
                  action.run()
                }}
              >
                <Icon name={action.icon} />
                <span>{action.label}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
