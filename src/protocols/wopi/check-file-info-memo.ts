/**
 * CheckFileInfo bodies remembered per file, for the polls of open editors. A body is a
 * function of the file's row, the user's id, name and UserInfo, the token's permission,
 * whether the caller is a link guest (and a view-only one), and the host's public URL. The row is named by its
 * revision, which every write of it moves, so a body is reused only for the same revision
 * and the same user facts; the URL is fixed per adapter context, which has a memo of its
 * own. Building a body (two URLs, a date, a base64 hash, a dozen escaped strings and its
 * UTF-8 length) was about 7% of a CheckFileInfo's CPU (perf, bench/cpu-per-request.ts).
 */
import type { AdapterContext } from '../../app/index.js'
import type { FileRecord, UserRecord } from '../../core/entities.js'
import type { Permission } from '../../core/tokens/signed-token.js'
import { checkFileInfoJson, presentCheckFileInfo } from './presenters.js'

/** A CheckFileInfo body ready to send: the JSON text and its length in bytes. */
export interface CheckFileInfoBody {
  text: string
  bytes: number
}

/** The last body of one file for one user, and what it was built from. */
interface Entry extends CheckFileInfoBody {
  revision: number
  displayName: string
  userName: string
  userInfo: string
  permission: Permission
  guest: boolean
  viewOnly: boolean
}

/** Bodies remembered per context; past it the memo starts over (each is about 1 KB). */
const MAX_BODIES = 1024

/** Per adapter context: the bodies by file id, then by user id, and how many in all. */
interface Memo {
  files: Map<string, Map<string, Entry>>
  size: number
}

const memos = new WeakMap<AdapterContext, Memo>()

/** The CheckFileInfo body for `user` with `permission` on `file` (see presentCheckFileInfo). */
export function checkFileInfoBody(
  ctx: AdapterContext,
  file: FileRecord,
  user: UserRecord,
  permission: Permission,
  guest: boolean,
  viewOnly = false,
): CheckFileInfoBody {
  let memo = memos.get(ctx)
  if (memo === undefined) {
    memo = { files: new Map(), size: 0 }
    memos.set(ctx, memo)
  }
  const known = memo.files.get(file.id)?.get(user.id)
  if (
    known !== undefined &&
    known.revision === file.revision &&
    known.displayName === user.displayName &&
    known.userName === user.userName &&
    known.userInfo === user.wopiUserInfo &&
    known.permission === permission &&
    known.guest === guest &&
    known.viewOnly === viewOnly
  ) {
    return known
  }
  const text = checkFileInfoJson(presentCheckFileInfo(ctx, file, user, permission, guest, viewOnly))
  const entry: Entry = {
    text,
    bytes: Buffer.byteLength(text),
    revision: file.revision,
    displayName: user.displayName,
    userName: user.userName,
    userInfo: user.wopiUserInfo,
    permission,
    guest,
    viewOnly,
  }
  if (memo.size >= MAX_BODIES) {
    memo.files.clear()
    memo.size = 0
  }
  let byUser = memo.files.get(file.id)
  if (byUser === undefined) {
    byUser = new Map()
    memo.files.set(file.id, byUser)
  }
  if (!byUser.has(user.id)) memo.size++
  byUser.set(user.id, entry)
  return entry
}
