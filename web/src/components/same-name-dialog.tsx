import { Dialog } from './dialog'

/**
 * Asked when files picked for upload have the names of files already in the folder: each
 * becomes the newest version of its namesake, or a new file beside it ('Report (2).docx').
 */
export function SameNameDialog(props: {
  names: string[]
  onNewVersion: () => void
  onKeepBoth: () => void
  onClose: () => void
}) {
  const one = props.names.length === 1
  return (
    <Dialog
      title={one ? 'A file with this name is here already' : 'Files with these names are here already'}
      onClose={props.onClose}
    >
      <ul class="same-names">
        {props.names.map((name) => (
          <li key={name}>{name}</li>
        ))}
      </ul>
      <p>
        {one
          ? 'Upload it as a new version of that file (its earlier versions are kept), or keep both files?'
          : 'Upload them as new versions of those files (their earlier versions are kept), or keep both?'}
      </p>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" class="button" onClick={props.onKeepBoth}>
          Keep both
        </button>
        <button type="button" class="button primary" onClick={props.onNewVersion}>
          Upload as new version
        </button>
      </div>
    </Dialog>
  )
}
