import { extensionOf } from '../../core/names/file-names.js'
import type { UserRecord } from '../../core/entities.js'
import type { Permission } from '../../core/tokens/signed-token.js'
import { authorize, fileFor, type Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { isInTrash } from '../folders/folders.js'
import { DomainError } from '../../core/errors.js'
import type { Tokens } from '../tokens.js'

/** Everything a host page needs to open a file in a WOPI client. */
export interface WopiLaunch {
  fileId: string
  wopiSrc: string
  accessToken: string
  /** Expiry of the token, ms since epoch (WOPI's access_token_ttl). */
  accessTokenTtl: number
  permission: Permission
  /** Discovery's action URLs for the file's extension (edit only with a write token). */
  edit?: string
  view?: string
}

/**
 * The WOPISrc of a file: `<internal URL>/wopi/files/<id>`. Only the WOPI client's server
 * calls it, so it uses the address servers reach Folio at (FOLIO_INTERNAL_URL); proofs
 * are checked against the same URL.
 */
export function wopiSrcFor(internalUrl: string, fileId: string): string {
  return `${internalUrl}/wopi/files/${fileId}`
}

/**
 * Issues a WOPI access token for `user` on `fileId` with `permission`, carrying the user's
 * token generation (a later bump ends it).
 */
export function issueWopiToken(
  ctx: AppContext,
  tokens: Tokens,
  fileId: string,
  user: UserRecord,
  permission: Permission,
  link?: string,
): { token: string; expiresAt: number } {
  const expiresAt = ctx.clock.now() + ctx.config.wopiTokenTtlMs
  const token = tokens.sign({
    scope: 'wopi',
    fileId,
    userId: user.id,
    permission,
    expiresAt,
    generation: user.tokenGeneration,
    // A link guest's token names the link (checked against its current state on every
    // call) and carries the guest's name, since no account holds it.
    ...(link === undefined ? {} : { link, name: user.displayName }),
  })
  return { token, expiresAt }
}

/**
 * Launches a file in the WOPI client: the one place that decides who gets a WOPI token,
 * with which permission and lifetime (portal endpoint and web host page alike).
 */
export async function launchWopi(
  ctx: AppContext,
  tokens: Tokens,
  by: Principal,
  fileId: string,
  permission: Permission,
): Promise<WopiLaunch> {
  const file = await fileFor(ctx, by, fileId, 'read')
  if (permission === 'write') await authorize(ctx, by, 'edit', file)
  // A trashed file is gone for editors (WOPI answers 404): no token is handed out for it.
  if (await isInTrash(ctx, file)) throw new DomainError('NOT_FOUND', 'file not found')
  const link = by.kind === 'link' ? by.keyHash : undefined
  const { token, expiresAt } = issueWopiToken(ctx, tokens, file.id, by.user, permission, link)
  const wopiSrc = wopiSrcFor(ctx.config.internalUrl, file.id)
  const actions = (await ctx.wopiActions?.actionUrlsFor(extensionOf(file.title), wopiSrc)) ?? {}
  return {
    fileId: file.id,
    wopiSrc,
    accessToken: token,
    accessTokenTtl: expiresAt,
    permission,
    ...(permission === 'write' && actions.edit !== undefined ? { edit: actions.edit } : {}),
    ...(actions.view !== undefined ? { view: actions.view } : {}),
  }
}
