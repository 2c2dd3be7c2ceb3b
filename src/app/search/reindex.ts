import type { AppContext } from '../context.js'
import { enqueueJobs } from '../jobs/index.js'
import { INDEX_VERSION } from './index-version-job.js'

const BATCH = 1000

/**
 * Asks for files to be indexed: with `all` every file, else those whose current version
 * has no words stored (new files a crash left unindexed, an index emptied by a migration).
 * Returns how many were asked for.
 */
export async function reindex(ctx: AppContext, all: boolean): Promise<number> {
  let after = ''
  let total = 0
  for (;;) {
    const ids = all ? await ctx.store.search.fileIds(after, BATCH) : await ctx.store.search.staleFileIds(after, BATCH)
    const last = ids.at(-1)
    if (last === undefined) return total
    await enqueueJobs(ctx, INDEX_VERSION, ids)
    total += ids.length
    after = last
  }
}
