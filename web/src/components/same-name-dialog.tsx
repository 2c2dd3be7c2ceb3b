import { Dialog } from './dialog'
import { t } from '../i18n'

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
  return (
    <Dialog title={t('sameName.title', { count: props.names.length })} onClose={props.onClose}>
      <ul class="same-names">
        {props.names.map((name) => (
          <li key={name}>{name}</li>
        ))}
      </ul>
      <p>{t('sameName.question', { count: props.names.length })}</p>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose}>
          {t('common.cancel')}
        </button>
        <button type="button" class="button" onClick={props.onKeepBoth}>
          {t('sameName.keepBoth')}
        </button>
        <button type="button" class="button primary" onClick={props.onNewVersion}>
          {t('sameName.newVersion')}
        </button>
      </div>
    </Dialog>
  )
}
