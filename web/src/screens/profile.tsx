import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { errorText } from '../error-text'
import { formatSize } from '../format'
import { announce } from '../notices'

/**
 * One's own account: display name, user name, e-mail; a password change (the current
 * password first; every other session and WOPI token of the account ends); and signing
 * out everywhere else.
 */
export function ProfileScreen(props: { profile: api.Profile }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  const { profile } = props
  return (
    <section class="profile">
      <h1 ref={heading} tabIndex={-1}>
        Your profile
      </h1>
      <dl class="card profile-facts">
        <dt>Display name</dt>
        <dd>{profile.displayName}</dd>
        <dt>User name</dt>
        <dd>{profile.userName}</dd>
        <dt>E-mail</dt>
        <dd>{profile.email || 'None'}</dd>
      </dl>
      <StorageFacts />
      <PasswordForm />
      <OtherSessions />
    </section>
  )
}

function PasswordForm() {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [again, setAgain] = useState('')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    if (next !== again) return setError('The new passwords differ: type the same one twice.')
    setBusy(true)
    setError('')
    try {
      await api.changeOwnPassword(current, next)
      setCurrent('')
      setNext('')
      setAgain('')
      announce('Your password is changed. Your other sessions are signed out.')
    } catch (failure) {
      setError(
        failure instanceof api.ApiError && failure.status === 403
          ? 'The current password is not right.'
          : errorText(failure),
      )
    } finally {
      setBusy(false)
    }
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="password-heading">
      <h2 id="password-heading">Change your password</h2>
      <label for="profile-current">Current password</label>
      <input
        id="profile-current"
        type="password"
        autocomplete="current-password"
        required
        value={current}
        onInput={(event) => setCurrent(event.currentTarget.value)}
      />
      <label for="profile-new">New password</label>
      <input
        id="profile-new"
        type="password"
        autocomplete="new-password"
        required
        value={next}
        onInput={(event) => setNext(event.currentTarget.value)}
      />
      <label for="profile-again">New password again</label>
      <input
        id="profile-again"
        type="password"
        autocomplete="new-password"
        required
        value={again}
        onInput={(event) => setAgain(event.currentTarget.value)}
      />
      <p class="hint">Every other place you are signed in (other browsers, apps, open editors) is signed out.</p>
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" class="button primary" disabled={busy}>
        Change password
      </button>
    </form>
  )
}

function OtherSessions() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const signOutOthers = async () => {
    setBusy(true)
    setError('')
    try {
      await api.signOutOtherSessions()
      announce('You are signed out everywhere else.')
    } catch (failure) {
      setError(errorText(failure))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Other sessions</h2>
      <p class="hint">
        Signed in on another computer, or forgot to sign out somewhere? End every session but this one.
      </p>
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="button" class="button" disabled={busy} onClick={signOutOthers}>
        Sign out other sessions
      </button>
    </section>
  )
}

/** One's used space and quota, read fresh (the session's profile carries neither). */
function StorageFacts() {
  const [me, setMe] = useState<api.Profile | undefined>(undefined)
  useEffect(() => {
    api.whoAmI().then(setMe, () => undefined)
  }, [])
  if (me?.usedSpace === undefined) return null
  const limit = me.quotaLimit ?? -1
  return (
    <section class="card" aria-labelledby="storage-heading">
      <h2 id="storage-heading">Storage</h2>
      <p class="storage-used">
        {limit < 0
          ? `You use ${formatSize(me.usedSpace)}. No quota is set.`
          : `You use ${formatSize(me.usedSpace)} of your ${formatSize(limit)} quota.`}
      </p>
      {limit >= 0 ? (
        <progress
          class="storage-meter"
          max={limit || 1}
          value={Math.min(me.usedSpace, limit)}
          aria-label="Storage used"
        />
      ) : null}
      <p class="hint">Every version of your files counts, the trash too. Empty the trash to free space.</p>
    </section>
  )
}
