import type { FileWithAccess } from '../../ports/metadata-store.js'
import { FILE_COLUMNS, tupleToFile, type FileTuple } from './file-rows.js'
import { isRootType } from './folder-rows.js'
import { userAt, USER_COLUMNS, type UserTuple } from './user-rows.js'

/**
 * FileRepository.findWithAccess as one statement, the same text in every SQL driver but
 * for how parameters are written (`file` and `user` are the markers of the file id and
 * the user id). Every WOPI call runs it, so it replaces what were separate reads: the
 * file by id, the user by id, the root type of the file's folder, and for anyone but the
 * owner the shares (the file's own entry, then each folder up, nearest first). Every part
 * is a primary-key lookup; the folder walk goes up parent_id from the file's folder.
 *
 * The row: the FILE_COLUMNS of the file, the USER_COLUMNS of the user (NULLs when there
 * is none), the root type, and the access number of the most specific share (NULL for
 * the owner, whose shares are not looked up, and when there is none).
 */
export function fileWithAccessSql(file: string, user: string): string {
  const fileColumns = FILE_COLUMNS.map((c) => `files.${c}`).join(', ')
  const userColumns = USER_COLUMNS.map((c) => `users.${c}`).join(', ')
  // The walk goes up from the file's folder to its root. Each step probes the user's entry
  // on that folder by the shares primary key (so the cost follows the file's depth, never
  // the number of the user's shares) and carries the nearest entry found so far, so the
  // root's row alone holds both the section and the nearest folder entry.
  const folderShare = `LEFT JOIN shares ON shares.item_kind = 'folder' AND shares.item_id = folders.id
        AND shares.user_id = ${user}`
  return `WITH RECURSIVE up (parent_id, root_type, access) AS (
      SELECT folders.parent_id, folders.root_type, shares.access
        FROM files JOIN folders ON folders.id = files.folder_id ${folderShare}
        WHERE files.id = ${file}
      UNION ALL SELECT folders.parent_id, folders.root_type, coalesce(up.access, shares.access)
        FROM up JOIN folders ON folders.id = up.parent_id ${folderShare}
    )
    SELECT ${fileColumns}, ${userColumns}, up.root_type,
      CASE WHEN files.owner_id = ${user} THEN NULL ELSE coalesce(
        (SELECT shares.access FROM shares
          WHERE shares.item_kind = 'file' AND shares.item_id = files.id AND shares.user_id = ${user}),
        up.access
      ) END AS share_access
    FROM files LEFT JOIN users ON users.id = ${user} LEFT JOIN up ON up.parent_id IS NULL
    WHERE files.id = ${file}`
}

const USER_START = FILE_COLUMNS.length
const ROOT_TYPE = USER_START + USER_COLUMNS.length
const SHARE_ACCESS = ROOT_TYPE + 1

/** Every element of a tuple may be NULL (the outer-joined side). */
type Nullable<T extends unknown[]> = { [K in keyof T]: T[K] | null }

/** A row of fileWithAccessSql as the driver returns it (an array of the select list). */
export type FileWithAccessTuple = [...FileTuple, ...AccessTupleRest]

/** What follows the file's columns in a row of fileWithAccessSql. */
type AccessTupleRest = [...Nullable<UserTuple>, root_type: string | null, share_access: number | null]

/**
 * The row with its file columns replaced by `file` (the same file, as a write that changed
 * none of the owner, folder or id returned it): the user, section and share are unchanged.
 */
export function withFileRow(row: FileWithAccessTuple, file: FileTuple): FileWithAccessTuple {
  // One copy, written over (spreading the two parts iterated both, on every lock call).
  const next: unknown[] = row.slice()
  for (let i = 0; i < USER_START; i++) next[i] = file[i]
  return next as FileWithAccessTuple
}

/** Maps a row of fileWithAccessSql. */
export function tupleToFileWithAccess(t: FileWithAccessTuple): FileWithAccess {
  // Both records are read in place from the row (no copies of its parts): every WOPI call maps one.
  const file = tupleToFile(t)
  // users.id is NOT NULL in the table: NULL here means the LEFT JOIN found no user.
  const user = t[USER_START] === null ? undefined : userAt(t, USER_START)
  const root = t[ROOT_TYPE]
  const access = t[SHARE_ACCESS]
  return {
    file,
    user,
    rootType: typeof root === 'string' && isRootType(root) ? root : undefined,
    shareAccess: typeof access === 'number' ? access : undefined,
  }
}
