import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { ConfirmDialog, Dialog } from '../components/dialog'
import { Icon } from '../components/icons'
import { parseByteSize } from '../../../src/core/accounts/quota.js'
import { formatDate, formatSize, storageText } from '../format'
import { announce } from '../notices'

function messageOf(error: unknown): string {
  if (error instanceof api.ApiError) {
    if (error.type === 'USER_EXISTS') return 'That user name is taken.'
    return error.message
  }
  return 'Something went wrong. Try again.'
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
    announce(updated.isAdmin ? `${updated.userName} is now an admin.` : `${updated.userName} is no longer an admin.`)
    setChangingAdmin(null)
    await load()
  }

  const setDisabled = async (person: api.Profile, disabled: boolean) => {
    await api.setPersonDisabled(person.id, disabled)
    announce(
      disabled ? `${person.userName} is disabled; their sessions have ended.` : `${person.userName} is enabled again.`,
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
        People
      </h1>
      <AddPersonForm
        onAdded={(person) => {
          announce(`Added ${person.userName}.`)
          void load()
        }}
      />
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {people ? (
        <table class="people-list" aria-label="People">
          <thead>
            <tr>
              <th scope="col">User name</th>
              <th scope="col">Name</th>
              <th scope="col" class="col-email">
                Email
              </th>
              <th scope="col">Admin</th>
              <th scope="col" class="col-storage">
                Storage
              </th>
              <th scope="col" class="col-created">
                Added
              </th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
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
                    {isSelf ? <span class="badge">you</span> : null}
                    {isDisabled(person) ? <span class="badge">disabled</span> : null}
                  </td>
                  <td>{person.displayName}</td>
                  <td class="col-email">{person.email}</td>
                  <td class="col-admin">
                    <label class="switch">
                      <input
                        type="checkbox"
                        checked={person.isAdmin}
                        disabled={isSelf}
                        aria-label={`${person.userName} is an admin`}
                        title={isSelf ? 'You cannot withdraw your own admin rights' : undefined}
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
                        aria-label={`Reset password of ${person.userName}`}
                        onClick={() => setResetting(person)}
                      >
                        <Icon name="key" />
                        <span>Reset password</span>
                      </button>
                      <button
                        type="button"
                        class="button"
                        aria-label={`Set storage quota of ${person.userName}`}
                        onClick={() => setLimiting(person)}
                      >
                        <Icon name="storage" />
                        <span>Quota</span>
                      </button>
                      {isSelf ? null : isDisabled(person) ? (
                        <button
                          type="button"
                          class="button"
                          aria-label={`Enable ${person.userName}`}
                          onClick={() => void enable(person)}
                        >
                          <span>Enable</span>
                        </button>
                      ) : (
                        <button
                          type="button"
                          class="button"
                          aria-label={`Disable ${person.userName}`}
                          onClick={() => setDisabling(person)}
                        >
                          <span>Disable</span>
                        </button>
                      )}
                      {isSelf ? null : (
                        <button
                          type="button"
                          class="button danger"
                          aria-label={`Remove ${person.userName}`}
                          onClick={() => setRemoving(person)}
                        >
                          <Icon name="trash" />
                          <span>Remove</span>
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
        <p class="loading">Loading…</p>
      )}
      {resetting ? (
        <ResetPasswordDialog
          person={resetting}
          onClose={() => setResetting(null)}
          onDone={() => {
            announce(`New password set for ${resetting.userName}; their sessions have ended.`)
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
                ? `${limiting.userName} has no storage quota now.`
                : `${limiting.userName} may now store up to ${formatSize(quota)}.`,
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
              ? `Withdraw admin rights from ${changingAdmin.userName}?`
              : `Make ${changingAdmin.userName} an admin?`
          }
          confirmLabel={changingAdmin.isAdmin ? 'Withdraw admin rights' : 'Make admin'}
          tone={changingAdmin.isAdmin ? 'danger' : 'primary'}
          action={() => toggleAdmin(changingAdmin)}
          errorText={messageOf}
          onClose={() => setChangingAdmin(null)}
        >
          <p>
            {changingAdmin.isAdmin
              ? 'They will no longer be able to manage people. Their documents stay theirs.'
              : 'Admins can add and remove people, reset passwords and make others admins.'}
          </p>
        </ConfirmDialog>
      ) : null}
      {disabling ? (
        <ConfirmDialog
          title={`Disable ${disabling.userName}?`}
          confirmLabel="Disable"
          tone="danger"
          action={() => setDisabled(disabling, true)}
          errorText={messageOf}
          onClose={() => setDisabling(null)}
        >
          <p>
            They can no longer sign in; their sessions, open editors and the links to their files end now. Their files
            and what others shared with them stay, and come back when you enable them.
          </p>
        </ConfirmDialog>
      ) : null}
      {removing ? (
        <Dialog title={`Remove ${removing.userName}?`} onClose={() => setRemoving(null)}>
          <p>They can no longer sign in, and their sessions end now. Their files stay stored.</p>
          <div class="dialog-actions">
            <button type="button" class="button" onClick={() => setRemoving(null)} autofocus>
              Cancel
            </button>
            <button
              type="button"
              class="button danger"
              onClick={async () => {
                try {
                  await api.removePerson(removing.id)
                  announce(`Removed ${removing.userName}.`)
                } catch (failure) {
                  announce(messageOf(failure), 'error')
                }
                setRemoving(null)
                void load()
              }}
            >
              Remove
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
      <h2>Add a person</h2>
      <div class="fields">
        <div>
          <label for="add-userName">User name</label>
          <input {...field('userName')} required autocomplete="off" autocapitalize="none" spellcheck={false} />
        </div>
        <div>
          <label for="add-displayName">Name (optional)</label>
          <input {...field('displayName')} autocomplete="off" />
        </div>
        <div>
          <label for="add-email">Email (optional)</label>
          <input {...field('email')} type="email" autocomplete="off" />
        </div>
        <div>
          <label for="add-password">Password</label>
          <input
            {...field('password')}
            type="password"
            required
            minLength={8}
            autocomplete="new-password"
            aria-describedby="add-password-hint"
          />
          <small id="add-password-hint">At least 8 characters.</small>
        </div>
      </div>
      <label class="checkbox">
        <input
          type="checkbox"
          checked={form.isAdmin}
          onChange={(event) => setForm({ ...form, isAdmin: event.currentTarget.checked })}
        />
        Admin (may manage people)
      </label>
      {error ? (
        <p class="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" class="button primary" disabled={busy}>
        <Icon name="plus" />
        <span>Add person</span>
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
    <Dialog title={`New password for ${props.person.userName}`} onClose={props.onClose}>
      <form onSubmit={submit}>
        <label for="reset-password">New password</label>
        <input
          id="reset-password"
          type="password"
          autocomplete="new-password"
          minLength={8}
          required
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        <p class="hint">Their current sessions end, on every device.</p>
        {error ? (
          <p class="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="button primary">
            Set password
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
    } catch (failure) {
      return setError(failure instanceof Error ? failure.message : 'Not a size.')
    }
    try {
      await api.setPersonQuota(props.person.id, quota)
      props.onDone(quota)
    } catch (failure) {
      setError(messageOf(failure))
    }
  }
  return (
    <Dialog title={`Storage quota of ${props.person.userName}`} onClose={props.onClose}>
      <form onSubmit={submit}>
        <p>Uses {formatSize(props.person.usedSpace ?? 0)} now (every version of their files, trash included).</p>
        <label for="quota-size">Quota</label>
        <input
          id="quota-size"
          autocomplete="off"
          spellcheck={false}
          placeholder="No quota"
          aria-describedby="quota-hint"
          value={size}
          onInput={(event) => setSize(event.currentTarget.value)}
        />
        <small id="quota-hint">Bytes, or a size such as 500MB, 2GB or 1.5GiB. Leave it empty for no quota.</small>
        {error ? (
          <p class="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="button primary">
            Set quota
          </button>
        </div>
      </form>
    </Dialog>
  )
}
