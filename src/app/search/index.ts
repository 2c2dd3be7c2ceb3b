import type { Principal } from '../access.js'
import type { AppContext } from '../context.js'
import { runOneJob, startJobWorker, type JobWorker } from '../jobs/worker.js'
import { viewFolder, type FolderRef } from '../folders/folders.js'
import { indexVersionJob } from './index-version-job.js'
import { makeThumbnailJob } from '../conversion/thumbnail-job.js'
import { convertToOoxmlJob } from '../conversion/to-ooxml.js'
import { searchItems, type SearchItem } from './query.js'
import { reindex } from './reindex.js'

export type { SearchItem } from './query.js'
export { enqueueIndexing } from './index-version-job.js'

/** A search as an adapter asks for it. */
export interface SearchRequest {
  text: string
  inContent: boolean
  limit: number
}

/** Search by name and by the words inside documents (see query.ts), and its index. */
export interface SearchService {
  /** Everything `by` may read but the trash: their documents and what is shared with them. */
  everywhere(by: Principal, request: SearchRequest): Promise<SearchItem[]>
  /** The subtree of a folder `by` may read ('@trash' searches their trash). */
  inFolder(by: Principal, ref: FolderRef, request: SearchRequest): Promise<SearchItem[]>
  /** Asks for files to be indexed again: every one, or those not indexed yet. */
  reindex(all: boolean): Promise<number>
  /** Jobs waiting or running, by kind and state (the backlog metric). */
  backlog(): ReturnType<AppContext['store']['jobs']['counts']>
  /** Runs the due indexing jobs in this process until none is left (the CLI); returns how many ran. */
  runPending(): Promise<number>
}

/** Every kind of background job this application runs. */
export const JOB_KINDS = [indexVersionJob, makeThumbnailJob, convertToOoxmlJob]

export function createSearchService(ctx: AppContext): SearchService {
  return {
    everywhere: (by, request) => searchItems(ctx, by, { ...request, where: { kind: 'everywhere' } }),
    inFolder: async (by, ref, request) => {
      const { folder, view } = await viewFolder(ctx, by, ref, 'read')
      const where =
        view.section === 'trash' && folder.parentId === null
          ? { kind: 'trash' as const }
          : { kind: 'subtree' as const, folder }
      return searchItems(ctx, by, { ...request, where })
    },
    reindex: (all) => reindex(ctx, all),
    backlog: () => ctx.store.jobs.counts(),
    runPending: async () => {
      const kinds = new Map(JOB_KINDS.map((kind) => [kind.kind, kind]))
      let ran = 0
      // Indexing only: thumbnails and conversions wait for a running instance's worker.
      while (await runOneJob(ctx, kinds, 'cli', { only: [indexVersionJob.kind] })) ran++
      return ran
    },
  }
}

/** Jobs that run a document converter: seconds each, so they have a loop of their own. */
const CONVERSION_KINDS = [makeThumbnailJob.kind, convertToOoxmlJob.kind]

/**
 * Starts this instance's background workers (see jobs/worker.ts): one for conversions and
 * one for every other kind, so a backlog of thumbnails never delays indexing.
 */
export function startBackgroundJobs(ctx: AppContext): JobWorker {
  const workers = [
    startJobWorker(ctx, JOB_KINDS, { except: CONVERSION_KINDS }),
    startJobWorker(ctx, JOB_KINDS, { only: CONVERSION_KINDS }),
  ]
  return {
    id: workers.map((worker) => worker.id).join(','),
    stop: async () => {
      await Promise.all(workers.map((worker) => worker.stop()))
    },
  }
}
