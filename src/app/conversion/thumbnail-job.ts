import { canConvert } from '../../core/conversion/formats.js'
import type { FileRecord } from '../../core/entities.js'
import { isDomainError } from '../../core/errors.js'
import { extensionOf } from '../../core/names/file-names.js'
import type { AppContext } from '../context.js'
import { enqueueJob, type JobKind } from '../jobs/index.js'
import { renditionsOf } from './renditions.js'

export const MAKE_THUMBNAIL = 'make-thumbnail'

/** A file's thumbnail as DocSpace numbers it: 0 waiting, 1 created, 2 not required, 3 error. */
export type ThumbnailStatus = 0 | 1 | 2 | 3

/** True when this process has a converter that runs (not the 'off' one). */
function converterRuns(ctx: AppContext): boolean {
  return ctx.converter !== undefined && ctx.converter.status().kind !== 'off'
}

function wantsThumbnail(ctx: AppContext, title: string): boolean {
  return converterRuns(ctx) && canConvert(extensionOf(title), 'png')
}

/**
 * Makes the thumbnail of a file's current version (a 'png' rendition of its contents), when
 * a converter runs and the format has a first page. Idempotent: kept renditions are read,
 * not made again. A document the converter cannot read fails the job for good (status 3).
 */
export const makeThumbnailJob: JobKind = {
  kind: MAKE_THUMBNAIL,
  async run(ctx, subject) {
    const file = await ctx.store.files.findById(subject)
    if (file === undefined || ctx.converter === undefined || !wantsThumbnail(ctx, file.title)) return
    const { stream } = await renditionsOf(ctx).open(
      { blobKey: file.blobKey, extension: extensionOf(file.title) },
      'png',
    )
    stream.destroy()
  },
  isPermanent: (error) =>
    isDomainError(error) && (error.code === 'CONVERSION_FAILED' || error.code === 'CONVERSION_UNSUPPORTED'),
}

/**
 * Asks for the thumbnail of a file's new version, when a converter runs here. Never
 * rejects (the version is committed already): a failure is logged, and the thumbnail is
 * then made on its first request.
 */
export async function enqueueThumbnail(ctx: AppContext, fileId: string): Promise<void> {
  if (!converterRuns(ctx)) return
  try {
    await enqueueJob(ctx, MAKE_THUMBNAIL, fileId)
  } catch (error) {
    ctx.logger.warn({ fileId, err: error }, "conversion: could not ask for the new version's thumbnail")
  }
}

/**
 * The thumbnail status of files the caller already holds, in two queries whatever their
 * number: a kept 'png' rendition of the current contents is 1; a format without a first
 * page, or no converter, is 2; a thumbnail job failed for good is 3; anything else is 0.
 */
export async function thumbnailStatuses(
  ctx: AppContext,
  files: readonly FileRecord[],
): Promise<Map<string, ThumbnailStatus>> {
  const statuses = new Map<string, ThumbnailStatus>()
  const wanted = files.filter((file) => wantsThumbnail(ctx, file.title))
  for (const file of files) statuses.set(file.id, 2)
  if (wanted.length === 0) return statuses
  const [made, jobs] = await Promise.all([
    ctx.store.renditions.presentAmong(
      wanted.map((file) => file.blobKey),
      'png',
    ),
    ctx.store.jobs.find(
      MAKE_THUMBNAIL,
      wanted.map((file) => file.id),
    ),
  ])
  const failed = new Set(jobs.filter((job) => job.state === 'failed').map((job) => job.subject))
  for (const file of wanted) statuses.set(file.id, made.has(file.blobKey) ? 1 : failed.has(file.id) ? 3 : 0)
  return statuses
}
