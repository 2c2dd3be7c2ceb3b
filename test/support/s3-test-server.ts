import { randomBytes } from 'node:crypto'
import {
  AbortMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  paginateListObjectsV2,
  S3Client,
} from '@aws-sdk/client-s3'

/**
 * Where the tests find an S3-compatible server: FOLIO_TEST_S3_ENDPOINT and friends (set
 * by .ci/run from `scripts/s3-server.sh env`), else the loopback server that script
 * starts with its test account.
 */
export interface S3TestSettings {
  endpoint: string
  region: string
  accessKeyId: string
  secretAccessKey: string
}

export function s3TestSettings(env: NodeJS.ProcessEnv = process.env): S3TestSettings {
  return {
    endpoint: env.FOLIO_TEST_S3_ENDPOINT ?? 'http://127.0.0.1:18480',
    region: env.FOLIO_TEST_S3_REGION ?? 'us-east-1',
    accessKeyId: env.FOLIO_TEST_S3_ACCESS_KEY_ID ?? 'test:tester',
    secretAccessKey: env.FOLIO_TEST_S3_SECRET_ACCESS_KEY ?? 'testing',
  }
}

/**
 * The settings when the server answers, else why the S3 tests cannot run. Under CI=true
 * the caller must fail rather than skip on that reason (see `s3SkipReason`).
 */
export async function findS3TestServer(): Promise<{ settings: S3TestSettings } | { unreachable: string }> {
  const settings = s3TestSettings()
  // A loaded machine can keep the server from answering for seconds: only one that stays
  // silent through several generous attempts counts as missing.
  let failure: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // Any HTTP answer at all means a server listens; S3 answers an unsigned GET with 403.
      await fetch(settings.endpoint, { signal: AbortSignal.timeout(15_000) })
      return { settings }
    } catch (error) {
      failure = error
    }
  }
  return {
    unreachable:
      `no S3 server at ${settings.endpoint} (${failure instanceof Error ? failure.message : String(failure)}); ` +
      'start one with scripts/s3-server.sh or set FOLIO_TEST_S3_ENDPOINT',
  }
}

/**
 * The reason to skip S3 tests with, or false under CI=true: there a missing server
 * must fail the run, so that CI never loses the S3 suite without anyone noticing.
 */
export function s3SkipReason(unreachable: string): string | false {
  return process.env.CI === 'true' ? false : unreachable
}

/** The settings that give a Folio its blobs in `bucket` on the test S3 server. */
export function folioS3Env(s3: S3TestSettings, bucket: string): Record<string, string> {
  return {
    FOLIO_S3_BUCKET: bucket,
    FOLIO_S3_ENDPOINT: s3.endpoint,
    FOLIO_S3_REGION: s3.region,
    FOLIO_S3_ACCESS_KEY_ID: s3.accessKeyId,
    FOLIO_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    FOLIO_S3_FORCE_PATH_STYLE: 'true',
  }
}

/** A client for the test server, for checks the BlobStore port does not offer. */
export function s3TestClient(settings: S3TestSettings): S3Client {
  return new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: true,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
  })
}

/** A bucket name no other test run uses. */
export function uniqueBucketName(): string {
  return `folio-test-${randomBytes(6).toString('hex')}`
}

/** Multipart uploads still open in the bucket under the prefix. */
export async function openUploads(client: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix }))
  return (page.Uploads ?? []).map((upload) => upload.Key ?? '')
}

/** Empties the bucket (objects and open uploads) and deletes it. */
export async function removeBucket(client: S3Client, bucket: string): Promise<void> {
  const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }))
  for (const upload of page.Uploads ?? []) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }))
  }
  for await (const listing of paginateListObjectsV2({ client }, { Bucket: bucket })) {
    for (const object of listing.Contents ?? []) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: object.Key }))
    }
  }
  await client.send(new DeleteBucketCommand({ Bucket: bucket }))
}
