import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { errorText } from '../error-text'
import { t, tParts } from '../i18n'
import { folderPath } from '../router'
import { Link } from './link'

/** Wait after the last key press before searching. */
const TYPING_PAUSE_MS = 300
/** Results whose folder path is looked up and shown. */
const SHOWN = 30

type Found = (api.FileItem | api.FolderItem) & { snippet?: string }

function isFile(item: Found): item is api.FileItem & { snippet?: string } {
  return 'fileExst' in item
}

/** Where a result lives: its folder's id (a file's folder, a folder's parent). */
function homeOf(item: Found): string | undefined {
  const id = isFile(item) ? item.folderId : item.parentId
  return id === undefined || id === '' || id === 0 ? undefined : String(id)
}

function openHref(file: api.FileItem, capabilities: api.Capabilities): string {
  if (capabilities.onlyofficeEditor) return `/editor/${encodeURIComponent(file.id)}`
  if (capabilities.wopiEditor) return `/wopi-host/${encodeURIComponent(file.id)}?action=view`
  return api.downloadUrl(file.id)
}

/**
 * Searches everything the reader may open, by name and by the words inside documents
 * (`files/@search`), and lists what it found with the folder it lives in: a link to that
 * folder, and to the document itself. The folder's own "Filter by name" stays as it is.
 */
export function SearchBox(props: { capabilities: api.Capabilities }) {
  const [text, setText] = useState('')
  const [results, setResults] = useState<Found[] | undefined>(undefined)
  const [paths, setPaths] = useState<ReadonlyMap<string, string>>(new Map())
  const [error, setError] = useState('')
  const sequence = useRef(0)

  useEffect(() => {
    const wanted = text.trim()
    if (wanted === '') {
      sequence.current++
      setResults(undefined)
      setError('')
      return
    }
    const timer = setTimeout(() => void run(wanted), TYPING_PAUSE_MS)
    return () => clearTimeout(timer)
  }, [text])

  async function run(wanted: string) {
    const mine = ++sequence.current
    try {
      const found = await api.searchEverything(wanted)
      if (mine !== sequence.current) return
      setResults(found)
      setError('')
      const homes = [...new Set(found.slice(0, SHOWN).flatMap((item) => homeOf(item) ?? []))]
      const named = new Map<string, string>()
      await Promise.all(
        homes.map(async (id) => {
          const crumbs = await api.folderPath(id).catch(() => [])
          named.set(id, crumbs.map((crumb) => crumb.title).join(' / '))
        }),
      )
      if (mine === sequence.current) setPaths(named)
    } catch (failure) {
      if (mine === sequence.current) setError(errorText(failure))
    }
  }

  return (
    <section class="search-everything" aria-label={t('search.label')}>
      <label class="filter">
        <span class="visually-hidden">{t('search.fieldLabel')}</span>
        <input
          type="search"
          placeholder={t('search.placeholder')}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') setText('')
          }}
        />
      </label>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {results !== undefined ? (
        <div class="search-results" role="region" aria-label={t('search.results')} aria-live="polite">
          {results.length === 0 ? <p class="empty">{t('search.nothingFound', { text: text.trim() })}</p> : null}
          <ul>
            {results.slice(0, SHOWN).map((item) => {
              const home = homeOf(item)
              const where = home === undefined ? undefined : paths.get(home)
              return (
                <li key={`${isFile(item) ? 'file' : 'folder'}:${item.id}`} class="search-result">
                  {isFile(item) ? (
                    <a class="file-name" href={openHref(item, props.capabilities)} target="_blank" rel="noopener">
                      {item.title}
                    </a>
                  ) : (
                    <Link href={folderPath(item.id)} class="folder-name">
                      {item.title}
                    </Link>
                  )}
                  {item.snippet ? <p class="snippet">{item.snippet}</p> : null}
                  {home !== undefined ? (
                    <p class="where">
                      {tParts('search.in', {
                        folder: <Link href={folderPath(home)}>{where || t('search.itsFolder')}</Link>,
                      })}
                    </p>
                  ) : null}
                </li>
              )
            })}
          </ul>
        </div>
      ) : null}
    </section>
  )
}
