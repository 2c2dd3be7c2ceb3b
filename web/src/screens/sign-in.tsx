import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { t, tParts } from '../i18n'

/** Minutes and seconds for "try again in …". */
function waitText(seconds: number): string {
  if (seconds < 60) return t('signIn.seconds', { count: seconds })
  return t('signIn.minutes', { count: Math.ceil(seconds / 60) })
}

/** The message for a failed sign-in. */
export function signInErrorMessage(error: unknown): string {
  if (!(error instanceof api.ApiError)) return t('errors.generic')
  if (error.status === 401) return t('signIn.wrong')
  if (error.type === 'USER_DISABLED') return t('signIn.disabled')
  if (error.status === 429) {
    const wait = error.retryAfter === undefined ? t('signIn.fewMinutes') : waitText(error.retryAfter)
    return t('signIn.throttled', { wait })
  }
  if (error.status === 400) return t('signIn.enterBoth')
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
      <h1>{t('signIn.title')}</h1>
      <form onSubmit={submit} class="card" aria-describedby={error ? 'sign-in-error' : undefined}>
        <label for="sign-in-user">{t('people.userName')}</label>
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
        <label for="sign-in-password">{t('people.password')}</label>
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
          {busy ? t('signIn.signingIn') : t('signIn.signIn')}
        </button>
      </form>
      <details class="first-sign-in">
        <summary>{t('signIn.firstTime')}</summary>
        <p>
          {tParts('signIn.firstTimeHelp', {
            admin: <code>admin</code>,
            generatedPassword: <code>generatedPassword</code>,
            command: <code>folio user passwd admin --password-stdin</code>,
          })}
        </p>
      </details>
    </section>
  )
}
