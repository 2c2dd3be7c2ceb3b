import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { LINK_LEVELS, SHARE_LEVELS, accessLabel } from '../access'
import { errorText } from '../error-text'
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
    <Dialog title={`Share “${props.title}”`} onClose={props.onClose}>
      <AddPerson
        exclude={sharedWith}
        selfId={props.selfId}
        busy={busy}
        onAdd={(person, access) => change(person.id, access, `Shared with ${person.displayName}`)}
      />
      <h3>Who has access</h3>
      {entries === undefined && !error ? <p class="hint">Loading…</p> : null}
      <ul class="share-list" aria-label="Who has access">
        {(entries ?? []).map((entry) => (
          <li key={entry.sharedTo.id}>
            <span class="share-name">{entry.sharedTo.displayName}</span>
            {entry.isOwner || entry.isLocked ? (
              <span class="share-access">{entry.isOwner ? 'Owner' : accessLabel(entry.access)}</span>
            ) : (
              <>
                <select
                  aria-label={`Access for ${entry.sharedTo.displayName}`}
                  value={String(entry.access)}
                  disabled={busy}
                  onChange={(event) =>
                    change(
                      entry.sharedTo.id,
                      Number(event.currentTarget.value),
                      `${entry.sharedTo.displayName} now has ${accessLabel(Number(event.currentTarget.value)).toLowerCase()}`,
                    )
                  }
                >
                  {SHARE_LEVELS.map((level) => (
                    <option key={level.access} value={String(level.access)}>
                      {level.label}
                    </option>
                  ))}
                </select>
                <button
                  type="button"
                  class="button small"
                  disabled={busy}
                  aria-label={`Remove access for ${entry.sharedTo.displayName}`}
                  onClick={() => change(entry.sharedTo.id, 0, `${entry.sharedTo.displayName} no longer has access`)}
                >
                  Remove
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
          Done
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
        <label for="share-person">Person</label>
        <PersonPicker
          key={round}
          id="share-person"
          exclude={(person) => person.id === props.selfId || props.exclude.has(person.id)}
          picked={picked}
          onPick={setPicked}
        />
      </div>
      <div class="share-field">
        <label for="share-access">Access</label>
        <select id="share-access" value={access} onChange={(event) => setAccess(event.currentTarget.value)}>
          {SHARE_LEVELS.map((level) => (
            <option key={level.access} value={String(level.access)}>
              {level.label}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" class="button primary" disabled={props.busy || !picked}>
        Share
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
      announce(access === 0 ? 'The link is off: it no longer opens the document' : 'The link is on')
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
      announce('Link copied')
    } catch {
      // No clipboard permission: leave the link selected for Ctrl+C.
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
            void set(on ? 2 : 0)
          }}
        />
        Anyone with the link, without an account
      </label>
      {link ? (
        <>
          <label for="share-link-access">Link access</label>
          <select
            id="share-link-access"
            value={String(link.access)}
            disabled={busy}
            onChange={(event) => void set(Number(event.currentTarget.value))}
          >
            {LINK_LEVELS.map((level) => (
              <option key={level.access} value={String(level.access)}>
                {level.label}
              </option>
            ))}
          </select>
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
