import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { LINK_LEVELS, SHARE_LEVELS, accessLabel } from '../access'
import { errorText } from '../error-text'
import { inSentence, t } from '../i18n'
import { announce } from '../notices'
import { Dialog } from './dialog'
import { FolderLinkSection } from './folder-link-section'
import { PersonPicker } from './person-picker'

/**
 * "Share": who has access to a file or folder and at what level (the owner first), adding
 * people found by name (nobody until one is picked), changing or removing their access, and the link that
 * opens the document, or the folder and everything in it, without an account. Every change is sent at once; the list shown is
 * the one Folio answers.
 */
export function ShareDialog(props: { target: api.ShareTarget; title: string; selfId: string; onClose: () => void }) {
  const [entries, setEntries] = useState<api.ShareEntry[] | undefined>(undefined)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    api.listShares(props.target).then(setEntries, (failure: unknown) => setError(errorText(failure)))
  }, [])

  const change = async (userId: string, access: number, done: string) => {
    setBusy(true)
    setError('')
    try {
      setEntries(await api.setShare(props.target, userId, access))
      announce(done)
    } catch (failure) {
      setError(errorText(failure))
    } finally {
      setBusy(false)
    }
  }

  const sharedWith = new Set((entries ?? []).map((entry) => entry.sharedTo.id))

  return (
    <Dialog title={t('share.title', { title: props.title })} onClose={props.onClose}>
      <AddPerson
        exclude={sharedWith}
        selfId={props.selfId}
        busy={busy}
        onAdd={(person, access) => change(person.id, access, t('share.sharedWith', { name: person.displayName }))}
      />
      <h3>{t('share.whoHasAccess')}</h3>
      {entries === undefined && !error ? <p class="hint">{t('common.loading')}</p> : null}
      <ul class="share-list" aria-label={t('share.whoHasAccess')}>
        {(entries ?? []).map((entry) => (
          <li key={entry.sharedTo.id}>
            <span class="share-name">{entry.sharedTo.displayName}</span>
            {entry.isOwner || entry.isLocked ? (
              <span class="share-access">{entry.isOwner ? t('access.owner') : accessLabel(entry.access)}</span>
            ) : (
              <>
                <select
                  aria-label={t('share.accessFor', { name: entry.sharedTo.displayName })}
                  value={String(entry.access)}
                  disabled={busy}
                  onChange={(event) =>
                    change(
                      entry.sharedTo.id,
                      Number(event.currentTarget.value),
                      t('share.nowHas', {
                        name: entry.sharedTo.displayName,
                        access: inSentence(accessLabel(Number(event.currentTarget.value))),
                      }),
                    )
                  }
                >
                  {SHARE_LEVELS.map((level) => (
                    <option key={level.access} value={String(level.access)}>
                      {t(level.labelKey)}
                    </option>
                  ))}
                </select>
                <button
                  type="button"
                  class="button small"
                  disabled={busy}
                  aria-label={t('share.removeFor', { name: entry.sharedTo.displayName })}
                  onClick={() =>
                    change(entry.sharedTo.id, 0, t('share.noLongerHas', { name: entry.sharedTo.displayName }))
                  }
                >
                  {t('share.remove')}
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
      {props.target.kind === 'file' ? (
        <LinkSection fileId={props.target.id} />
      ) : (
        <FolderLinkSection folderId={props.target.id} />
      )}
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose}>
          {t('share.done')}
        </button>
      </div>
    </Dialog>
  )
}

/** Finds people (as one types), picks one, and adds them with the chosen access. */
function AddPerson(props: {
  exclude: Set<string>
  selfId: string
  busy: boolean
  onAdd: (person: api.UserRef, access: number) => void
}) {
  const [picked, setPicked] = useState<api.Person | null>(null)
  const [access, setAccess] = useState('2')
  // A new key empties the field after each share.
  const [round, setRound] = useState(0)

  const submit = (event: Event) => {
    event.preventDefault()
    if (!picked) return
    props.onAdd(picked, Number(access))
    setPicked(null)
    setRound(round + 1)
  }

  return (
    <form class="share-add" onSubmit={submit}>
      <div class="share-field share-person">
        <label for="share-person">{t('share.person')}</label>
        <PersonPicker
          key={round}
          id="share-person"
          exclude={(person) => person.id === props.selfId || props.exclude.has(person.id)}
          picked={picked}
          onPick={setPicked}
        />
      </div>
      <div class="share-field">
        <label for="share-access">{t('share.access')}</label>
        <select id="share-access" value={access} onChange={(event) => setAccess(event.currentTarget.value)}>
          {SHARE_LEVELS.map((level) => (
            <option key={level.access} value={String(level.access)}>
              {t(level.labelKey)}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" class="button primary" disabled={props.busy || !picked}>
        {t('common.share')}
      </button>
    </form>
  )
}

/** A file's link: on with an access level, off, and copied to the clipboard. */
function LinkSection(props: { fileId: string }) {
  const [link, setLink] = useState<api.ShareLink | null | undefined>(undefined)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  // The box shows the asked-for state while Folio answers, then the answer.
  const [asked, setAsked] = useState<boolean | null>(null)
  const input = useRef<HTMLInputElement>(null)

  useEffect(() => {
    api.getShareLink(props.fileId).then(setLink, (failure: unknown) => setError(errorText(failure)))
  }, [])

  const set = async (access: number) => {
    setBusy(true)
    setError('')
    try {
      setLink(await api.setShareLink(props.fileId, access))
      announce(access === 0 ? t('share.linkOff') : t('share.linkOnNotice'))
    } catch (failure) {
      setError(errorText(failure))
    } finally {
      setBusy(false)
      setAsked(null)
    }
  }

  const copy = async () => {
    const url = link?.sharedTo.shareLink ?? ''
    try {
      await navigator.clipboard.writeText(url)
      announce(t('share.linkCopied'))
    } catch {
      // No clipboard permission: leave the link selected for Ctrl+C.
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
            void set(on ? 2 : 0)
          }}
        />
        {t('share.anyoneWithLink')}
      </label>
      {link ? (
        <>
          <label for="share-link-access">{t('share.linkAccess')}</label>
          <select
            id="share-link-access"
            value={String(link.access)}
            disabled={busy}
            onChange={(event) => void set(Number(event.currentTarget.value))}
          >
            {LINK_LEVELS.map((level) => (
              <option key={level.access} value={String(level.access)}>
                {t(level.labelKey)}
              </option>
            ))}
          </select>
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
