import { useEffect, useRef } from 'preact/hooks'
import { Link } from './link'
import { t } from '../i18n'

/** Why a folder's screen cannot show the folder any more. */
export type Gone = { kind: 'trashed'; title: string; originTitle?: string } | { kind: 'missing' }

/**
 * A folder that is gone: in the trash (where it went and the way to it), or deleted for
 * good or no longer shared (the way home). Nothing here adds to or changes the folder.
 */
export function GoneFolder(props: { gone: Gone }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [props.gone.kind])
  const { gone } = props
  return (
    <section class="gone-folder" aria-labelledby="gone-heading">
      {gone.kind === 'trashed' ? (
        <>
          <h1 id="gone-heading" ref={heading} tabIndex={-1}>
            {t('gone.inTrashTitle', { title: gone.title })}
          </h1>
          <p>{gone.originTitle ? t('gone.deletedFrom', { origin: gone.originTitle }) : t('gone.deleted')}</p>
          <p class="gone-ways">
            <Link href="/trash" class="button primary">
              {t('gone.openTrash')}
            </Link>
            <Link href="/" class="button">
              {t('gone.backToDocuments')}
            </Link>
          </p>
        </>
      ) : (
        <>
          <h1 id="gone-heading" ref={heading} tabIndex={-1}>
            {t('gone.unavailableTitle')}
          </h1>
          <p>{t('gone.unavailableBody')}</p>
          <p class="gone-ways">
            <Link href="/" class="button primary">
              {t('gone.backToDocuments')}
            </Link>
            <Link href="/shared" class="button">
              {t('section.shared')}
            </Link>
          </p>
        </>
      )}
    </section>
  )
}
