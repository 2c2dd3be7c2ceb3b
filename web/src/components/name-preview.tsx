import { namePreview } from '../names'

/** Under a name field: the name it will be saved as, when Folio has to repair it. */
export function NamePreview(props: { id: string; wanted: string }) {
  const text = namePreview(props.wanted)
  return (
    <p id={props.id} class="hint name-preview" aria-live="polite">
      {text}
    </p>
  )
}
