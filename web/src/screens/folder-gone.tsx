import { useEffect, useRef } from 'preact/hooks'
import * as api from '../api'
import { Link } from '../components/link'
import { t } from '../i18n'

/** A folder read failed because the caller may no longer see it (or it no longer exists). */
export function isGone(error: unknown): boolean {
  return error instanceof api.ApiError && (error.status === 404 || error.status === 403)
}

/** In place of a folder that can no longer be read: what happened and the way home. */
export function FolderGone() {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <section class="folder-gone">
      <h1 ref={heading} tabIndex={-1}>
        {t('gone.noAccessTitle')}
      </h1>
      <p>{t('gone.noAccessBody')}</p>
      <p>
        <Link href="/" class="button primary">
          {t('common.backToDocuments')}
        </Link>
      </p>
    </section>
  )
}
