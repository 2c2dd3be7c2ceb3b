/**
 * Rules for saves that come from ONLYOFFICE Docs callbacks (status 2 and 6), kept
 * pure so the idempotency decision can be tested without a server.
 */

/** What identifies one save, however often Docs or a proxy delivers it. */
export interface SaveFacts {
  status: number
  /** Document key of the editing session. */
  key: string
  /** ISO time of the last change the save covers (Docs sends it with 2 and 6). */
  lastsave?: string
  /** The link the saved file is served from. */
  url: string
}

/**
 * A stable id for one save. A retry of a status 2 carries a fresh signature and expiry in
 * the url's query but the same key, lastsave and cache path, so those make the id: the
 * same callback delivered twice maps to one id, and a later force save of the same
 * session (new lastsave) to another. Without lastsave the url's path stands in.
 */
export function saveIdentity(facts: SaveFacts): string {
  const moment = facts.lastsave ?? urlPath(facts.url)
  return `${facts.status}:${facts.key}:${moment}`
}

function urlPath(url: string): string {
  try {
    return new URL(url).pathname
  } catch {
    return url
  }
}

/** What Folio stores in a version's meta about the save that made it (the parts read back). */
export interface RecordedSave {
  version: number
  meta: Record<string, unknown>
}

/**
 * True when one of the versions made after `sinceVersion` (the version the session's
 * key was minted at) records this save id: the callback is a repeat.
 */
export function isSaveRecorded(versions: RecordedSave[], saveId: string, sinceVersion: number): boolean {
  return versions.some((v) => v.version > sinceVersion && v.meta.saveId === saveId)
}
