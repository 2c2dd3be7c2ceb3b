import { t } from '../i18n'
import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'

/**
 * A modal built on the native <dialog>: the browser keeps focus inside and
 * closes it on Escape. When it goes, focus returns to the control that opened
 * it, or to the screen's heading when that control is gone (a deleted row).
 */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useRef(`dialog-title-${Math.random().toString(36).slice(2)}`).current
  const onClose = useRef(props.onClose)
  onClose.current = props.onClose
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    const opener = document.activeElement
    if (!dialog.open) dialog.showModal()
    const closed = () => onClose.current()
    dialog.addEventListener('close', closed)
    return () => {
      dialog.removeEventListener('close', closed)
      if (dialog.open) dialog.close()
      const fallback = document.querySelector<HTMLElement>('main h1')
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus()
      else fallback?.focus()
    }
  }, [])
  return (
    <dialog ref={ref} aria-labelledby={titleId} class="dialog">
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  )
}

/**
 * A question with Cancel and one confirming button whose action may fail: while it
 * runs the button is disabled; a failure is shown in the dialog, which stays open.
 */
export function ConfirmDialog(props: {
  title: string
  confirmLabel: string
  tone: 'danger' | 'primary'
  action: () => Promise<void>
  errorText: (failure: unknown) => string
  onClose: () => void
  children: ComponentChildren
}) {
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const confirm = async () => {
    setBusy(true)
    try {
      await props.action()
    } catch (failure) {
      setError(props.errorText(failure))
      setBusy(false)
    }
  }
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      {props.children}
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose} autofocus>
          {t('common.cancel')}
        </button>
        <button type="button" class={`button ${props.tone}`} onClick={confirm} disabled={busy}>
          {props.confirmLabel}
        </button>
      </div>
    </Dialog>
  )
}
