import { type AdapterContext, changesOf } from '../../app/index.js'
import { documentKey } from '../../core/documents/document-key.js'
import { extensionOf } from '../../core/names/file-names.js'
import type { FileRecord, VersionRecord } from '../../core/entities.js'
import { signDocsToken } from './jwt.js'
import { changesLink, downloadLink, type LinkHolder } from './links.js'

/**
 * What the editor's history pane needs: the argument of `refreshHistory` (all versions)
 * and of `setHistoryData` (one version's links). Each version has a key of its own,
 * `<fileId>.<version>`: for a version that began an editing session it is the key that
 * session used; a force-saved version's number never becomes an editing key, so its
 * history key is never confused with a live session.
 */

/** One version in the history pane. */
export interface HistoryEntry {
  version: number
  key: string
  created: string
  user: { id: string; name: string }
  /** From the save's callback `history`, when the version came from the editor. */
  changes?: unknown[]
  serverVersion?: string
}

/** The argument of `docEditor.refreshHistory`. */
export interface RefreshHistoryData {
  currentVersion: number
  history: HistoryEntry[]
}

/** The argument of `docEditor.setHistoryData` for one version. */
export interface HistoryData {
  version: number
  key: string
  url: string
  fileType: string
  changesUrl?: string
  previous?: { key: string; url: string; fileType: string }
  token?: string
}

/** 'YYYY-MM-DD HH:MM:SS' in UTC, the form Docs uses in `history.changes[].created`. */
export function historyTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The refreshHistory argument; `names` maps user ids to display names. */
export function refreshHistoryData(
  file: FileRecord,
  versions: VersionRecord[],
  names: Map<string, string>,
): RefreshHistoryData {
  const history = versions.map((v) => {
    const entry: HistoryEntry = {
      version: v.version,
      key: documentKey(file.id, v.version),
      created: historyTime(v.createdAt),
      user: { id: v.createdBy, name: names.get(v.createdBy) || v.createdBy },
    }
    const saved = v.meta.history
    if (isRecord(saved) && Array.isArray(saved.changes)) {
      entry.changes = saved.changes
      if (typeof saved.serverVersion === 'string') entry.serverVersion = saved.serverVersion
    }
    return entry
  })
  return { currentVersion: file.version, history }
}

/**
 * The setHistoryData argument for one version, with short-lived signed links and,
 * when a secret is set, a token over it (Docs checks it like the editor config).
 * `previous` is the version the editing session opened, because changes.zip holds
 * every change of the session, also those already in earlier force saves.
 */
export async function historyData(
  ctx: AdapterContext,
  file: FileRecord,
  version: VersionRecord,
  holder: LinkHolder,
): Promise<HistoryData> {
  const fileType = extensionOf(file.title)
  const data: HistoryData = {
    version: version.version,
    key: documentKey(file.id, version.version),
    url: downloadLink(ctx, file.id, holder, version.version),
    fileType,
  }
  const base = version.meta.baseVersion
  if (changesOf(version)) {
    data.changesUrl = changesLink(ctx, file.id, holder, version.version)
    if (typeof base === 'number' && base >= 1 && base < version.version) {
      data.previous = {
        key: documentKey(file.id, base),
        url: downloadLink(ctx, file.id, holder, base),
        fileType,
      }
    }
  }
  const secret = ctx.config.docs?.jwtSecret
  if (secret === undefined) return data
  const claims: Record<string, unknown> = { ...data }
  return { ...data, token: await signDocsToken(claims, secret, ctx.clock.now()) }
}
