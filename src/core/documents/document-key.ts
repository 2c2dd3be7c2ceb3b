/**
 * The ONLYOFFICE `document.key`: the editor's cache id for one stored version.
 * Docs wants at most 128 characters of [0-9A-Za-z._=-], the same for every
 * co-editor, and a new one once a save (status 2) is accepted. Folio derives it
 * from the file id (base64url, so within the alphabet) and the file's
 * keyVersion, which every new version moves except a force save.
 */
export function documentKey(fileId: string, keyVersion: number): string {
  return `${fileId}.${keyVersion}`
}

/** Splits a key Folio issued; undefined for anything else. */
export function parseDocumentKey(key: string): { fileId: string; keyVersion: number } | undefined {
  const match = /^([A-Za-z0-9_-]{16,64})\.(\d{1,15})$/.exec(key)
  if (!match || match[1] === undefined || match[2] === undefined) return undefined
  return { fileId: match[1], keyVersion: Number(match[2]) }
}
