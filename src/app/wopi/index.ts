import type { Permission } from '../../core/tokens/signed-token.js'
import type { Principal } from '../access.js'
import { bind, type Bound } from '../bind.js'
import type { AppContext } from '../context.js'
import { linkPrincipal } from '../sharing/sharing.js'
import type { Tokens } from '../tokens.js'
import { wopiAccess, type WopiAccess } from './access.js'
import { issueWopiToken, launchWopi, type WopiLaunch } from './launch.js'
import * as locks from './locks.js'

export type { WopiAccess } from './access.js'
export type { LockInfo } from './locks.js'
export { wopiSrcFor } from './launch.js'

/** The WOPI lock table and the WOPI user's stored info. */
export interface LocksService {
  lock: Bound<typeof locks.lockFile>
  refresh: Bound<typeof locks.refreshLock>
  unlock: Bound<typeof locks.unlockFile>
  current: Bound<typeof locks.lockOf>
  setUserInfo: Bound<typeof locks.setWopiUserInfo>
  /** Who holds a file's lock and since when (owner, admins, operator). */
  info: Bound<typeof locks.lockInfo>
  /** Releases a stuck lock whoever holds it (owner, admins, operator). */
  release: Bound<typeof locks.releaseLock>
  /** How many files hold a lock that has not expired now. */
  held(): Promise<number>
}

/** WOPI access: launching a file in the client, and checking the tokens it sends back. */
export interface WopiService {
  /** Token, WOPISrc and action URLs for opening a file `by` may read (edit needs 'edit'). */
  launch(by: Principal, fileId: string, permission: Permission): Promise<WopiLaunch>
  /**
   * Token, WOPISrc and action URLs for a guest who came in through the file's share link
   * with `key` (see sharing.linkPrincipal): what the link's access allows, edit only with
   * ReadWrite. NOT_FOUND when the key is not the working link's.
   */
  launchByLink(
    fileId: string,
    key: string,
    guest: { id: string; name: string },
    permission: Permission,
  ): Promise<WopiLaunch>
  /** A token for a file the caller has just been allowed to write (PutRelativeFile's Url). */
  issueToken(by: Principal, fileId: string, permission: Permission): { token: string; expiresAt: number }
  /** Checks an access token sent for `fileId` (see access.ts, wopiAccess). */
  access(token: string, fileId: string, address?: string): Promise<WopiAccess>
}

export function createLocksService(ctx: AppContext): LocksService {
  return {
    lock: bind(ctx, locks.lockFile),
    refresh: bind(ctx, locks.refreshLock),
    unlock: bind(ctx, locks.unlockFile),
    current: bind(ctx, locks.lockOf),
    setUserInfo: bind(ctx, locks.setWopiUserInfo),
    info: bind(ctx, locks.lockInfo),
    release: bind(ctx, locks.releaseLock),
    held: () => ctx.store.files.countLocked(ctx.clock.now()),
  }
}

export function createWopiService(ctx: AppContext, tokens: Tokens): WopiService {
  return {
    launch: (by, fileId, permission) => launchWopi(ctx, tokens, by, fileId, permission),
    launchByLink: async (fileId, key, guest, permission) => {
      const { principal } = await linkPrincipal(ctx, fileId, key, guest)
      return launchWopi(ctx, tokens, principal, fileId, permission)
    },
    issueToken: (by, fileId, permission) => issueWopiToken(ctx, tokens, fileId, by.user, permission),
    access: (token, fileId, address) => wopiAccess(ctx, tokens, token, fileId, address),
  }
}
