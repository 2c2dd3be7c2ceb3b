import type { Profile } from './api'

/**
 * ONLYOFFICE's Desktop Editors show the portal in an embedded browser that has
 * `window.AscDesktopEditor`. They count the portal as signed in when the page tells them
 * who signed in (`portal:login`), and as signed out on `portal:logout`.
 */

interface DesktopEditor {
  execCommand(command: string, parameters: string): void
}

function desktopEditor(): DesktopEditor | undefined {
  const candidate: unknown = Reflect.get(window, 'AscDesktopEditor')
  if (typeof candidate !== 'object' || candidate === null) return undefined
  const execCommand: unknown = Reflect.get(candidate, 'execCommand')
  if (typeof execCommand !== 'function') return undefined
  return { execCommand: (command, parameters) => Reflect.apply(execCommand, candidate, [command, parameters]) }
}

/** Tells the Desktop Editors (when this page runs inside them) who signed in. */
export function tellDesktopSignedIn(profile: Profile): void {
  desktopEditor()?.execCommand(
    'portal:login',
    JSON.stringify({
      displayName: profile.displayName,
      email: profile.email,
      domain: location.origin,
      provider: 'onlyoffice',
      userId: profile.id,
    }),
  )
}

/** Tells the Desktop Editors (when this page runs inside them) that the user signed out. */
export function tellDesktopSignedOut(): void {
  desktopEditor()?.execCommand('portal:logout', JSON.stringify({ domain: location.origin }))
}

/** True when this page runs inside ONLYOFFICE's Desktop Editors. */
export function inDesktopEditors(): boolean {
  return desktopEditor() !== undefined
}
