import { Link } from './link'
import { folderPath } from '../router'
import { t } from '../i18n'

/** One step of the way to the folder on screen. */
export interface Crumb {
  /** '@my', '@share', '@trash' or a folder id. */
  folder: string
  title: string
}

/**
 * Where the reader is: each step but the last is a link, and each is a drop target for
 * rows being dragged (the attributes `dropTarget` gives), so items move up the tree in one
 * gesture.
 */
export function Breadcrumbs(props: { crumbs: Crumb[]; dropTarget: (folder: string) => Record<string, unknown> }) {
  if (props.crumbs.length < 2) return null
  return (
    <nav class="breadcrumbs" aria-label={t('crumbs.label')}>
      <ol>
        {props.crumbs.map((crumb, index) => {
          const last = index === props.crumbs.length - 1
          return (
            <li key={crumb.folder} {...(last ? {} : props.dropTarget(crumb.folder))}>
              {last ? (
                <span aria-current="page">{crumb.title}</span>
              ) : (
                <Link href={folderPath(crumb.folder)}>{crumb.title}</Link>
              )}
            </li>
          )
        })}
      </ol>
    </nav>
  )
}
