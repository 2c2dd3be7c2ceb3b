import { useEffect, useRef, useState } from 'preact/hooks'
import * as api from '../api'
import { t } from '../i18n'

/**
 * One field to find and pick a person: typing searches display names and user names (and,
 * for admins, e-mail addresses: the server decides) and lists who matches; a click, or the
 * arrow keys and Enter, picks one. Nobody is picked until the user picks; typing again
 * undoes the pick.
 */
export function PersonPicker(props: {
  id: string
  /** People never offered (oneself, those who already have access). */
  exclude: (person: api.Person) => boolean
  picked: api.Person | null
  onPick: (person: api.Person | null) => void
}) {
  const [text, setText] = useState('')
  const [people, setPeople] = useState<api.Person[]>([])
  const [active, setActive] = useState(0)
  const [open, setOpen] = useState(false)
  const sequence = useRef(0)

  useEffect(() => {
    const mine = ++sequence.current
    const wanted = text.trim()
    if (wanted === '' || props.picked) return setPeople([])
    const timer = setTimeout(() => {
      api.findPeople(wanted).then(
        (found) => {
          if (mine !== sequence.current) return
          setPeople(found)
          setActive(0)
        },
        () => undefined,
      )
    }, 150)
    return () => clearTimeout(timer)
  }, [text, props.picked])

  const offered = people.filter((person) => !props.exclude(person))
  const listId = `${props.id}-list`
  const showing = open && !props.picked && text.trim() !== ''
  const pick = (person: api.Person) => {
    props.onPick(person)
    setText(person.displayName)
    setOpen(false)
  }

  return (
    <div class="person-picker">
      <input
        id={props.id}
        type="text"
        role="combobox"
        autocomplete="off"
        aria-autocomplete="list"
        aria-expanded={showing}
        aria-controls={listId}
        aria-activedescendant={showing && offered[active] ? `${listId}-${active}` : undefined}
        placeholder={t('picker.placeholder')}
        value={text}
        onInput={(event) => {
          setText(event.currentTarget.value)
          setOpen(true)
          if (props.picked) props.onPick(null)
        }}
        onBlur={() => setOpen(false)}
        onFocus={() => setOpen(true)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault()
            setOpen(true)
            const step = event.key === 'ArrowDown' ? 1 : -1
            if (offered.length > 0) setActive((active + step + offered.length) % offered.length)
          } else if (event.key === 'Enter' && showing) {
            const person = offered[active]
            event.preventDefault()
            if (person) pick(person)
          } else if (event.key === 'Escape' && showing) {
            // Closes the list, not the dialog around it.
            event.stopPropagation()
            setOpen(false)
          }
        }}
      />
      {showing ? (
        <ul id={listId} role="listbox" class="person-options" aria-label={t('picker.found')}>
          {offered.length === 0 ? <li class="person-none">{t('picker.noOne')}</li> : null}
          {offered.map((person, index) => (
            <li
              key={person.id}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === active}
              // Keep the focus in the field, so the pick is not lost to its blur.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => pick(person)}
            >
              <span class="person-name">{person.displayName}</span>
              {person.email ? <span class="person-email"> {person.email}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
