import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { LINK_LEVELS } from '../access'
import { errorText } from '../error-text'
import { announce } from '../notices'
import { t } from '../i18n'

/** The day (YYYY-MM-DD) of an ISO date, as a date field holds it. */
function dayOf(iso: string | undefined): string {
  return iso === undefined ? '' : iso.slice(0, 10)
}

/**
 * A folder's link: on with an access level, downloads allowed or not, an optional last day,
 * off, and copied to the clipboard. The link opens the folder and everything below it
 * without an account; every change is sent at once, with all the settings.
 */
export function FolderLinkSection(props: { folderId: string }) {
  const [link, setLink] = useState<api.FolderLink | null | undefined>(undefined)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const [asked, setAsked] = useState<boolean | null>(null)
  const input = useRef<HTMLInputElement>(null)

  useEffect(() => {
    api.getFolderLink(props.folderId).then(setLink, (failure: unknown) => setError(errorText(failure)))
  }, [])

  const current: api.FolderLinkSettings = {
    access: link?.access ?? 2,
    denyDownload: link?.sharedTo.denyDownload ?? false,
    expirationDate: link?.sharedTo.expirationDate ?? null,
  }

  const set = async (settings: api.FolderLinkSettings, done: string) => {
    setBusy(true)
    setError('')
    try {
      setLink(await api.setFolderLink(props.folderId, settings))
      announce(done)
    } catch (failure) {
      setError(errorText(failure))
    } finally {
      setBusy(false)
      setAsked(null)
    }
  }

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link?.sharedTo.shareLink ?? '')
      announce('Link copied')
    } catch {
      input.current?.select()
      announce('Press Ctrl+C to copy the selected link')
    }
  }

  return (
    <section class="share-link" aria-label="Share by link">
      <h3>Share by link</h3>
      <label class="checkbox">
        <input
          type="checkbox"
          checked={asked ?? Boolean(link)}
          disabled={busy || link === undefined}
          onChange={(event) => {
            const on = event.currentTarget.checked
            setAsked(on)
            void set(
              on ? { access: 2, denyDownload: false, expirationDate: null } : { ...current, access: 0 },
              on ? 'The link is on' : 'The link is off: it no longer opens the folder',
            )
          }}
        />
        Anyone with the link, without an account, sees this folder and everything in it
      </label>
      {link ? (
        <>
          <label for="folder-link-access">Link access</label>
          <select
            id="folder-link-access"
            value={String(link.access)}
            disabled={busy}
            onChange={(event) =>
              void set({ ...current, access: Number(event.currentTarget.value) }, 'Link access changed')
            }
          >
            {LINK_LEVELS.map((level) => (
              <option key={level.access} value={String(level.access)}>
                {t(level.labelKey)}
              </option>
            ))}
          </select>
          <label class="checkbox">
            <input
              type="checkbox"
              checked={!link.sharedTo.denyDownload}
              disabled={busy}
              onChange={(event) =>
                void set(
                  { ...current, denyDownload: !event.currentTarget.checked },
                  event.currentTarget.checked ? 'Guests may download' : 'Guests may only view',
                )
              }
            />
            Allow downloads
          </label>
          <label for="folder-link-expiry">Works until (empty: no end)</label>
          <input
            id="folder-link-expiry"
            type="date"
            value={dayOf(link.sharedTo.expirationDate)}
            disabled={busy}
            onChange={(event) => {
              const day = event.currentTarget.value
              void set(
                { ...current, expirationDate: day === '' ? null : `${day}T23:59:59Z` },
                day === '' ? 'The link has no end date' : `The link works until ${day}`,
              )
            }}
          />
          <div class="link-row">
            <input
              ref={input}
              readOnly
              aria-label="Link"
              value={link.sharedTo.shareLink}
              onFocus={(event) => event.currentTarget.select()}
            />
            <button type="button" class="button" onClick={copy}>
              Copy link
            </button>
          </div>
        </>
      ) : null}
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  )
}
