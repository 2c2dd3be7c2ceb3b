import type { Upload } from '../uploads'

/** The uploads under way and finished, each with its progress, result and Cancel. */
export function UploadPanel(props: { uploads: Upload[]; onCancel: (id: number) => void; onClear: () => void }) {
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
                <progress
                  max={Math.max(upload.size, 1)}
                  value={upload.state === 'done' ? Math.max(upload.size, 1) : upload.loaded}
                  aria-label={`Upload of ${upload.name}`}
                />
              )}
              <span class="upload-status">
                {upload.state === 'queued' ? 'Waiting' : null}
                {upload.state === 'uploading' ? `${percent}%` : null}
                {upload.state === 'done'
                  ? upload.storedTitle && upload.storedTitle !== upload.name
                    ? `Done, saved as ${upload.storedTitle}`
                    : 'Done'
                  : null}
                {upload.state === 'cancelled' ? 'Cancelled' : null}
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
                  aria-label={`Cancel upload of ${upload.name}`}
                  onClick={() => props.onCancel(upload.id)}
                >
                  Cancel
                </button>
              ) : null}
            </li>
          )
        })}
      </ul>
      <ChangedNames uploads={props.uploads} />
      {finished ? (
        <button type="button" class="button subtle" onClick={props.onClear}>
          Clear finished uploads
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
      <h3 id="changed-names-heading">Names changed on upload</h3>
      <ul>
        {changed.map((upload) => (
          <li key={upload.id}>
            “{upload.name}” was saved as “{upload.storedTitle}”
          </li>
        ))}
      </ul>
    </section>
  )
}
