import { DomainError } from '../../core/errors.js'
import type { FileRecord, VersionRecord } from '../../core/entities.js'
import { isWellFormedId } from '../../core/ids.js'
import { userAccessFrom } from '../access.js'
import type { AppContext } from '../context.js'
import { inTrashSection } from '../folders/folders.js'
import { linkAccess } from '../sharing/sharing.js'

/**
 * The links Folio hands to ONLYOFFICE Docs for reading (document.url, the history pane's
 * links) name a file, a version and the person they were made for. A link is a signed
 * token that lives an hour, so it says only who asked: what it may still fetch is decided
 * at each use from the access and the file as they are now, as for every other door.
 */

/** What a Docs download link says, as its signature vouches for. */
export interface DocsLinkClaims {
  fileId: string
  /** The user (or a link guest's id) the link was made for. */
  userId: string
  /** The version it fetches; the current one when absent. */
  version?: number
  /** The user's token generation when the link was made (absent means 0). */
  generation?: number
  /** The SHA-256 of the share link's key, when the editor was opened through one. */
  link?: string
}

const ended = (why: string) => new DomainError('FORBIDDEN', `this link is no longer valid: ${why}`)
const gone = () => new DomainError('NOT_FOUND', 'not found')

/**
 * The file and version a Docs download link names, when its holder may still read them:
 * FORBIDDEN once the share link it came through is off, its user is removed, their
 * password changed (token generation) or their access to the file is gone; NOT_FOUND when
 * the file or version no longer exists or lies in a trash. One read decides the access,
 * as for a WOPI call.
 */
export async function readByDocsLink(
  ctx: AppContext,
  claims: DocsLinkClaims,
): Promise<{ file: FileRecord; version: VersionRecord }> {
  const read = isWellFormedId(claims.fileId)
    ? await ctx.store.files.findWithAccess(claims.fileId, claims.userId)
    : undefined
  if (!read) throw gone()
  const { file } = read
  // A trashed file is gone for editors, its owner's included, until it is restored.
  if (inTrashSection(file, read.rootType)) throw gone()
  if (claims.link !== undefined) {
    // Opened through a share link: readable while that very link is on.
    if ((await linkAccess(ctx, file.id, claims.link)) === 'none') throw ended('the share link is off')
  } else {
    // A removed user's links end with them.
    if (!read.user) throw ended('its user no longer exists')
    // A password change (or anything else that bumps the generation) ends them too.
    if ((claims.generation ?? 0) !== read.user.tokenGeneration) throw ended("its user's sign-in changed")
    // The share that let the user read the file must still do so.
    if (userAccessFrom(file, read.user.id, read) === 'none') throw ended('no access to the file')
  }
  const version = await ctx.store.files.getVersion(file.id, claims.version ?? file.version)
  if (!version) throw gone()
  return { file, version }
}
