import { useEffect, useRef, useState } from 'preact/hooks'

/** True when a drag carries files from outside the page (not rows dragged within it). */
export function carriesFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes('Files')
}

/**
 * A file dropped where nothing takes it would be opened (or downloaded) by the browser,
 * leaving Folio: every screen refuses such drops. Called once at start.
 */
export function refuseStrayFileDrops(): void {
  const refuse = (event: DragEvent) => {
    if (!carriesFiles(event) || event.defaultPrevented) return
    event.preventDefault()
    if (event.type === 'dragover' && event.dataTransfer) event.dataTransfer.dropEffect = 'none'
  }
  window.addEventListener('dragover', refuse)
  window.addEventListener('drop', refuse)
}

/**
 * While `enabled`, the whole page takes dropped files and hands them to `onFiles`; returns
 * whether files are being dragged over it now (to show the drop target).
 */
export function usePageFileDrops(enabled: boolean, onFiles: (files: FileList) => void): boolean {
  const [dragging, setDragging] = useState(false)
  const depth = useRef(0)
  const take = useRef(onFiles)
  take.current = onFiles

  useEffect(() => {
    if (!enabled) return
    const enter = (event: DragEvent) => {
      if (!carriesFiles(event)) return
      event.preventDefault()
      depth.current++
      setDragging(true)
    }
    const over = (event: DragEvent) => {
      if (!carriesFiles(event)) return
      event.preventDefault()
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy'
    }
    const leave = (event: DragEvent) => {
      if (!carriesFiles(event)) return
      depth.current = Math.max(0, depth.current - 1)
      if (depth.current === 0) setDragging(false)
    }
    const drop = (event: DragEvent) => {
      if (!carriesFiles(event)) return
      event.preventDefault()
      depth.current = 0
      setDragging(false)
      if (event.dataTransfer?.files.length) take.current(event.dataTransfer.files)
    }
    window.addEventListener('dragenter', enter)
    window.addEventListener('dragover', over)
    window.addEventListener('dragleave', leave)
    window.addEventListener('drop', drop)
    return () => {
      window.removeEventListener('dragenter', enter)
      window.removeEventListener('dragover', over)
      window.removeEventListener('dragleave', leave)
      window.removeEventListener('drop', drop)
      depth.current = 0
      setDragging(false)
    }
  }, [enabled])
  return dragging
}

/** While `active`, the browser asks before the page is closed or reloaded. */
export function useLeaveWarning(active: boolean): void {
  useEffect(() => {
    if (!active) return
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault()
      // Older Chromium shows the prompt only when returnValue is set.
      event.returnValue = ''
    }
    window.addEventListener('beforeunload', ask)
    return () => window.removeEventListener('beforeunload', ask)
  }, [active])
}
