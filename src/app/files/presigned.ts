import { DomainError } from '../../core/errors.js'
import type { FileRecord, VersionRecord } from '../../core/entities.js'
import { userPrincipal, type Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { fileFor } from './file-changes.js'
import { getVersion } from './files.js'
import type { Tokens } from '../tokens.js'

/**
 * Presigned links: what ONLYOFFICE's apps download a document through when they open it
 * on the device (`files/file/{id}/presigneduri`). A link reads one version of one file, for
 * a few minutes, without a login; it stands for the user who asked for it, so every use
 * asks the access policy again (a removed share, a removed user or a password change
 * stops it at once).
 */

/** How long a presigned link works (ms): long enough to start a download, no longer. */
export const PRESIGNED_LINK_TTL_MS = 5 * 60_000

/** A signed token for the file's current version, for a user who may download it. */
export async function presign(
  ctx: AppContext,
  tokens: Tokens,
  by: Principal,
  fileId: string,
): Promise<{ file: FileRecord; token: string; expiresAt: number }> {
  if (by.kind !== 'user') throw new DomainError('FORBIDDEN', 'a share link cannot make presigned links')
  const file = await fileFor(ctx, by, fileId, 'download')
  const expiresAt = ctx.clock.now() + PRESIGNED_LINK_TTL_MS
  const token = tokens.sign({
    scope: 'presigned',
    fileId: file.id,
    userId: by.user.id,
    permission: 'read',
    expiresAt,
    version: file.version,
    generation: by.user.tokenGeneration,
  })
  return { file, token, expiresAt }
}

/**
 * The file and version a presigned token reads, once the token is genuine, unexpired and
 * for this file (UNAUTHENTICATED otherwise), its user still exists with the same token
 * generation, and that user may still download the file (NOT_FOUND otherwise).
 */
export async function openPresigned(
  ctx: AppContext,
  tokens: Tokens,
  token: string,
  fileId: string,
): Promise<{ file: FileRecord; version: VersionRecord }> {
  const check = tokens.verify(token, 'presigned', ctx.clock.now())
  if (!check.ok) throw new DomainError('UNAUTHENTICATED', `presigned link rejected: ${check.reason}`)
  const { claims } = check
  if (claims.fileId !== fileId) throw new DomainError('UNAUTHENTICATED', 'the presigned link was made for another file')
  const user = await ctx.store.users.findById(claims.userId)
  if (!user || (claims.generation ?? 0) !== user.tokenGeneration) {
    throw new DomainError('UNAUTHENTICATED', 'the presigned link was ended by a change to its user')
  }
  const file = await fileFor(ctx, userPrincipal(user), fileId, 'download')
  const version = await getVersion(ctx, file.id, claims.version ?? file.version)
  return { file, version }
}
