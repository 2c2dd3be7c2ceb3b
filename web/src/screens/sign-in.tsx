import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'

/** Minutes and seconds for "try again in …". */
function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`
  const minutes = Math.ceil(seconds / 60)
  return `${minutes} minute${minutes === 1 ? '' : 's'}`
}

/** The message for a failed sign-in. */
export function signInErrorMessage(error: unknown): string {
  if (!(error instanceof api.ApiError)) return 'Something went wrong. Try again.'
  if (error.status === 401) return 'The user name or password is wrong.'
  if (error.type === 'USER_DISABLED') return 'This account is disabled. Ask an admin to enable it.'
  if (error.status === 429) {
    const wait = error.retryAfter === undefined ? 'a few minutes' : waitText(error.retryAfter)
    return `Too many failed attempts. For your safety, sign-in is paused: try again in ${wait}.`
  }
  if (error.status === 400) return 'Enter your user name and password.'
  return error.message
}

/** Sign-in: user name and password; the session becomes an HttpOnly cookie. */
export function SignInScreen(props: { onSignedIn: (profile: api.Profile) => Promise<void> }) {
  const [userName, setUserName] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const nameInput = useRef<HTMLInputElement>(null)
  const passwordInput = useRef<HTMLInputElement>(null)

  useEffect(() => nameInput.current?.focus(), [])

  const submit = async (event: Event) => {
    event.preventDefault()
    if (busy) return
    setBusy(true)
    setError('')
    try {
      const profile = await api.signIn(userName.trim(), password)
      await props.onSignedIn(profile)
    } catch (failure) {
      setError(signInErrorMessage(failure))
      setPassword('')
      passwordInput.current?.focus()
    } finally {
      setBusy(false)
    }
  }

  return (
    <section class="sign-in">
      <h1>Sign in to Folio</h1>
      <form onSubmit={submit} class="card" aria-describedby={error ? 'sign-in-error' : undefined}>
        <label for="sign-in-user">User name</label>
        <input
          id="sign-in-user"
          ref={nameInput}
          name="username"
          autocomplete="username"
          autocapitalize="none"
          spellcheck={false}
          required
          value={userName}
          onInput={(event) => setUserName(event.currentTarget.value)}
        />
        <label for="sign-in-password">Password</label>
        <input
          id="sign-in-password"
          ref={passwordInput}
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          aria-invalid={error ? true : undefined}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        {error ? (
          <p id="sign-in-error" class="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <details class="first-sign-in">
        <summary>First time here?</summary>
        <p>
          Ask whoever runs Folio for your user name and password. If that is you: the first admin account (usually{' '}
          <code>admin</code>) has a password that is printed in the server's log when Folio starts for the first time
          (look for <code>generatedPassword</code>). To set a new one, run{' '}
          <code>folio user passwd admin --password-stdin</code> on the server.
        </p>
      </details>
    </section>
  )
}
