import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { ConfirmDialog } from '../components/dialog'
import { Icon } from '../components/icons'
import { Link } from '../components/link'
import { folderPath } from '../router'
import { formatDates, formatSize, versionSourceLabel } from '../format'
import { announce } from '../notices'

/** A file's version history: every version, its download, and restore. */
export function VersionsScreen(props: { fileId: string }) {
  const [file, setFile] = useState<api.FileItem | undefined>(undefined)
  const [versions, setVersions] = useState<api.VersionItem[] | undefined>(undefined)
  const [error, setError] = useState('')
  const [restoring, setRestoring] = useState<api.VersionItem | null>(null)
  const heading = useRef<HTMLHeadingElement>(null)

  const load = async () => {
    try {
      const [record, list] = await Promise.all([api.getFile(props.fileId), api.listVersions(props.fileId)])
      setFile(record)
      setVersions(list)
      setError('')
    } catch (failure) {
      setError(
        failure instanceof api.ApiError && failure.status === 404
          ? 'This file does not exist (any more).'
          : String(failure instanceof Error ? failure.message : failure),
      )
    }
  }

  useEffect(() => {
    void load()
  }, [props.fileId])
  useEffect(() => heading.current?.focus(), [])
  const back = useFolderOf(file)

  const current = file?.version
  const times = formatDates((versions ?? []).map((v) => v.created))
  return (
    <section class="versions">
      <p class="back">
        <Link href={back.href}>← Back to {back.title}</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Versions{file ? ' of ' : ''}
        {file ? <span class="file-name">{file.title}</span> : null}
      </h1>
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {versions ? (
        <table class="version-list" aria-label="Versions">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Saved</th>
              <th scope="col">By</th>
              <th scope="col">Size</th>
              <th scope="col">How</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {versions.map((version, index) => (
              <tr key={version.version} data-version={version.version}>
                <td>
                  {version.version}
                  {version.version === current ? <span class="badge">current</span> : null}
                </td>
                <td>
                  <time dateTime={version.created}>{times[index]}</time>
                </td>
                <td>{version.author.displayName}</td>
                <td>{formatSize(version.size)}</td>
                <td>
                  {versionSourceLabel(version.source)}
                  {version.meta?.conflict === true ? (
                    <span
                      class="badge"
                      title="The editor had an older version open while the file changed; nothing was lost: the other versions are in this list"
                    >
                      conflict: made from version {version.meta.baseVersion ?? '?'}
                    </span>
                  ) : null}
                </td>
                <td>
                  <div class="actions">
                    <a
                      class="button"
                      href={api.versionDownloadUrl(props.fileId, version.version)}
                      download
                      aria-label={`Download version ${version.version}`}
                    >
                      <Icon name="download" />
                      <span>Download</span>
                    </a>
                    {version.version !== current ? (
                      <button
                        type="button"
                        class="button"
                        aria-label={`Restore version ${version.version}`}
                        onClick={() => setRestoring(version)}
                      >
                        <Icon name="restore" />
                        <span>Restore</span>
                      </button>
                    ) : null}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : error ? null : (
        <p class="loading">Loading…</p>
      )}
      {restoring && file ? (
        <RestoreDialog
          file={file}
          version={restoring}
          onClose={() => setRestoring(null)}
          onRestored={() => {
            announce(`Version ${restoring.version} restored; it is now the newest version.`)
            setRestoring(null)
            void load()
          }}
        />
      ) : null}
    </section>
  )
}

function RestoreDialog(props: {
  file: api.FileItem
  version: api.VersionItem
  onClose: () => void
  onRestored: () => void
}) {
  return (
    <ConfirmDialog
      title={`Restore version ${props.version.version}?`}
      confirmLabel="Restore"
      tone="primary"
      action={async () => {
        await api.restoreVersion(props.file.id, props.version.version)
        props.onRestored()
      }}
      errorText={(failure) => (failure instanceof Error ? failure.message : 'Restoring failed.')}
      onClose={props.onClose}
    >
      <p>
        The content of version {props.version.version} becomes a new, newest version of “
        <span class="file-name">{props.file.title}</span>”. No version is lost.
      </p>
    </ConfirmDialog>
  )
}

/**
 * Where the back link goes: the folder the file is in (its own top is "Documents"); a file
 * reached through a share whose folder the reader cannot see goes back to "Shared with me".
 */
function useFolderOf(file: api.FileItem | undefined): { href: string; title: string } {
  const [place, setPlace] = useState({ href: '/', title: 'Documents' })
  const folderId = file?.folderId
  useEffect(() => {
    if (!folderId) return
    let current = true
    api.folderPath(folderId).then(
      (folders) => {
        const last = folders[folders.length - 1]
        if (!current || !last) return
        if (folders.length === 1)
          setPlace(
            last.id === '@share' ? { href: '/shared', title: 'Shared with me' } : { href: '/', title: 'Documents' },
          )
        else setPlace({ href: folderPath(last.id), title: last.title })
      },
      () => {
        if (current) setPlace({ href: '/shared', title: 'Shared with me' })
      },
    )
    return () => {
      current = false
    }
  }, [folderId])
  return place
}
