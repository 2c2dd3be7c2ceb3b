import { useEffect, useState } from 'preact/hooks'
import { clearNotices } from './notices'

/**
 * The screens and their addresses. Folio serves index.html at each of these
 * paths (CLIENT_ROUTES in src/protocols/portal/web/index.ts lists the same ones).
 */
export type Route =
  /** A folder: '@my' (/), '@share' (/shared), '@trash' (/trash) or a folder id (/folders/<id>). */
  | { name: 'documents'; folder: string }
  | { name: 'sign-in'; next: string }
  | { name: 'people' }
  | { name: 'profile' }
  | { name: 'versions'; fileId: string }
  | { name: 'preview'; fileId: string }
  | { name: 'not-found' }

/** Only same-site paths may be a `next` after sign-in (no open redirect). */
export function safeNext(value: string | null): string {
  return value && /^\/(?!\/)[^\\]*$/.test(value) ? value : '/'
}

/** The route of an address. */
export function parseRoute(pathname: string, search: string): Route {
  if (pathname === '/') return { name: 'documents', folder: '@my' }
  if (pathname === '/shared') return { name: 'documents', folder: '@share' }
  if (pathname === '/trash') return { name: 'documents', folder: '@trash' }
  const folder = /^\/folders\/([^/]+)$/.exec(pathname)
  if (folder?.[1]) return { name: 'documents', folder: decodeURIComponent(folder[1]) }
  if (pathname === '/sign-in') return { name: 'sign-in', next: safeNext(new URLSearchParams(search).get('next')) }
  if (pathname === '/people') return { name: 'people' }
  if (pathname === '/profile') return { name: 'profile' }
  const versions = /^\/versions\/([^/]+)$/.exec(pathname)
  if (versions?.[1]) return { name: 'versions', fileId: decodeURIComponent(versions[1]) }
  const preview = /^\/files\/([^/]+)\/preview$/.exec(pathname)
  if (preview?.[1]) return { name: 'preview', fileId: decodeURIComponent(preview[1]) }
  return { name: 'not-found' }
}

/** The address of a file's preview page. */
export function previewPath(fileId: string): string {
  return `/files/${encodeURIComponent(fileId)}/preview`
}

/** The address of a folder's screen. */
export function folderPath(folder: string): string {
  if (folder === '@my') return '/'
  if (folder === '@share') return '/shared'
  if (folder === '@trash') return '/trash'
  return `/folders/${encodeURIComponent(folder)}`
}

const listeners = new Set<() => void>()

/**
 * Goes to a path inside the app without reloading. Messages about the screen being left
 * go with it (a message announced after the call is shown on the new screen).
 */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', path)
  else history.pushState(null, '', path)
  clearNotices()
  for (const listener of listeners) listener()
}

/** The current route; re-renders on navigation and on Back/Forward. */
export function useRoute(): Route {
  const read = () => parseRoute(location.pathname, location.search)
  const [route, setRoute] = useState<Route>(read)
  useEffect(() => {
    const update = () => setRoute(read())
    const back = () => {
      clearNotices()
      update()
    }
    listeners.add(update)
    window.addEventListener('popstate', back)
    return () => {
      listeners.delete(update)
      window.removeEventListener('popstate', back)
    }
  }, [])
  return route
}

/** Click handler for in-app links: plain clicks navigate, modified clicks open as usual. */
export function followLink(event: MouseEvent, path: string): void {
  if (event.defaultPrevented || event.button !== 0) return
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  event.preventDefault()
  navigate(path)
}
