import { FILE_COLUMNS } from '../metadata-shared/file-rows.js'
import {
  fileWithAccessSql,
  tupleToFileWithAccess,
  type FileWithAccessTuple,
} from '../metadata-shared/access-rows.js'
import { USER_COLUMNS } from '../metadata-shared/user-rows.js'
import type { FileWithAccess } from '../../ports/metadata-store.js'
import { checkText, type Database } from './database.js'
import { createBatcher, type Waiting } from './statement-batch.js'

/** A findWithAccess call: which file, as which user. */
interface AccessQuestion {
  fileId: string
  userId: string
}

/** The largest number of calls one statement answers. */
const MAX_BATCH = 256

/**
 * How many statements may be on their way at once. PostgreSQL shares the machine's
 * cores with Folio, so a few statements, each for many calls, keep it busier with
 * executing and less with the per-statement work (receive, bind, executor start, send)
 * than one statement per call on every pooled connection would.
 */
const IN_FLIGHT = 2

const ONE = fileWithAccessSql('$1', '$2')

// The statement of fileWithAccessSql (metadata-shared/access-rows.ts, which explains
// the walk and the row) for many (file, user) pairs at once: each pair carries its
// position (seq, from 1), the walk up the folders carries it too, and each row of the
// answer starts with it. A pair whose file is missing has no row.
const fileColumns = FILE_COLUMNS.map((c) => `files.${c}`).join(', ')
const userColumns = USER_COLUMNS.map((c) => `users.${c}`).join(', ')
const folderShare = (user: string) => `LEFT JOIN shares ON shares.item_kind = 'folder'
  AND shares.item_id = folders.id AND shares.user_id = ${user}`
const MANY = `WITH RECURSIVE asked (file_id, user_id, seq) AS (
    SELECT * FROM unnest($1::text[], $2::text[]) WITH ORDINALITY
  ), up (seq, user_id, parent_id, root_type, access) AS (
    SELECT asked.seq, asked.user_id, folders.parent_id, folders.root_type, shares.access
      FROM asked JOIN files ON files.id = asked.file_id
      JOIN folders ON folders.id = files.folder_id ${folderShare('asked.user_id')}
    UNION ALL SELECT up.seq, up.user_id, folders.parent_id, folders.root_type,
        coalesce(up.access, shares.access)
      FROM up JOIN folders ON folders.id = up.parent_id ${folderShare('up.user_id')}
  )
  SELECT asked.seq, ${fileColumns}, ${userColumns}, up.root_type,
    CASE WHEN files.owner_id = asked.user_id THEN NULL ELSE coalesce(
      (SELECT shares.access FROM shares WHERE shares.item_kind = 'file'
        AND shares.item_id = files.id AND shares.user_id = asked.user_id),
      up.access
    ) END AS share_access
  FROM asked JOIN files ON files.id = asked.file_id
    LEFT JOIN users ON users.id = asked.user_id
    LEFT JOIN up ON up.seq = asked.seq AND up.parent_id IS NULL`

type Asked = Waiting<AccessQuestion, FileWithAccess | undefined>

/**
 * FileRepository.findWithAccess on PostgreSQL, batched: the calls made while
 * IN_FLIGHT statements are on their way are answered by one statement (see
 * statement-batch.ts), each caller getting the row of its own (file, user) pair or none.
 * Every WOPI call starts with this read, so under load this is most of the statements
 * Folio sends.
 */
export function createAccessReader(db: Database): (fileId: string, userId: string) => Promise<FileWithAccess | undefined> {
  const one = async ({ fileId, userId }: AccessQuestion) => {
    const rows = await db.prepared<FileWithAccessTuple>('folio_file_with_access', ONE, [fileId, userId])
    return rows[0] === undefined ? undefined : tupleToFileWithAccess(rows[0])
  }

  const many = async (batch: Asked[]) => {
    const files = batch.map((asked) => asked.input.fileId)
    const users = batch.map((asked) => asked.input.userId)
    const rows = await db.prepared<[number, ...FileWithAccessTuple]>('folio_files_with_access', MANY, [files, users])
    const answers = new Map<number, FileWithAccess>()
    for (const [seq, ...tuple] of rows) answers.set(seq, tupleToFileWithAccess(tuple))
    batch.forEach((asked, i) => asked.resolve(answers.get(i + 1)))
  }

  const run = async (batch: Asked[]): Promise<void> => {
    const [only] = batch
    if (only !== undefined && batch.length === 1) return one(only.input).then(only.resolve, only.reject)
    return many(batch).catch((error: unknown) => {
      for (const asked of batch) asked.reject(error)
    })
  }

  const read = createBatcher({ run, maxBatch: MAX_BATCH, inFlight: IN_FLIGHT })
  return async (fileId, userId) => {
    checkText([fileId, userId])
    return read({ fileId, userId })
  }
}
