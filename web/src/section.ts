import { useEffect, useState } from 'preact/hooks'

/**
 * Which of the main sections ('@my', '@share', '@trash') the folder on screen belongs to.
 * A folder's address does not say it (/folders/<id> is the same for the owner and for
 * someone it is shared with); the folder's screen learns it with the breadcrumbs and
 * reports it here, so the main navigation marks the right section.
 */
export interface FolderSection {
  folder: string
  section: string
}

let current: FolderSection | undefined
const listeners = new Set<(value: FolderSection | undefined) => void>()

/** Records the section of the folder on screen. */
export function reportSection(folder: string, section: string): void {
  if (current?.folder === folder && current.section === section) return
  current = { folder, section }
  for (const listener of listeners) listener(current)
}

/** The section of `folder`: a section itself, or the one its screen reported (else unknown). */
export function useSectionOf(folder: string | undefined): string | undefined {
  const [value, setValue] = useState(current)
  useEffect(() => {
    listeners.add(setValue)
    return () => {
      listeners.delete(setValue)
    }
  }, [])
  if (folder === undefined) return undefined
  if (folder === '@my' || folder === '@share' || folder === '@trash') return folder
  return value?.folder === folder ? value.section : undefined
}
