import { useEffect, useState } from 'preact/hooks'

/** A short message for everyone: shown as a toast and read by screen readers. */
export interface Notice {
  id: number
  text: string
  kind: 'info' | 'error'
}

let notices: Notice[] = []
let nextId = 1
const listeners = new Set<(list: Notice[]) => void>()

function publish(): void {
  for (const listener of listeners) listener(notices)
}

/** Shows a message for a few seconds (errors stay longer); at most two at a time. */
export function announce(text: string, kind: Notice['kind'] = 'info'): void {
  const notice = { id: nextId++, text, kind }
  notices = [...notices.slice(-1), notice]
  publish()
  setTimeout(() => dismiss(notice.id), kind === 'error' ? 10_000 : 4_000)
}

/** Removes every message (on the way to another screen: they were about this one). */
export function clearNotices(): void {
  if (notices.length === 0) return
  notices = []
  publish()
}

/** Removes a message. */
export function dismiss(id: number): void {
  notices = notices.filter((notice) => notice.id !== id)
  publish()
}

/** The messages currently shown. */
export function useNotices(): Notice[] {
  const [list, setList] = useState(notices)
  useEffect(() => {
    listeners.add(setList)
    return () => {
      listeners.delete(setList)
    }
  }, [])
  return list
}
