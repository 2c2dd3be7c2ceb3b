import { useEffect, useRef } from 'preact/hooks'
import * as api from '../api'
import { Link } from '../components/link'

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
        You no longer have access to this folder
      </h1>
      <p>Its owner stopped sharing it with you, or it was deleted. Nothing here can be opened or changed now.</p>
      <p>
        <Link href="/" class="button primary">
          Back to your documents
        </Link>
      </p>
    </section>
  )
}
