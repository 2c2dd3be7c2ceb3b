import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { ConfirmDialog, Dialog } from '../components/dialog'
import { Icon } from '../components/icons'
import { parseByteSize } from '../../../src/core/accounts/quota.js'
import { formatDate, formatSize, storageText } from '../format'
import { t } from '../i18n'
import { announce } from '../notices'

function messageOf(error: unknown): string {
  if (error instanceof api.ApiError) {
    if (error.type === 'USER_EXISTS') return t('people.userNameTaken')
    return error.message
  }
  return t('errors.generic')
}

/** Admins only: add people, reset passwords, grant or withdraw admin rights, disable, enable and remove people. */
export function PeopleScreen(props: { self: api.Profile }) {
  const [people, setPeople] = useState<api.Profile[] | undefined>(undefined)
  const [error, setError] = useState('')
  const [resetting, setResetting] = useState<api.Profile | null>(null)
  const [removing, setRemoving] = useState<api.Profile | null>(null)
  const [changingAdmin, setChangingAdmin] = useState<api.Profile | null>(null)
  const [disabling, setDisabling] = useState<api.Profile | null>(null)
  const [limiting, setLimiting] = useState<api.Profile | null>(null)
  const heading = useRef<HTMLHeadingElement>(null)

  const load = async () => {
    try {
      setPeople(await api.listPeople())
      setError('')
    } catch (failure) {
      setError(messageOf(failure))
    }
  }
  useEffect(() => {
    void load()
  }, [])
  useEffect(() => heading.current?.focus(), [])

  const toggleAdmin = async (person: api.Profile) => {
    const updated = await api.updatePerson(person.id, { isAdmin: !person.isAdmin })
    announce(
      updated.isAdmin
        ? t('people.nowAdmin', { userName: updated.userName })
        : t('people.noLongerAdmin', { userName: updated.userName }),
    )
    setChangingAdmin(null)
    await load()
  }

  const setDisabled = async (person: api.Profile, disabled: boolean) => {
    await api.setPersonDisabled(person.id, disabled)
    announce(
      disabled
        ? t('people.disabledNotice', { userName: person.userName })
        : t('people.enabledNotice', { userName: person.userName }),
    )
    setDisabling(null)
    await load()
  }
  const enable = async (person: api.Profile) => {
    try {
      await setDisabled(person, false)
    } catch (failure) {
      announce(messageOf(failure), 'error')
    }
  }

  return (
    <section class="people">
      <h1 ref={heading} tabIndex={-1}>
        {t('section.people')}
      </h1>
      <AddPersonForm
        onAdded={(person) => {
          announce(t('people.added', { userName: person.userName }))
          void load()
        }}
      />
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {people ? (
        <table class="people-list" aria-label={t('section.people')}>
          <thead>
            <tr>
              <th scope="col">{t('people.userName')}</th>
              <th scope="col">{t('dialogs.name')}</th>
              <th scope="col" class="col-email">
                {t('people.email')}
              </th>
              <th scope="col">{t('people.admin')}</th>
              <th scope="col" class="col-storage">
                {t('storage.column')}
              </th>
              <th scope="col" class="col-created">
                {t('people.colAdded')}
              </th>
              <th scope="col">
                <span class="visually-hidden">{t('documents.colActions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {people.map((person) => {
              const isSelf = person.id === props.self.id
              return (
                <tr key={person.id}>
                  <td>
                    <span class="user-name">{person.userName}</span>
                    {isSelf ? <span class="badge">{t('people.you')}</span> : null}
                    {isDisabled(person) ? <span class="badge">{t('people.disabledBadge')}</span> : null}
                  </td>
                  <td>{person.displayName}</td>
                  <td class="col-email">{person.email}</td>
                  <td class="col-admin" data-label={t('people.admin')}>
                    <label class="switch">
                      <input
                        type="checkbox"
                        checked={person.isAdmin}
                        disabled={isSelf}
                        aria-label={t('people.isAdmin', { userName: person.userName })}
                        title={isSelf ? t('people.cannotWithdrawOwn') : undefined}
                        onClick={(event) => {
                          // The switch changes only once the admin confirms.
                          event.preventDefault()
                          setChangingAdmin(person)
                        }}
                      />
                    </label>
                  </td>
                  <td class="col-storage">{storageText(person)}</td>
                  <td class="col-created">{formatDate(person.created)}</td>
                  <td>
                    <div class="actions">
                      <button
                        type="button"
                        class="button"
                        aria-label={t('people.resetPasswordOf', { userName: person.userName })}
                        onClick={() => setResetting(person)}
                      >
                        <Icon name="key" />
                        <span>{t('people.resetPassword')}</span>
                      </button>
                      <button
                        type="button"
                        class="button"
                        aria-label={t('storage.setQuotaOf', { name: person.userName })}
                        onClick={() => setLimiting(person)}
                      >
                        <Icon name="storage" />
                        <span>{t('storage.quota')}</span>
                      </button>
                      {isSelf ? null : isDisabled(person) ? (
                        <button
                          type="button"
                          class="button"
                          aria-label={t('people.enableUser', { userName: person.userName })}
                          onClick={() => void enable(person)}
                        >
                          <span>{t('people.enable')}</span>
                        </button>
                      ) : (
                        <button
                          type="button"
                          class="button"
                          aria-label={t('people.disableUser', { userName: person.userName })}
                          onClick={() => setDisabling(person)}
                        >
                          <span>{t('people.disable')}</span>
                        </button>
                      )}
                      {isSelf ? null : (
                        <button
                          type="button"
                          class="button danger"
                          aria-label={t('people.removeUser', { userName: person.userName })}
                          onClick={() => setRemoving(person)}
                        >
                          <Icon name="trash" />
                          <span>{t('share.remove')}</span>
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      ) : error ? null : (
        <p class="loading">{t('common.loading')}</p>
      )}
      {resetting ? (
        <ResetPasswordDialog
          person={resetting}
          onClose={() => setResetting(null)}
          onDone={() => {
            announce(t('people.passwordSet', { userName: resetting.userName }))
            setResetting(null)
          }}
        />
      ) : null}
      {limiting ? (
        <QuotaDialog
          person={limiting}
          onClose={() => setLimiting(null)}
          onDone={(quota) => {
            announce(
              quota < 0
                ? t('storage.quotaRemoved', { name: limiting.userName })
                : t('storage.quotaSet', { name: limiting.userName, limit: formatSize(quota) }),
            )
            setLimiting(null)
            void load()
          }}
        />
      ) : null}
      {changingAdmin ? (
        <ConfirmDialog
          title={
            changingAdmin.isAdmin
              ? t('people.withdrawTitle', { userName: changingAdmin.userName })
              : t('people.makeAdminTitle', { userName: changingAdmin.userName })
          }
          confirmLabel={changingAdmin.isAdmin ? t('people.withdraw') : t('people.makeAdmin')}
          tone={changingAdmin.isAdmin ? 'danger' : 'primary'}
          action={() => toggleAdmin(changingAdmin)}
          errorText={messageOf}
          onClose={() => setChangingAdmin(null)}
        >
          <p>{changingAdmin.isAdmin ? t('people.withdrawBody') : t('people.makeAdminBody')}</p>
        </ConfirmDialog>
      ) : null}
      {disabling ? (
        <ConfirmDialog
          title={t('people.disableTitle', { userName: disabling.userName })}
          confirmLabel={t('people.disable')}
          tone="danger"
          action={() => setDisabled(disabling, true)}
          errorText={messageOf}
          onClose={() => setDisabling(null)}
        >
          <p>{t('people.disableBody')}</p>
        </ConfirmDialog>
      ) : null}
      {removing ? (
        <Dialog title={t('people.removeTitle', { userName: removing.userName })} onClose={() => setRemoving(null)}>
          <p>{t('people.removeBody')}</p>
          <div class="dialog-actions">
            <button type="button" class="button" onClick={() => setRemoving(null)} autofocus>
              {t('common.cancel')}
            </button>
            <button
              type="button"
              class="button danger"
              onClick={async () => {
                try {
                  await api.removePerson(removing.id)
                  announce(t('people.removed', { userName: removing.userName }))
                } catch (failure) {
                  announce(messageOf(failure), 'error')
                }
                setRemoving(null)
                void load()
              }}
            >
              {t('share.remove')}
            </button>
          </div>
        </Dialog>
      ) : null}
    </section>
  )
}

/** EmployeeStatus 2 (Terminated): an admin disabled the account. */
function isDisabled(person: api.Profile): boolean {
  return person.status === 2
}

function AddPersonForm(props: { onAdded: (person: api.Profile) => void }) {
  const empty = { userName: '', displayName: '', email: '', password: '', isAdmin: false }
  const [form, setForm] = useState(empty)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError('')
    try {
      const person = await api.addPerson({
        userName: form.userName.trim(),
        password: form.password,
        isAdmin: form.isAdmin,
        displayName: form.displayName.trim() || undefined,
        email: form.email.trim() || undefined,
      })
      setForm(empty)
      props.onAdded(person)
    } catch (failure) {
      setError(messageOf(failure))
    } finally {
      setBusy(false)
    }
  }
  const field = (name: 'userName' | 'displayName' | 'email' | 'password') => ({
    id: `add-${name}`,
    value: form[name],
    onInput: (event: Event) => {
      const target = event.currentTarget
      if (target instanceof HTMLInputElement) setForm({ ...form, [name]: target.value })
    },
  })

  return (
    <form class="card add-person" onSubmit={submit}>
      <h2>{t('people.addTitle')}</h2>
      <div class="fields">
        <div>
          <label for="add-userName">{t('people.userName')}</label>
          <input {...field('userName')} required autocomplete="off" autocapitalize="none" spellcheck={false} />
        </div>
        <div>
          <label for="add-displayName">{t('people.nameOptional')}</label>
          <input {...field('displayName')} autocomplete="off" />
        </div>
        <div>
          <label for="add-email">{t('people.emailOptional')}</label>
          <input {...field('email')} type="email" autocomplete="off" />
        </div>
        <div>
          <label for="add-password">{t('people.password')}</label>
          <input
            {...field('password')}
            type="password"
            required
            minLength={8}
            autocomplete="new-password"
            aria-describedby="add-password-hint"
          />
          <small id="add-password-hint">{t('people.passwordHint')}</small>
        </div>
      </div>
      <label class="checkbox">
        <input
          type="checkbox"
          checked={form.isAdmin}
          onChange={(event) => setForm({ ...form, isAdmin: event.currentTarget.checked })}
        />
        {t('people.adminOption')}
      </label>
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" class="button primary" disabled={busy}>
        <Icon name="plus" />
        <span>{t('people.addPerson')}</span>
      </button>
    </form>
  )
}

function ResetPasswordDialog(props: { person: api.Profile; onClose: () => void; onDone: () => void }) {
  const [password, setPassword] = useState('')
  const [error, setError] = useState('')
  const submit = async (event: Event) => {
    event.preventDefault()
    try {
      await api.setPersonPassword(props.person.id, password)
      props.onDone()
    } catch (failure) {
      setError(messageOf(failure))
    }
  }
  return (
    <Dialog title={t('people.newPasswordFor', { userName: props.person.userName })} onClose={props.onClose}>
      <form onSubmit={submit}>
        <label for="reset-password">{t('people.newPassword')}</label>
        <input
          id="reset-password"
          type="password"
          autocomplete="new-password"
          minLength={8}
          required
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        <p class="hint">{t('people.sessionsEnd')}</p>
        {error ? (
          <p class="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" class="button primary">
            {t('people.setPassword')}
          </button>
        </div>
      </form>
    </Dialog>
  )
}

/** An admin's storage limit for one person: a size such as 500MB or 2GB; empty for none. */
function QuotaDialog(props: { person: api.Profile; onClose: () => void; onDone: (quota: number) => void }) {
  const current = props.person.quotaLimit ?? -1
  const [size, setSize] = useState(current < 0 ? '' : `${current}`)
  const [error, setError] = useState('')
  const submit = async (event: Event) => {
    event.preventDefault()
    let quota: number
    try {
      quota = size.trim() === '' ? -1 : (parseByteSize(size) ?? -1)
    } catch {
      return setError(t('storage.notASize', { value: size.trim() }))
    }
    try {
      await api.setPersonQuota(props.person.id, quota)
      props.onDone(quota)
    } catch (failure) {
      setError(messageOf(failure))
    }
  }
  return (
    <Dialog title={t('storage.quotaOf', { name: props.person.userName })} onClose={props.onClose}>
      <form onSubmit={submit}>
        <p>{t('storage.usesNow', { used: formatSize(props.person.usedSpace ?? 0) })}</p>
        <label for="quota-size">{t('storage.quota')}</label>
        <input
          id="quota-size"
          autocomplete="off"
          spellcheck={false}
          placeholder={t('storage.noQuota')}
          aria-describedby="quota-hint"
          value={size}
          onInput={(event) => setSize(event.currentTarget.value)}
        />
        <small id="quota-hint">{t('storage.sizeHint')}</small>
        {error ? (
          <p class="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" class="button primary">
            {t('storage.setQuota')}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
