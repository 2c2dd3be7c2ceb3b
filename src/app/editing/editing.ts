import type { Readable } from 'node:stream'
import { parseDocumentKey } from '../../core/documents/document-key.js'
import { isSaveRecorded, saveIdentity } from '../../core/documents/editor-saves.js'
import { DomainError } from '../../core/errors.js'
import { extensionOf, sanitizeFileName } from '../../core/names/file-names.js'
import type { StoredBlob } from '../../ports/blob-store.js'
import type { EditingState, FileRecord, VersionRecord } from '../../core/entities.js'
import { compareAndSet, RETRY } from '../compare-and-set.js'
import { editsInEditor, levelOfShare } from '../../core/sharing/access-levels.js'
import { accessLevel, userPrincipal } from '../access.js'
import type { AppContext } from '../context.js'
import { dropStaleEditors } from '../editor-notices.js'
import { GUEST_ID_PREFIX, linkAccess } from '../sharing/sharing.js'
import { assertNoWopiSession } from '../lock-policy.js'
import { commitNewVersion, createFileFromBlob, getFile, getVersion, openBlob, storeBody } from '../files/files.js'

/**
 * Use cases behind the ONLYOFFICE Docs editing callback
 * (https://api.onlyoffice.com/docs/docs-api/usage-api/callback-handler/) and the editor's history pane: who is editing, saves from the editor, save errors,
 * restoring a version and "save copy as".
 */

/** Fetches one (already vetted) link; the protocol adapter supplies it. */
export type BodyFetcher = (url: string) => Promise<{ body: Readable; length?: number }>

/** How often a save is retried when another version lands between check and commit. */
const MAX_SAVE_ATTEMPTS = 4

/** Status 1: records who is editing the session `documentKey`. */
export async function recordEditors(
  ctx: AppContext,
  fileId: string,
  documentKey: string,
  editors: string[],
): Promise<void> {
  await ctx.store.editing.setEditors(fileId, documentKey, [...new Set(editors)], ctx.clock.now())
}

/** Status 4 (and the end of 2 and 3): nobody edits that session any more. */
export async function endEditingSession(ctx: AppContext, fileId: string, documentKey: string): Promise<void> {
  await ctx.store.editing.endSession(fileId, documentKey, ctx.clock.now())
}

/**
 * Keeps a save error with the file, where the files API shows it. The content is not
 * touched. `sessionEnded` (status 3) also clears the editor list.
 */
export async function recordSaveError(
  ctx: AppContext,
  fileId: string,
  error: { status: number; documentKey: string; message: string },
  sessionEnded: boolean,
): Promise<void> {
  const now = ctx.clock.now()
  await ctx.store.editing.recordError(fileId, { ...error, at: now })
  if (sessionEnded) await ctx.store.editing.endSession(fileId, error.documentKey, now)
}

/** Editing states of a page of files, read in one query; files without one are absent. */
export async function editingStates(ctx: AppContext, fileIds: string[]): Promise<Map<string, EditingState>> {
  const states = await ctx.store.editing.getMany(fileIds)
  return new Map(states.map((state) => [state.fileId, state]))
}

/**
 * The Folio user a save is credited to: the first of Docs' `users` (the last author)
 * when it names a Folio user, else `fallback` (the user the callback URL was issued to).
 */
export async function resolveAuthor(ctx: AppContext, users: string[], fallback: string): Promise<string> {
  const first = users[0]
  if (first !== undefined && first !== fallback && (await ctx.store.users.findById(first))) {
    return first
  }
  return fallback
}

/** A save Docs announced with status 2 (exit save) or 6 (force save). */
export interface EditorSave {
  fileId: string
  status: 2 | 6
  /** Document key of the session. */
  documentKey: string
  /** Internal link to the saved file, already checked to be on the Docs server. */
  url: string
  /** Internal link to changes.zip, checked likewise. */
  changesUrl?: string
  /** The link as Docs sent it (its path identifies the save when lastsave is missing). */
  originalUrl: string
  authorId: string
  users: string[]
  /** The share link's key hash when the session's callback URL was made for a link's editor. */
  sessionLink?: string
  lastsave?: string
  notmodified?: boolean
  forcesavetype?: number
  filetype?: string
  history?: Record<string, unknown>
}

/** 'duplicate': the save was stored by an earlier delivery; nothing was fetched. */
export type SaveOutcome = { kind: 'saved'; file: FileRecord } | { kind: 'duplicate' }

async function fetchInto(ctx: AppContext, fetch: BodyFetcher, url: string): Promise<StoredBlob> {
  const { body, length } = await fetch(url)
  if (length !== undefined && length > ctx.config.maxFileSize) {
    // Not read to the end (storeBody would drain it): the connection is simply dropped.
    body.on('error', () => undefined)
    body.destroy()
    throw new DomainError('PAYLOAD_TOO_LARGE', `file is larger than ${ctx.config.maxFileSize} bytes`)
  }
  return storeBody(ctx, body, length)
}

/**
 * Stores the file Docs saved as the newest version, by the last author. A status 2
 * rotates the document key and ends the session; a status 6 keeps the key. The zip of
 * changes is stored as a blob of its own, named in the version's meta. Resolves only
 * once the version is durable; any failure leaves the previous version as it was.
 *
 * Idempotent: the version's meta records a save id (status, key, lastsave), committed
 * in the same transaction as the version. Before fetching, the versions made since the
 * session's key was minted are searched for it; a repeat is answered 'duplicate'. The
 * commit is guarded by the head version seen during that search, so two deliveries
 * racing each other still make one version: the loser finds the winner's id on its
 * next look.
 */
export async function saveFromEditor(ctx: AppContext, save: EditorSave, fetch: BodyFetcher): Promise<SaveOutcome> {
  const saveId = saveIdentity({
    status: save.status,
    key: save.documentKey,
    lastsave: save.lastsave,
    url: save.originalUrl,
  })
  const since = parseDocumentKey(save.documentKey)?.keyVersion ?? 0
  const started = performance.now()
  try {
    await assertSaversMayEdit(ctx, await getFile(ctx, save.fileId), save)
  } catch (error) {
    // After a status 2 Docs closes the session whatever the answer: nobody edits it now.
    if (save.status === 2) await endEditingSession(ctx, save.fileId, save.documentKey).catch(() => undefined)
    throw error
  }
  return compareAndSet(async () => {
    const file = await getFile(ctx, save.fileId)
    const versions = await ctx.store.files.listVersions(save.fileId)
    if (isSaveRecorded(versions, saveId, since)) {
      if (save.status === 2) await endEditingSession(ctx, save.fileId, save.documentKey)
      return { kind: 'duplicate' } as const
    }
    const seenVersion = file.version
    const outside = outsideChanges(versions, since, save.documentKey)
    const blob = await fetchInto(ctx, fetch, save.url)
    let changes: StoredBlob | undefined
    try {
      if (save.changesUrl !== undefined) changes = await fetchInto(ctx, fetch, save.changesUrl)
    } catch (error) {
      await ctx.blobs.delete(blob.key).catch(() => undefined)
      throw error
    }
    const saved = await commitNewVersion(ctx, save.fileId, {
      blob,
      userId: save.authorId,
      source: save.status === 2 ? 'exit-save' : 'force-save',
      meta: { ...saveMeta(save, saveId, since, changes), ...conflictMeta(outside) },
      keepDocumentKey: save.status === 6,
      // Another version landed since the search: look for this save's id again.
      precondition: (fresh) => {
        if (fresh.version !== seenVersion) throw new SaveRaced()
      },
    }).catch(async (error: unknown): Promise<typeof RETRY> => {
      // commitNewVersion has removed the content blob; the zip is ours to remove.
      if (changes) await ctx.blobs.delete(changes.key).catch(() => undefined)
      if (error instanceof SaveRaced) return RETRY
      throw error
    })
    if (saved === RETRY) return RETRY
    ctx.telemetry?.editorSave(save.status === 2 ? 'exit' : 'force', blob.size, (performance.now() - started) / 1000)
    await afterSave(ctx, save, saved)
    return { kind: 'saved', file: saved } as const
  }, MAX_SAVE_ATTEMPTS)
}

/**
 * A save is stored only while everyone it is made for may still change the document in
 * the editor now, whatever they could when the editor opened: each user Docs names in
 * `users` (the author when it names none) must be a Folio user whose access allows
 * editing, reviewing, commenting or filling forms; a link guest counts while the file's
 * share link (the session's own, when it was opened through one) still allows changes.
 * Otherwise FORBIDDEN: the callback answers 403 and Docs keeps the document as "forgotten".
 */
async function assertSaversMayEdit(ctx: AppContext, file: FileRecord, save: EditorSave): Promise<void> {
  const savers = new Set(save.users.length > 0 ? save.users : [save.authorId])
  for (const id of savers) {
    if (id.startsWith(GUEST_ID_PREFIX)) {
      if (!editsInEditor(await guestLinkAccess(ctx, file, save.sessionLink))) {
        throw new DomainError('FORBIDDEN', 'the share link of this editing session no longer allows changes')
      }
      continue
    }
    const user = await ctx.store.users.findById(id)
    if (!user || !editsInEditor(await accessLevel(ctx, userPrincipal(user), file))) {
      throw new DomainError('FORBIDDEN', `a user of this editing session (${id}) may no longer change the file`)
    }
  }
}

/** What a link guest may do now: through the session's link, else the file's working link. */
async function guestLinkAccess(ctx: AppContext, file: FileRecord, sessionLink: string | undefined) {
  if (sessionLink !== undefined) return linkAccess(ctx, file.id, sessionLink)
  const link = await ctx.store.shareLinks.find(file.id)
  return !link || link.revokedAt !== null ? 'none' : levelOfShare(link.access)
}

/**
 * The versions made after the session's base by anything but this session (its own force
 * saves keep its document key): a WOPI PutFile, a restore, another session's save.
 */
function outsideChanges(versions: VersionRecord[], since: number, key: string): VersionRecord[] {
  return versions.filter((v) => v.version > since && v.meta.documentKey !== key)
}

/**
 * A save made on top of an older version than the current one is still stored as the
 * newest version (nothing an editor typed is lost), marked so the history shows it was
 * made from an older base and which outside versions it went past; those stay in the
 * history and one restore brings any of them back.
 */
function conflictMeta(outside: VersionRecord[]): Record<string, unknown> {
  if (outside.length === 0) return {}
  return { conflict: true, conflictsWith: outside.map((v) => v.version).sort((a, b) => a - b) }
}

/** A save lost the race against another version; it is looked up and tried again. */
class SaveRaced extends Error {}

async function afterSave(ctx: AppContext, save: EditorSave, saved: FileRecord): Promise<void> {
  // The version is durable already; these only tidy the editing state.
  try {
    await ctx.store.editing.clearError(save.fileId)
    if (save.status === 2) await endEditingSession(ctx, save.fileId, save.documentKey)
  } catch (error) {
    ctx.logger.warn({ err: error, fileId: save.fileId }, 'saved, but could not update the editing state')
  }
  const type = extensionOf(saved.title)
  if (save.filetype !== undefined && type !== '' && save.filetype !== type) {
    ctx.logger.warn(
      { fileId: save.fileId, expected: type, received: save.filetype },
      'ONLYOFFICE Docs saved another format than the file name says; set assemblyFormatAsOrigin',
    )
  }
}

function saveMeta(
  save: EditorSave,
  saveId: string,
  baseVersion: number,
  changes: StoredBlob | undefined,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    saveId,
    documentKey: save.documentKey,
    // The version the session opened: changes.zip replays onto it (history pane "previous").
    baseVersion,
    users: save.users,
  }
  if (save.forcesavetype !== undefined) meta.forcesavetype = save.forcesavetype
  if (save.lastsave !== undefined) meta.lastsave = save.lastsave
  if (save.notmodified !== undefined) meta.notmodified = save.notmodified
  if (save.filetype !== undefined) meta.filetype = save.filetype
  if (save.history !== undefined) meta.history = save.history
  if (changes) {
    meta.changesBlobKey = changes.key
    meta.changesSize = changes.size
    meta.changesSha256 = changes.sha256
  }
  return meta
}

/** The changes.zip a version keeps (from an editor save), if any. */
export function changesOf(version: VersionRecord): { blobKey: string; size: number; sha256: string } | undefined {
  const { changesBlobKey, changesSize, changesSha256 } = version.meta
  if (typeof changesBlobKey !== 'string' || typeof changesSize !== 'number') return undefined
  if (typeof changesSha256 !== 'string') return undefined
  return { blobKey: changesBlobKey, size: changesSize, sha256: changesSha256 }
}

/**
 * Makes an older version's contents the newest version (source 'restore'); history is
 * never rewritten. The bytes are copied into a blob of their own, so every version owns
 * its blob. Restoring the current version is refused as pointless.
 */
export async function restoreVersion(
  ctx: AppContext,
  fileId: string,
  version: number,
  userId: string,
): Promise<FileRecord> {
  const file = await getFile(ctx, fileId)
  const record = await getVersion(ctx, fileId, version)
  if (record.version === file.version) {
    throw new DomainError('INVALID_INPUT', `version ${version} is the current version already`, {
      field: 'version',
    })
  }
  assertNoWopiSession(file, ctx.clock.now())
  const blob = await storeBody(ctx, await openBlob(ctx, record.blobKey), record.size)
  const restored = await commitNewVersion(ctx, fileId, {
    blob,
    userId,
    source: 'restore',
    meta: { restoredFrom: record.version },
    // Decided again on the row the version lands on: a Lock may arrive meanwhile.
    precondition: (fresh) => assertNoWopiSession(fresh, ctx.clock.now()),
  })
  dropStaleEditors(ctx, restored, `version ${record.version} restored`)
  return restored
}

/**
 * "Save copy as" from the editor: fetches the file Docs made and stores it as a new file
 * of the same owner. The name follows the PutRelativeFile rules: it keeps the requested
 * extension, is repaired when illegal and gets ' (2)', ' (3)'... when taken.
 */
export async function saveEditorCopy(
  ctx: AppContext,
  input: { ownerId: string; title: string; fileType: string; url: string; sourceFileId: string },
  fetch: BodyFetcher,
): Promise<FileRecord> {
  const extension = input.fileType.toLowerCase()
  if (!/^[a-z0-9]{1,10}$/.test(extension)) {
    throw new DomainError('INVALID_INPUT', 'fileType must be a file extension', { field: 'fileType' })
  }
  const wanted = extensionOf(input.title) === extension ? input.title : `${input.title}.${extension}`
  const title = sanitizeFileName(wanted) ?? `Copy.${extension}`
  const blob = await fetchInto(ctx, fetch, input.url)
  return createFileFromBlob(ctx, {
    ownerId: input.ownerId,
    title,
    blob,
    source: 'copy',
    meta: { copiedFrom: input.sourceFileId },
  })
}
