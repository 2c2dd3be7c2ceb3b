import { useEffect, useRef } from 'preact/hooks'
import { Link } from './link'

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
            “{gone.title}” is in the trash
          </h1>
          <p>
            It was deleted{gone.originTitle ? ` from ${gone.originTitle}` : ''}. Nothing can be added to it there;
            restore it from the trash to use it again.
          </p>
          <p class="gone-ways">
            <Link href="/trash" class="button primary">
              Open the trash
            </Link>
            <Link href="/" class="button">
              Back to Documents
            </Link>
          </p>
        </>
      ) : (
        <>
          <h1 id="gone-heading" ref={heading} tabIndex={-1}>
            This folder is not available
          </h1>
          <p>It was deleted for good, or it is no longer shared with you.</p>
          <p class="gone-ways">
            <Link href="/" class="button primary">
              Back to Documents
            </Link>
            <Link href="/shared" class="button">
              Shared with me
            </Link>
          </p>
        </>
      )}
    </section>
  )
}
