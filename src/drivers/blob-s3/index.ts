import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

import {
  BucketLocationConstraint,
  CreateBucketCommand,
  type CreateBucketConfiguration,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'

import type { BlobListing, BlobStore, ByteRange, PutOptions, StoredBlob, SweepReport } from '../../ports/blob-store.js'
import {
  blobMeter,
  bodyEndedEarly,
  checkChosenKey,
  checkPutOptions,
  checkRangeShape,
  KEY_PATTERN,
  newBlobKey,
  noSpace,
  notFound,
  rangeNotSatisfiable,
  tooLarge,
  watchBodyFailure,
} from '../blob-shared/put-rules.js'
import { abortStaleUploads } from './stale-uploads.js'

export interface S3BlobStoreOptions {
  /** Server address; unset means AWS's own endpoint for the region. */
  endpoint?: string
  region: string
  bucket: string
  /** With the secret; both unset means the SDK's default credential chain (AWS_*, roles). */
  accessKeyId?: string
  secretAccessKey?: string
  /** Bucket in the path (http://host/bucket/key) rather than in the host name. */
  forcePathStyle: boolean
  /** Prepended to every key, e.g. `folio/`; '' for none. */
  prefix: string
  /**
   * The largest put this store is asked for (FOLIO_MAX_FILE_SIZE): parts are made large
   * enough that it fits in S3's 10,000 parts.
   */
  maxObjectBytes: number
}

/** Smallest part S3 accepts (but the last); parts are at least this big. */
const MIN_PART_BYTES = 8 * 1024 * 1024
const MAX_PARTS = 10_000
/** Parts in flight at once per upload: memory per put is about (this + 1) x part size. */
const QUEUE_SIZE = 2

/**
 * Opens the S3 blob store: every blob is one object `<prefix><key>` in the bucket, which
 * is created when missing. A put streams through a multipart upload with a bounded number
 * of parts in memory, so a 1 GiB body never sits in memory; the object exists only once
 * the upload completes (S3 makes an object visible whole or not at all), and a put that
 * fails or is cancelled aborts its upload so no parts are left; sweepTemporary aborts the
 * uploads a crashed process left behind. No write relies on S3 conditional requests:
 * keys are random and never rewritten.
 */
export async function openS3BlobStore(options: S3BlobStoreOptions): Promise<BlobStore> {
  const { bucket } = options
  const prefix = options.prefix
  const client = new S3Client({
    endpoint: options.endpoint,
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    credentials:
      options.accessKeyId !== undefined && options.secretAccessKey !== undefined
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
    // A server that does not answer is an error after a while, not a hung request.
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
  })
  const partSize = Math.max(MIN_PART_BYTES, Math.ceil(options.maxObjectBytes / MAX_PARTS))
  const objectKey = (key: string): string => `${prefix}${key}`

  try {
    await ensureBucket(client, options)
  } catch (error) {
    client.destroy()
    throw error
  }

  /** Streams `source` into the object of `key` through one multipart upload. */
  async function write(key: string, source: Readable, putOptions: PutOptions): Promise<StoredBlob> {
    checkPutOptions(putOptions)
    const { maxBytes, expectedSize } = putOptions
    // Refuse before reading anything, so the caller can still answer on an intact connection.
    if (expectedSize !== undefined && expectedSize > maxBytes) throw tooLarge(maxBytes)

    const meter = blobMeter(putOptions)
    // An error of the source itself (the client went away mid-body) is the client's
    // doing, not the store's: it becomes INVALID_INPUT below. S3 errors stay as they are.
    const watch = watchBodyFailure(source, [meter.stream])
    // The first error wins: the meter's own (limits) or the source's, over the upload's
    // report of the same failure.
    let failure: unknown
    const feeding = pipeline(source, meter.stream).catch((error: unknown) => {
      failure ??= error
    })
    const upload = new Upload({
      client,
      params: { Bucket: bucket, Key: objectKey(key), Body: meter.stream },
      partSize,
      queueSize: QUEUE_SIZE,
    })
    try {
      // On a failed body lib-storage waits for parts in flight, then aborts the upload.
      await upload.done()
    } catch (error) {
      failure ??= error
      // Decided before the destroy below, whose own errors would blur who failed first.
      const bodyFailed = watch.bodyFailed()
      watch.stop()
      // The upload failed on its own: stop reading the source so the feeding ends.
      meter.stream.destroy()
      await feeding
      if (bodyFailed) throw bodyEndedEarly()
      throw isQuotaRefusal(failure) ? noSpace(failure) : failure
    }
    await feeding
    watch.stop()
    if (failure !== undefined) {
      // Cannot happen when the upload completed on a clean end; kept so no bad blob is kept.
      await deleteObject(client, bucket, objectKey(key))
      throw failure
    }
    return { key, size: meter.size(), sha256: meter.sha256() }
  }

  return {
    put: (source: Readable, putOptions: PutOptions) => write(newBlobKey(), source, putOptions),

    putWithKey: async (key: string, source: Readable, putOptions: PutOptions) =>
      write(checkChosenKey(key), source, putOptions),

    async get(key: string, range?: ByteRange): Promise<Readable> {
      if (!KEY_PATTERN.test(key)) throw notFound()
      if (range !== undefined) checkRangeShape(range)
      try {
        const response = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: objectKey(key),
            Range: range === undefined ? undefined : `bytes=${range.start}-${range.end}`,
          }),
        )
        const body = response.Body
        if (body instanceof Readable) return body
        if (body === undefined) return Readable.from([])
        throw new Error('S3 client returned a body that is not a Node.js stream')
      } catch (error) {
        if (isS3Error(error, ['NoSuchKey', 'NotFound'], 404)) throw notFound()
        if (range !== undefined && isS3Error(error, ['InvalidRange'], 416)) {
          throw rangeNotSatisfiable(range)
        }
        throw error
      }
    },

    // Every read is a request to the S3 server either way; a stream costs little beside it.
    getSmall: () => Promise.resolve(undefined),

    async delete(key: string): Promise<void> {
      if (!KEY_PATTERN.test(key)) return
      await deleteObject(client, bucket, objectKey(key))
    },

    async exists(key: string): Promise<boolean> {
      if (!KEY_PATTERN.test(key)) return false
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }))
        return true
      } catch (error) {
        if (isS3Error(error, ['NoSuchKey', 'NotFound'], 404)) return false
        throw error
      }
    },

    async *list(): AsyncGenerator<BlobListing> {
      const pages = paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          const key = object.Key?.slice(prefix.length)
          // Other objects under the prefix are not this store's blobs.
          if (key === undefined || !KEY_PATTERN.test(key) || object.LastModified === undefined) {
            continue
          }
          yield { key, modifiedAt: object.LastModified.getTime(), size: object.Size ?? 0 }
        }
      }
    },

    /** S3 has no temporary files: its leftovers are unfinished multipart uploads. */
    async sweepTemporary(olderThan: number): Promise<SweepReport> {
      return abortStaleUploads(client, bucket, prefix, olderThan)
    },

    async close(): Promise<void> {
      client.destroy()
    },
  }
}

/** Checks the bucket is there and reachable; creates it when missing. */
async function ensureBucket(client: S3Client, options: S3BlobStoreOptions): Promise<void> {
  const { bucket } = options
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }))
    return
  } catch (error) {
    if (!isS3Error(error, ['NotFound', 'NoSuchBucket'], 404)) throw bucketError(options, error)
  }
  try {
    await client.send(
      new CreateBucketCommand({
        Bucket: bucket,
        CreateBucketConfiguration: locationConstraint(options.region),
      }),
    )
  } catch (error) {
    // Another instance starting at the same moment may have created it first.
    try {
      await client.send(new HeadBucketCommand({ Bucket: bucket }))
    } catch {
      throw bucketError(options, error)
    }
  }
}

/** AWS regions other than us-east-1 are named again when creating a bucket; others are not. */
function locationConstraint(region: string): CreateBucketConfiguration | undefined {
  if (region === 'us-east-1') return undefined
  const known = Object.values(BucketLocationConstraint).find((name) => name === region)
  return known === undefined ? undefined : { LocationConstraint: known }
}

/** Says which bucket and server failed and why, never with a credential in it. */
function bucketError(options: S3BlobStoreOptions, cause: unknown): Error {
  const where = options.endpoint ?? `AWS region ${options.region}`
  const status = cause instanceof S3ServiceException ? cause.$metadata.httpStatusCode : undefined
  const reason =
    status === 403
      ? 'access denied: check FOLIO_S3_ACCESS_KEY_ID and FOLIO_S3_SECRET_ACCESS_KEY'
      : cause instanceof Error
        ? `${cause.name}: ${cause.message}`
        : String(cause)
  return new Error(`S3 bucket "${options.bucket}" at ${where} is not usable (${reason})`, {
    cause,
  })
}

async function deleteObject(client: S3Client, bucket: string, key: string): Promise<void> {
  try {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))
  } catch (error) {
    // S3 answers 204 for a missing key; some compatible servers answer 404.
    if (!isS3Error(error, ['NoSuchKey', 'NotFound'], 404)) throw error
  }
}

/**
 * True for a server's refusal to store more: a quota (Ceph's QuotaExceeded, MinIO's
 * XMinioStorageFull and XMinioAdminBucketQuotaExceeded) or 507 Insufficient Storage.
 * EntityTooLarge counts too: Folio holds every object to FOLIO_MAX_FILE_SIZE itself and
 * sends parts far below S3's limits, so a server saying so is applying a quota (Swift
 * answers a full container's quota that way).
 */
export function isQuotaRefusal(error: unknown): boolean {
  const names = [
    'QuotaExceeded',
    'XMinioStorageFull',
    'XMinioAdminBucketQuotaExceeded',
    'EntityTooLarge',
    'InsufficientStorage',
  ]
  return isS3Error(error, names, 507)
}

/** True for an S3 error with one of these names, or this HTTP status (HEAD has no body). */
export function isS3Error(error: unknown, names: string[], status: number): boolean {
  if (!(error instanceof S3ServiceException)) return false
  return names.includes(error.name) || error.$metadata.httpStatusCode === status
}
