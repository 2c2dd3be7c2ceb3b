import { useCallback, useEffect, useState } from 'preact/hooks'
import * as api from './api'
import { Icon } from './components/icons'
import { tellDesktopSignedIn, tellDesktopSignedOut } from './desktop'
import { Link } from './components/link'
import { adoptAccountLocale, t, useLocale } from './i18n'
import { announce, clearNotices, dismiss, useNotices } from './notices'
import { navigate, useRoute } from './router'
import { useSectionOf } from './section'
import { DocumentsScreen } from './screens/documents'
import { PeopleScreen } from './screens/people'
import { ProfileScreen } from './screens/profile'
import { SignInScreen } from './screens/sign-in'
import { PreviewScreen } from './screens/preview'
import { VersionsScreen } from './screens/versions'

type Session =
  | { state: 'loading' }
  | { state: 'signed-out' }
  | { state: 'signed-in'; profile: api.Profile; capabilities: api.Capabilities }

const NO_CAPABILITIES: api.Capabilities = {
  onlyofficeEditor: false,
  wopiEditor: false,
  maxFileSize: Infinity,
  converter: false,
  previews: {},
  conversions: {},
}

function here(): string {
  return location.pathname + location.search
}

/** The whole interface: the session, the top bar and the screen of the current address. */
export function App() {
  const route = useRoute()
  // Renders the whole interface again in a newly chosen language.
  useLocale()
  const [session, setSession] = useState<Session>({ state: 'loading' })

  const startSession = useCallback(async (profile: api.Profile) => {
    const capabilities = await api.capabilities().catch(() => NO_CAPABILITIES)
    void adoptAccountLocale(profile.cultureName)
    setSession({ state: 'signed-in', profile, capabilities })
    tellDesktopSignedIn(profile)
  }, [])

  useEffect(() => {
    api.setUnauthenticatedHandler(() => setSession({ state: 'signed-out' }))
    // One probe that answers "signed out" without an error status.
    api.session().then(
      (found) => {
        if (!found.signedIn) return setSession({ state: 'signed-out' })
        void adoptAccountLocale(found.profile.cultureName)
        setSession({ state: 'signed-in', profile: found.profile, capabilities: found.capabilities })
        tellDesktopSignedIn(found.profile)
      },
      () => setSession({ state: 'signed-out' }),
    )
  }, [])

  // Keep the address in step with the session.
  useEffect(() => {
    if (session.state === 'signed-out' && route.name !== 'sign-in') {
      const next = here()
      navigate(next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`, { replace: true })
    }
    if (session.state === 'signed-in' && route.name === 'sign-in') navigate(route.next, { replace: true })
  }, [session.state, route])

  const signOut = async () => {
    try {
      await api.signOut()
    } catch {
      // The cookie is cleared or already gone; show the sign-in screen anyway.
    }
    setSession({ state: 'signed-out' })
    tellDesktopSignedOut()
    navigate('/sign-in')
    announce(t('app.signedOut'))
  }

  // The section the folder on screen is in (a folder shared with you is in "Shared with me").
  const section = useSectionOf(route.name === 'documents' ? route.folder : undefined)

  return (
    <>
      <a class="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      {session.state === 'signed-in' ? (
        <header class="topbar">
          <Link href="/" class="brand" aria-label={t('app.brandLabel')}>
            <svg viewBox="0 0 32 32" width="24" height="24" aria-hidden="true">
              <path d="M7 2h13l7 7v21H7z" fill="currentColor" />
            </svg>
            <span>Folio</span>
          </Link>
          <nav aria-label={t('app.mainNav')}>
            <Link href="/" aria-current={section === '@my' ? 'page' : undefined}>
              {t('section.documents')}
            </Link>
            <Link href="/shared" aria-current={section === '@share' ? 'page' : undefined}>
              {t('section.shared')}
            </Link>
            <Link href="/trash" aria-current={section === '@trash' ? 'page' : undefined}>
              {t('section.trash')}
            </Link>
            {session.profile.isAdmin ? (
              <Link href="/people" aria-current={route.name === 'people' ? 'page' : undefined}>
                {t('section.people')}
              </Link>
            ) : null}
          </nav>
          <Link
            href="/profile"
            class="who"
            title={t('app.yourProfile', { userName: session.profile.userName })}
            aria-current={route.name === 'profile' ? 'page' : undefined}
          >
            <Icon name="user" />
            <span class="who-name">{session.profile.displayName}</span>
          </Link>
          <button type="button" class="button subtle" onClick={signOut}>
            {t('app.signOut')}
          </button>
        </header>
      ) : null}
      <main id="main" tabIndex={-1}>
        <Notices />
        {session.state === 'loading' ? <p class="loading">{t('common.loading')}</p> : null}
        {session.state === 'signed-out' && route.name === 'sign-in' ? (
          <SignInScreen onSignedIn={(profile) => startSession(profile)} />
        ) : null}
        {session.state === 'signed-in' ? (
          <SignedIn route={route} profile={session.profile} capabilities={session.capabilities} />
        ) : null}
      </main>
    </>
  )
}

function SignedIn(props: { route: ReturnType<typeof useRoute>; profile: api.Profile; capabilities: api.Capabilities }) {
  const { route } = props
  if (route.name === 'documents') {
    return (
      <DocumentsScreen
        folder={route.folder}
        capabilities={props.capabilities}
        isAdmin={props.profile.isAdmin}
        selfId={props.profile.id}
      />
    )
  }
  if (route.name === 'versions') return <VersionsScreen fileId={route.fileId} />
  if (route.name === 'preview') return <PreviewScreen fileId={route.fileId} capabilities={props.capabilities} />
  if (route.name === 'people') {
    if (!props.profile.isAdmin) return <NotAllowed />
    return <PeopleScreen self={props.profile} />
  }
  if (route.name === 'profile') return <ProfileScreen profile={props.profile} />
  if (route.name === 'sign-in') return null
  return (
    <section>
      <h1>{t('app.pageNotFound')}</h1>
      <p>
        <Link href="/">{t('common.backToDocuments')}</Link>
      </p>
    </section>
  )
}

function NotAllowed() {
  return (
    <section>
      <h1>{t('app.onlyAdmins')}</h1>
      <p>
        <Link href="/">{t('common.backToDocuments')}</Link>
      </p>
    </section>
  )
}

function Notices() {
  const notices = useNotices()
  return (
    <div class="notices" role="status" aria-live="polite">
      {notices.map((notice) => (
        <div key={notice.id} class={`notice ${notice.kind}`}>
          <span>{notice.text}</span>
          <button
            type="button"
            class="icon-button"
            aria-label={t('app.dismissMessage')}
            onClick={() => dismiss(notice.id)}
          >
            <Icon name="close" />
          </button>
        </div>
      ))}
    </div>
  )
}
