import { fileWithAccessSql, tupleToFileWithAccess, type FileWithAccessTuple } from '../metadata-shared/access-rows.js'
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

// Many (file, user) pairs at once: fileWithAccessSql (metadata-shared/access-rows.ts,
// which explains the walk and the row) run for each pair, so the rule stays written once;
// each pair carries its position (seq, from 1) at the head of its row. As a LATERAL
// subquery over the pairs, each walk is planned with its pair's ids as known values, so
// every step is an index lookup however many pairs a statement carries. A pair whose
// file is missing has no row.
const MANY = `SELECT asked.seq, one.*
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS asked (file_id, user_id, seq)
  CROSS JOIN LATERAL (${fileWithAccessSql('asked.file_id', 'asked.user_id')}) AS one`

type Asked = Waiting<AccessQuestion, FileWithAccess | undefined>

/**
 * FileRepository.findWithAccess on PostgreSQL, batched: the calls made while
 * IN_FLIGHT statements are on their way are answered by one statement (see
 * statement-batch.ts), each caller getting the row of its own (file, user) pair or none.
 * Every WOPI call starts with this read, so under load this is most of the statements
 * Folio sends.
 */
export function createAccessReader(
  db: Database,
): (fileId: string, userId: string) => Promise<FileWithAccess | undefined> {
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
