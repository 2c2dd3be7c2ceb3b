import { indexTermsOf } from '../../core/search/terms.js'
import type { AppContext } from '../context.js'
import { enqueueJob, type JobKind } from '../jobs/index.js'

/** Input of an index-version job: the file whose current version is read (the job's subject). */
export interface IndexVersionInput {
  fileId: string
}

export const INDEX_VERSION = 'index-version'

/**
 * Reads the words of a file's current version into the search index, replacing the words
 * of its earlier version. Idempotent: a second run stores the same words again (so
 * `folio search reindex --all` reads every file anew), and a file gone for good leaves
 * nothing behind (its words went with it). A document no reader can
 * read is indexed by its name only, said in the log at debug.
 */
export async function indexVersion(ctx: AppContext, input: IndexVersionInput): Promise<void> {
  const file = await ctx.store.files.findById(input.fileId)
  if (file === undefined) {
    await ctx.store.search.remove(input.fileId)
    return
  }
  const extractor = await ctx.loadTextExtractor?.()
  const limits = { maxChars: ctx.config.search.maxTextChars, timeoutMs: ctx.config.search.timeoutMs }
  const result =
    extractor === undefined
      ? { outcome: 'unsupported' as const }
      : await extractor.extract(
          {
            title: file.title,
            size: file.size,
            open: (range) => ctx.blobs.get(file.blobKey, range),
          },
          limits,
        )
  if (result.outcome !== 'text') {
    const reason = result.outcome === 'unreadable' ? result.reason : 'no reader for this format'
    ctx.logger.debug({ fileId: file.id, version: file.version, reason }, 'search: indexed by name only')
  }
  const text = result.outcome === 'text' ? result.text : ''
  await ctx.store.search.put({
    fileId: file.id,
    version: file.version,
    text,
    terms: indexTermsOf(text),
    titleTerms: indexTermsOf(file.title),
  })
}

export const indexVersionJob: JobKind = {
  kind: INDEX_VERSION,
  run: (ctx, subject) => indexVersion(ctx, { fileId: subject }),
}

/**
 * Asks for the file's current version to be indexed. Never rejects: a failure is logged,
 * since the version is committed already and the catch-up at the next start finds it
 * unindexed. So callers need not wait for it (a save is answered without the queue's own
 * write in its path); the job is a commit of its own, after the version's.
 */
export async function enqueueIndexing(ctx: AppContext, fileId: string): Promise<void> {
  try {
    await enqueueJob(ctx, INDEX_VERSION, fileId)
  } catch (error) {
    ctx.logger.warn({ fileId, err: error }, 'search: could not ask for the new version to be indexed')
  }
}
