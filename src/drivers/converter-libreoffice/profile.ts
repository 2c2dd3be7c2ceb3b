import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * A worker's own LibreOffice profile, written before its first start: macros never run,
 * links to other content are not followed from documents of unknown origin, every
 * internet access goes to a proxy that does not exist, and nothing is kept for recovery.
 * The settings are LibreOffice's registry items (the `org.openoffice.*` schema).
 */
const SETTINGS: ReadonlyArray<readonly [path: string, name: string, value: string]> = [
  ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', '3'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', 'true'],
  // A manual proxy on the discard port of the loopback, for every host: a fetch that slips
  // past the rules above reaches nothing.
  ['/org.openoffice.Inet/Settings', 'ooInetProxyType', '2'],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPProxyName', '127.0.0.1'],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPProxyPort', '9'],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPSProxyName', '127.0.0.1'],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPSProxyPort', '9'],
  ['/org.openoffice.Inet/Settings', 'ooInetNoProxy', ''],
  ['/org.openoffice.Office.Recovery/AutoSave', 'Enabled', 'false'],
  ['/org.openoffice.Office.Recovery/RecoveryInfo', 'Enabled', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'UseLocking', 'false'],
  ['/org.openoffice.Office.Common/Save/Document', 'CreateBackup', 'false'],
]

function registryItems(): string {
  const items = SETTINGS.map(
    ([path, name, value]) =>
      `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value></prop></item>`,
  )
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<oor:items xmlns:oor="http://openoffice.org/2001/registry" ' +
      'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    ...items,
    '</oor:items>',
    '',
  ].join('\n')
}

/** Writes the profile folder's settings; returns the folder as the file URL soffice takes. */
export async function writeProfile(folder: string): Promise<string> {
  await mkdir(join(folder, 'user'), { recursive: true, mode: 0o700 })
  await writeFile(join(folder, 'user', 'registrymodifications.xcu'), registryItems(), { mode: 0o600 })
  return `file://${folder.split('/').map(encodeURIComponent).join('/')}`
}
