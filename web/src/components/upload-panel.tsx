import type { Upload } from '../uploads'
import { formatLocale, t } from '../i18n'

/** The uploads under way and finished, each with its progress, result and Cancel. */
export function UploadPanel(props: { uploads: Upload[]; onCancel: (id: number) => void; onClear: () => void }) {
  if (props.uploads.length === 0) return null
  const finished = props.uploads.some((upload) => upload.state !== 'queued' && upload.state !== 'uploading')
  return (
    <section class="uploads" aria-label={t('uploads.label')}>
      <h2 class="visually-hidden">{t('uploads.label')}</h2>
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
                <progress
                  max={Math.max(upload.size, 1)}
                  value={upload.state === 'done' ? Math.max(upload.size, 1) : upload.loaded}
                  aria-label={t('uploads.uploadOf', { name: upload.name })}
                />
              )}
              <span class="upload-status">
                {upload.state === 'queued' ? t('uploads.waiting') : null}
                {upload.state === 'uploading'
                  ? new Intl.NumberFormat(formatLocale(), { style: 'percent' }).format(percent / 100)
                  : null}
                {upload.state === 'done'
                  ? upload.storedTitle && upload.storedTitle !== upload.name
                    ? t('uploads.doneSavedAs', { title: upload.storedTitle })
                    : t('uploads.done')
                  : null}
                {upload.state === 'cancelled' ? t('uploads.cancelled') : null}
                {upload.state === 'failed' ? (
                  <span role="alert" class="upload-error">
                    {upload.error}
                  </span>
                ) : null}
              </span>
              {running ? (
                <button
                  type="button"
                  class="button subtle"
                  aria-label={t('uploads.cancelOf', { name: upload.name })}
                  onClick={() => props.onCancel(upload.id)}
                >
                  {t('common.cancel')}
                </button>
              ) : null}
            </li>
          )
        })}
      </ul>
      <ChangedNames uploads={props.uploads} />
      {finished ? (
        <button type="button" class="button subtle" onClick={props.onClear}>
          {t('uploads.clearFinished')}
        </button>
      ) : null}
    </section>
  )
}

/** Each upload whose name Folio had to change (illegal characters, a name taken), plainly. */
function ChangedNames(props: { uploads: Upload[] }) {
  const changed = props.uploads.filter(
    (upload) => upload.state === 'done' && upload.storedTitle && upload.storedTitle !== upload.name,
  )
  if (changed.length === 0) return null
  return (
    <section class="changed-names" aria-labelledby="changed-names-heading">
      <h3 id="changed-names-heading">{t('uploads.namesChanged')}</h3>
      <ul>
        {changed.map((upload) => (
          <li key={upload.id}>{t('uploads.savedAs', { name: upload.name, title: upload.storedTitle ?? '' })}</li>
        ))}
      </ul>
    </section>
  )
}
