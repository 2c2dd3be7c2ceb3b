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
      announce(t('share.linkCopied'))
    } catch {
      input.current?.select()
      announce(t('share.pressCtrlC'))
    }
  }

  return (
    <section class="share-link" aria-label={t('share.byLink')}>
      <h3>{t('share.byLink')}</h3>
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
              on ? t('share.linkOnNotice') : t('folderLink.off'),
            )
          }}
        />
        {t('folderLink.anyone')}
      </label>
      {link ? (
        <>
          <label for="folder-link-access">{t('share.linkAccess')}</label>
          <select
            id="folder-link-access"
            value={String(link.access)}
            disabled={busy}
            onChange={(event) =>
              void set({ ...current, access: Number(event.currentTarget.value) }, t('folderLink.accessChanged'))
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
                  event.currentTarget.checked ? t('folderLink.mayDownload') : t('folderLink.onlyView'),
                )
              }
            />
            {t('folderLink.allowDownloads')}
          </label>
          <label for="folder-link-expiry">{t('folderLink.until')}</label>
          <input
            id="folder-link-expiry"
            type="date"
            value={dayOf(link.sharedTo.expirationDate)}
            disabled={busy}
            onChange={(event) => {
              const day = event.currentTarget.value
              void set(
                { ...current, expirationDate: day === '' ? null : `${day}T23:59:59Z` },
                day === '' ? t('folderLink.noEnd') : t('folderLink.worksUntil', { day }),
              )
            }}
          />
          <div class="link-row">
            <input
              ref={input}
              readOnly
              aria-label={t('share.link')}
              value={link.sharedTo.shareLink}
              onFocus={(event) => event.currentTarget.select()}
            />
            <button type="button" class="button" onClick={copy}>
              {t('share.copyLink')}
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
