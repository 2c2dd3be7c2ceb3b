import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { errorText } from '../error-text'
import { browserLocale, chooseLocale, chosenLocale, LOCALE_NAMES, LOCALES, t, useLocale, type Locale } from '../i18n'
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
        {t('profile.title')}
      </h1>
      <dl class="card profile-facts">
        <dt>{t('profile.displayName')}</dt>
        <dd>{profile.displayName}</dd>
        <dt>{t('people.userName')}</dt>
        <dd>{profile.userName}</dd>
        <dt>{t('profile.email')}</dt>
        <dd>{profile.email || t('profile.none')}</dd>
      </dl>
      <LanguageForm />
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
    if (next !== again) return setError(t('profile.passwordsDiffer'))
    setBusy(true)
    setError('')
    try {
      await api.changeOwnPassword(current, next)
      setCurrent('')
      setNext('')
      setAgain('')
      announce(t('profile.passwordChanged'))
    } catch (failure) {
      setError(
        failure instanceof api.ApiError && failure.status === 403 ? t('profile.currentWrong') : errorText(failure),
      )
    } finally {
      setBusy(false)
    }
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="password-heading">
      <h2 id="password-heading">{t('profile.changeYourPassword')}</h2>
      <label for="profile-current">{t('profile.currentPassword')}</label>
      <input
        id="profile-current"
        type="password"
        autocomplete="current-password"
        required
        value={current}
        onInput={(event) => setCurrent(event.currentTarget.value)}
      />
      <label for="profile-new">{t('people.newPassword')}</label>
      <input
        id="profile-new"
        type="password"
        autocomplete="new-password"
        required
        value={next}
        onInput={(event) => setNext(event.currentTarget.value)}
      />
      <label for="profile-again">{t('profile.newPasswordAgain')}</label>
      <input
        id="profile-again"
        type="password"
        autocomplete="new-password"
        required
        value={again}
        onInput={(event) => setAgain(event.currentTarget.value)}
      />
      <p class="hint">{t('profile.passwordHint')}</p>
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" class="button primary" disabled={busy}>
        {t('profile.changePassword')}
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
      announce(t('profile.signedOutElsewhere'))
    } catch (failure) {
      setError(errorText(failure))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">{t('profile.otherSessions')}</h2>
      <p class="hint">{t('profile.otherSessionsHint')}</p>
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="button" class="button" disabled={busy} onClick={signOutOthers}>
        {t('profile.signOutOthers')}
      </button>
    </section>
  )
}

/**
 * The interface's language: the browser's (the default) or one picked here, kept with the
 * account (so every browser it signs in on speaks it) and in this browser. The page changes
 * language at once.
 */
function LanguageForm() {
  const locale = useLocale()
  const [choice, setChoice] = useState<Locale | undefined>(chosenLocale)
  const [error, setError] = useState('')
  const fromBrowser = browserLocale(navigator.languages)
  return (
    <section class="card" aria-labelledby="language-heading">
      <h2 id="language-heading">{t('profile.language')}</h2>
      <label for="profile-language">{t('profile.languageLabel')}</label>
      <select
        id="profile-language"
        value={choice ?? ''}
        onChange={(event) => {
          const value = event.currentTarget.value
          const picked = LOCALES.find((known) => known === value)
          setChoice(picked)
          setError('')
          void chooseLocale(picked)
          api.setCulture(picked ?? '').catch((failure: unknown) => setError(errorText(failure)))
        }}
      >
        <option value="">{t('profile.languageBrowser', { language: LOCALE_NAMES[fromBrowser] })}</option>
        {LOCALES.map((known) => (
          <option key={known} value={known} lang={known}>
            {LOCALE_NAMES[known]}
          </option>
        ))}
      </select>
      <p class="hint" lang={locale}>
        {t('profile.languageHint')}
      </p>
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
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
      <h2 id="storage-heading">{t('storage.heading')}</h2>
      <p class="storage-used">
        {limit < 0
          ? t('storage.youUseNoQuota', { used: formatSize(me.usedSpace) })
          : t('storage.youUseOfQuota', { used: formatSize(me.usedSpace), limit: formatSize(limit) })}
      </p>
      {limit >= 0 ? (
        <progress
          class="storage-meter"
          max={limit || 1}
          value={Math.min(me.usedSpace, limit)}
          aria-label={t('storage.meter')}
        />
      ) : null}
      <p class="hint">{t('storage.hint')}</p>
    </section>
  )
}
