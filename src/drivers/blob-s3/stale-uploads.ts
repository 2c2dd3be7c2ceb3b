import {
  AbortMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  S3ServiceException,
  type S3Client,
} from '@aws-sdk/client-s3'

import type { SweepReport } from '../../ports/blob-store.js'

/**
 * Aborts the multipart uploads under `prefix` started before `olderThan` (ms since the
 * epoch): a process killed in the middle of a put leaves its parts behind, invisible but
 * stored (and billed). A put of a running instance started after the cut-off unless it
 * has streamed for longer than the caller's margin. Reports the uploads aborted and the
 * bytes their parts held. A server that cannot list uploads (NotImplemented) is left alone.
 */
export async function abortStaleUploads(
  client: S3Client,
  bucket: string,
  prefix: string,
  olderThan: number,
): Promise<SweepReport> {
  const report: SweepReport = { files: 0, bytes: 0 }
  try {
    let keyMarker: string | undefined
    let uploadIdMarker: string | undefined
    for (;;) {
      const page = await client.send(
        new ListMultipartUploadsCommand({
          Bucket: bucket,
          Prefix: prefix,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      )
      for (const upload of page.Uploads ?? []) {
        const started = upload.Initiated?.getTime()
        if (started === undefined || started >= olderThan) continue
        if (upload.Key === undefined || upload.UploadId === undefined) continue
        try {
          const bytes = await partBytes(client, bucket, upload.Key, upload.UploadId)
          await client.send(
            new AbortMultipartUploadCommand({
              Bucket: bucket,
              Key: upload.Key,
              UploadId: upload.UploadId,
            }),
          )
          report.files += 1
          report.bytes += bytes
        } catch (error) {
          // Another instance may have finished or aborted the same upload meanwhile.
          if (!hasStatus(error, 404)) throw error
        }
      }
      if (page.IsTruncated !== true) break
      keyMarker = page.NextKeyMarker
      uploadIdMarker = page.NextUploadIdMarker
    }
  } catch (error) {
    if (hasStatus(error, 501)) return report
    throw error
  }
  return report
}

/**
 * The bytes held by the parts of one upload so far; 0 when the server does not let us
 * list them (403, 501): the count is only reported, the abort matters.
 */
async function partBytes(client: S3Client, bucket: string, key: string, uploadId: string): Promise<number> {
  let bytes = 0
  let marker: string | undefined
  try {
    for (;;) {
      const page = await client.send(
        new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }),
      )
      for (const part of page.Parts ?? []) bytes += part.Size ?? 0
      if (page.IsTruncated !== true) return bytes
      marker = page.NextPartNumberMarker
    }
  } catch (error) {
    if (hasStatus(error, 403) || hasStatus(error, 501)) return 0
    throw error
  }
}

function hasStatus(error: unknown, status: number): boolean {
  return error instanceof S3ServiceException && error.$metadata.httpStatusCode === status
}
