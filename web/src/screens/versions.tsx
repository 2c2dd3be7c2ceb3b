import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { ConfirmDialog } from '../components/dialog'
import { Icon } from '../components/icons'
import { Link } from '../components/link'
import { folderPath } from '../router'
import { formatDates, formatSize, versionSourceLabel } from '../format'
import { t, tParts } from '../i18n'
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
          ? t('versions.noFile')
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
        <Link href={back.href}>← {t('versions.backTo', { title: back.title })}</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        {file
          ? tParts('versions.titleOf', { title: <span class="file-name">{file.title}</span> })
          : t('common.versions')}
      </h1>
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {versions ? (
        <table class="version-list" aria-label={t('common.versions')}>
          <thead>
            <tr>
              <th scope="col">{t('versions.version')}</th>
              <th scope="col">{t('versions.saved')}</th>
              <th scope="col">{t('versions.by')}</th>
              <th scope="col">{t('documents.colSize')}</th>
              <th scope="col">{t('versions.how')}</th>
              <th scope="col">
                <span class="visually-hidden">{t('documents.colActions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {versions.map((version, index) => (
              <tr key={version.version} data-version={version.version}>
                <td data-label={t('versions.version')}>
                  {version.version}
                  {version.version === current ? <span class="badge">{t('versions.current')}</span> : null}
                </td>
                <td>
                  <time dateTime={version.created}>{times[index]}</time>
                </td>
                <td>{version.author.displayName}</td>
                <td>{formatSize(version.size)}</td>
                <td>
                  {versionSourceLabel(version.source)}
                  {version.meta?.conflict === true ? (
                    <span class="badge" title={t('versions.conflictTitle')}>
                      {t('versions.conflict', { version: version.meta.baseVersion ?? '?' })}
                    </span>
                  ) : null}
                </td>
                <td>
                  <div class="actions">
                    <a
                      class="button"
                      href={api.versionDownloadUrl(props.fileId, version.version)}
                      download
                      aria-label={t('versions.downloadVersion', { version: version.version })}
                    >
                      <Icon name="download" />
                      <span>{t('common.download')}</span>
                    </a>
                    {version.version !== current ? (
                      <button
                        type="button"
                        class="button"
                        aria-label={t('versions.restoreVersion', { version: version.version })}
                        onClick={() => setRestoring(version)}
                      >
                        <Icon name="restore" />
                        <span>{t('common.restore')}</span>
                      </button>
                    ) : null}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : error ? null : (
        <p class="loading">{t('common.loading')}</p>
      )}
      {restoring && file ? (
        <RestoreDialog
          file={file}
          version={restoring}
          onClose={() => setRestoring(null)}
          onRestored={() => {
            announce(t('versions.restored', { version: restoring.version }))
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
      title={t('versions.restoreTitle', { version: props.version.version })}
      confirmLabel={t('common.restore')}
      tone="primary"
      action={async () => {
        await api.restoreVersion(props.file.id, props.version.version)
        props.onRestored()
      }}
      errorText={(failure) => (failure instanceof Error ? failure.message : t('versions.restoreFailed'))}
      onClose={props.onClose}
    >
      <p>
        {tParts(
          'versions.restoreBody',
          { title: <span class="file-name">{props.file.title}</span> },
          { version: props.version.version },
        )}
      </p>
    </ConfirmDialog>
  )
}

/**
 * Where the back link goes: the folder the file is in (its own top is "Documents"); a file
 * reached through a share whose folder the reader cannot see goes back to "Shared with me".
 */
function useFolderOf(file: api.FileItem | undefined): { href: string; title: string } {
  const [place, setPlace] = useState(() => ({ href: '/', title: t('section.documents') }))
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
            last.id === '@share'
              ? { href: '/shared', title: t('section.shared') }
              : { href: '/', title: t('section.documents') },
          )
        else setPlace({ href: folderPath(last.id), title: last.title })
      },
      () => {
        if (current) setPlace({ href: '/shared', title: t('section.shared') })
      },
    )
    return () => {
      current = false
    }
  }, [folderId])
  return place
}
