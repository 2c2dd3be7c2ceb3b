import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { allowed } from '../access'
import { ConvertAndEdit, editsAfterConversion } from '../components/convert-and-edit'
import { Icon } from '../components/icons'
import { Link } from '../components/link'
import { errorText } from '../error-text'
import { formatDate, formatSize, splitExtension } from '../format'
import { t } from '../i18n'
import { editorHref } from './rows'

/** Most of a text file the page shows; the rest is in the download. */
const TEXT_PREVIEW_BYTES = 256 * 1024

/**
 * A file's preview page: the PDF (the file, or its rendition) in the browser's own viewer,
 * an image as an image, text as text, with Download, Download as, Versions and Open in
 * the editor.
 */
export function PreviewScreen(props: { fileId: string; capabilities: api.Capabilities }) {
  const [file, setFile] = useState<api.FileItem | undefined>(undefined)
  const [error, setError] = useState('')
  // The reader's access to the file's folder: Convert and edit adds a file there.
  const [folderAccess, setFolderAccess] = useState<number | undefined>(undefined)
  const heading = useRef<HTMLHeadingElement>(null)

  useEffect(() => {
    setFile(undefined)
    api
      .getFile(props.fileId)
      .then(setFile, (failure: unknown) =>
        setError(failure instanceof api.ApiError && failure.status === 404 ? t('preview.noFile') : errorText(failure)),
      )
  }, [props.fileId])
  useEffect(() => heading.current?.focus(), [file?.id])
  // Asked only where it decides something: a document to convert that is not one's own
  // (one's own file lies in one's own folder).
  const asksFolder = file !== undefined && file.access !== 0 && !!editsAfterConversion(file.title, props.capabilities)
  useEffect(() => {
    setFolderAccess(undefined)
    if (!file?.folderId || !asksFolder) return
    let current = true
    // A folder the reader cannot see (a file shared alone) leaves it unknown: nothing is added there.
    api.getFolder(file.folderId).then(
      (folder) => current && setFolderAccess(folder.access),
      () => undefined,
    )
    return () => {
      current = false
    }
  }, [file?.id, file?.folderId, asksFolder])

  if (!file) {
    return (
      <section class="preview">
        <p class="back">
          <Link href="/">← {t('preview.allDocuments')}</Link>
        </p>
        {error ? (
          <p class="form-error" role="alert">
            {error}
          </p>
        ) : (
          <p class="loading">{t('common.loading')}</p>
        )}
      </section>
    )
  }
  const extension = splitExtension(file.title)[1].replace(/^\./, '').toLowerCase()
  const editor = allowed(file.access).open ? editorHref(file, props.capabilities) : undefined
  const twin = allowed(file.access, folderAccess).convert
    ? editsAfterConversion(file.title, props.capabilities)
    : undefined
  const targets = props.capabilities.converter
    ? (props.capabilities.conversions[extension] ?? []).filter((format) => format !== 'png')
    : []
  return (
    <section class="preview">
      <p class="back">
        <Link href={file.folderId ? `/folders/${encodeURIComponent(file.folderId)}` : '/'}>
          ← {t('preview.backToFolder')}
        </Link>
      </p>
      <h1 ref={heading} tabIndex={-1} class="file-name">
        {file.title}
      </h1>
      <p class="preview-meta">
        {formatSize(file.pureContentLength)} · {formatDate(file.updated)}
        {file.updatedBy.displayName ? ` · ${file.updatedBy.displayName}` : ''}
      </p>
      <div class="preview-actions">
        {twin ? (
          <ConvertAndEdit
            file={file}
            twin={twin}
            variant="button"
            editorHref={(result) => editorHref(result, props.capabilities)}
          />
        ) : editor ? (
          <a class="button primary" href={editor} target="_blank" rel="noopener">
            <Icon name="open" />
            <span>{t('preview.openInEditor')}</span>
          </a>
        ) : null}
        <a class="button" href={api.downloadUrl(file.id)} download={file.title}>
          <Icon name="download" />
          <span>{t('common.download')}</span>
        </a>
        {targets.length > 0 ? <DownloadAs file={file} targets={targets} /> : null}
        <Link href={`/versions/${encodeURIComponent(file.id)}`} class="button">
          <Icon name="history" />
          <span>{t('common.versions')}</span>
        </Link>
      </div>
      <PreviewBody file={file} kind={props.capabilities.previews[extension]} converter={props.capabilities.converter} />
    </section>
  )
}

function DownloadAs(props: { file: api.FileItem; targets: string[] }) {
  const [target, setTarget] = useState(props.targets[0] ?? 'pdf')
  return (
    <span class="download-as">
      <label>
        <span class="visually-hidden">{t('preview.format')}</span>
        <select
          value={target}
          onChange={(event) => setTarget(event.currentTarget.value)}
          aria-label={t('preview.downloadAsFormat')}
        >
          {props.targets.map((format) => (
            <option key={format} value={format}>
              .{format}
            </option>
          ))}
        </select>
      </label>
      <a class="button" href={api.downloadAsUrl(props.file.id, target)} download>
        {t('preview.downloadAs', { extension: target })}
      </a>
    </span>
  )
}

/** What the page shows of the file itself. */
export function PreviewBody(props: {
  file: { id: string; title: string }
  kind: string | undefined
  converter: boolean
  src?: string
}) {
  const src = props.src ?? api.previewUrl(props.file.id)
  if (props.kind === 'image')
    return <img class="preview-image" src={src} alt={t('preview.of', { title: props.file.title })} />
  if (props.kind === 'text') return <TextPreview src={src} title={props.file.title} />
  if (props.kind === 'pdf' || (props.kind === 'converted' && props.converter)) {
    return <iframe class="preview-frame" src={src} title={t('preview.of', { title: props.file.title })} />
  }
  if (props.kind === 'converted') {
    return (
      <p class="preview-none" data-reason="no-converter">
        {t('preview.needsConverter')}
      </p>
    )
  }
  return <p class="preview-none">{t('preview.none')}</p>
}

function TextPreview(props: { src: string; title: string }) {
  const [text, setText] = useState<string | undefined>(undefined)
  const [error, setError] = useState('')
  useEffect(() => {
    const controller = new AbortController()
    fetch(props.src, {
      credentials: 'same-origin',
      headers: { Range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` },
      signal: controller.signal,
    })
      .then(async (response) => {
        if (!response.ok && response.status !== 206) throw new Error(t('preview.answered', { status: response.status }))
        setText(await response.text())
      })
      .catch((failure: unknown) => {
        if (!controller.signal.aborted) setError(failure instanceof Error ? failure.message : t('preview.loadFailed'))
      })
    return () => controller.abort()
  }, [props.src])
  if (error)
    return (
      <p class="form-error" role="alert">
        {error}
      </p>
    )
  if (text === undefined) return <p class="loading">{t('common.loading')}</p>
  // Preact puts the text in a text node: nothing in it is read as HTML.
  return (
    <pre class="preview-text" aria-label={t('preview.contentsOf', { title: props.title })} tabIndex={0}>
      {text}
    </pre>
  )
}
