import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { errorText } from '../error-text'
import { splitExtension } from '../format'
import { t } from '../i18n'
import { Icon } from './icons'

/**
 * Legacy and open formats the editors do not edit as they are: ONLYOFFICE converts them to
 * their OOXML twin first (`checkconversion`), as Folio does here.
 */
const LEGACY_TWINS: Readonly<Record<string, string>> = {
  doc: 'docx',
  rtf: 'docx',
  odt: 'docx',
  xls: 'xlsx',
  ods: 'xlsx',
  ppt: 'pptx',
  odp: 'pptx',
}

/** How often the conversion is asked about while it runs. */
const POLL_MS = 500

/**
 * The OOXML format `title` is edited in when it must be converted first; undefined when the
 * file opens in the editor as it is, or no editor or converter is there to do it.
 */
export function editsAfterConversion(title: string, capabilities: api.Capabilities): string | undefined {
  if (!capabilities.converter || !(capabilities.onlyofficeEditor || capabilities.wopiEditor)) return undefined
  return LEGACY_TWINS[splitExtension(title)[1].replace(/^\./, '').toLowerCase()]
}

type Step =
  | { kind: 'idle' }
  | { kind: 'running'; progress: number }
  | { kind: 'done'; result: api.FileItem; href: string; opened: boolean }
  | { kind: 'failed'; error: string }

/**
 * "Convert and edit": converts the file to its OOXML twin beside it (the original stays),
 * shows the progress, then opens the new file in the editor. A failed conversion says why
 * and makes no file. `variant` 'button' is the preview page's, 'icon' a row's.
 */
export function ConvertAndEdit(props: {
  file: api.FileItem
  twin: string
  editorHref: (file: api.FileItem) => string | undefined
  variant: 'button' | 'icon'
  /** The new file exists (the list shows it beside the original). */
  onConverted?: (result: api.FileItem) => void
}) {
  const [step, setStep] = useState<Step>({ kind: 'idle' })
  const alive = useRef(true)
  useEffect(
    () => () => {
      alive.current = false
    },
    [],
  )
  const { file } = props

  const run = async () => {
    setStep({ kind: 'running', progress: 0 })
    try {
      let [entry] = await api.startConversion(file.id)
      while (alive.current && entry !== undefined && entry.processed !== '1') {
        setStep({ kind: 'running', progress: entry.progress })
        await new Promise((resolve) => setTimeout(resolve, POLL_MS))
        const now = await api.conversionStatus(file.id)
        entry = now[0]
      }
      if (!alive.current) return
      if (entry === undefined) throw new Error(t('convert.notStarted'))
      if (entry.error || !entry.result) {
        setStep({ kind: 'failed', error: entry.error || t('convert.noFile') })
        return
      }
      const result = entry.result
      const href = props.editorHref(result) ?? ''
      // The editor opens in a new tab, as "Open in editor" does; a browser that blocks a tab
      // opened after the wait gets the link instead.
      const tab = href ? window.open(href, '_blank') : null
      if (tab) tab.opener = null
      setStep({ kind: 'done', result, href, opened: tab !== null })
      props.onConverted?.(result)
    } catch (failure) {
      if (alive.current) setStep({ kind: 'failed', error: errorText(failure) })
    }
  }

  const label = t('convert.label', { title: file.title, extension: props.twin })
  const trigger =
    props.variant === 'button' ? (
      <button type="button" class="button primary" onClick={() => void run()} disabled={step.kind === 'running'}>
        <Icon name="convert" />
        <span>{t('convert.button')}</span>
      </button>
    ) : (
      <button
        type="button"
        class="icon-button"
        aria-label={label}
        title={t('convert.iconTitle', { extension: props.twin })}
        onClick={() => void run()}
        disabled={step.kind === 'running'}
      >
        <Icon name="convert" />
      </button>
    )

  return (
    <>
      {trigger}
      {step.kind === 'running' ? (
        <span class="convert-progress" role="status">
          {/* Without a figure yet (waiting for a converter), the bar just moves. */}
          <progress
            max={100}
            {...(step.progress > 0 ? { value: step.progress } : {})}
            aria-label={t('convert.progress', { title: file.title })}
          />
          {props.variant === 'button' ? <span>{t('convert.converting', { extension: props.twin })}</span> : null}
        </span>
      ) : null}
      {step.kind === 'done' && (props.variant === 'button' || !step.opened) ? (
        <span class="convert-progress" role="status">
          {props.variant === 'button' ? <span>{t('convert.converted', { title: step.result.title })} </span> : null}
          {step.href && !step.opened ? (
            <a href={step.href} target="_blank" rel="noopener">
              {t('rows.openInEditor', { title: step.result.title })}
            </a>
          ) : null}
        </span>
      ) : null}
      {step.kind === 'failed' ? (
        <span class="form-error" role="alert">
          {t('convert.failed', { title: file.title, error: step.error })}
        </span>
      ) : null}
    </>
  )
}
