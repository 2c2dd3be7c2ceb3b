import type { ComponentChildren } from 'preact'
import { followLink } from '../router'

/** An in-app link: a real <a href>, so it works with the keyboard, middle-click and "copy link". */
export function Link(props: {
  href: string
  class?: string
  children: ComponentChildren
  'aria-label'?: string
  'aria-current'?: 'page' | undefined
  title?: string
}) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-label={props['aria-label']}
      title={props.title}
      aria-current={props['aria-current']}
      onClick={(event) => followLink(event, props.href)}
    >
      {props.children}
    </a>
  )
}
