import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'

import {
  CreateMultipartUploadCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  UploadPartCommand,
} from '@aws-sdk/client-s3'

import { runBlobStoreContract } from '../../../test/contract/blob-store.contract.js'
import {
  findS3TestServer,
  openUploads,
  removeBucket,
  s3SkipReason,
  s3TestClient,
  uniqueBucketName,
  type S3TestSettings,
} from '../../../test/support/s3-test-server.js'
import type { BlobStore } from '../../ports/blob-store.js'
import { openS3BlobStore, type S3BlobStoreOptions } from './index.js'

const MiB = 1024 * 1024
const server = await findS3TestServer()

function storeOptions(settings: S3TestSettings, bucket: string, prefix: string): S3BlobStoreOptions {
  return {
    endpoint: settings.endpoint,
    region: settings.region,
    bucket,
    accessKeyId: settings.accessKeyId,
    secretAccessKey: settings.secretAccessKey,
    forcePathStyle: true,
    prefix,
    maxObjectBytes: 1024 ** 3,
  }
}

if ('unreachable' in server) {
  // Locally this reports a skip with the reason; under CI=true it runs, and fails.
  test('BlobStore contract: s3', { skip: s3SkipReason(server.unreachable) }, () => {
    assert.fail(server.unreachable)
  })
} else {
  const { settings } = server
  const admin = s3TestClient(settings)
  const buckets: string[] = []
  after(async () => {
    for (const bucket of buckets) await removeBucket(admin, bucket)
    admin.destroy()
  })

  runBlobStoreContract('s3', async () => {
    // A bucket of its own, which the store creates, and a prefix inside it.
    const bucket = uniqueBucketName()
    buckets.push(bucket)
    const store = await openS3BlobStore(storeOptions(settings, bucket, 'contract/'))
    return { store, cleanup: async () => store.close?.() }
  })

  describe('S3 blob store on a real server', () => {
    const bucket = uniqueBucketName()
    const prefix = `run-${randomBytes(4).toString('hex')}/`
    let store: BlobStore
    before(async () => {
      buckets.push(bucket)
      store = await openS3BlobStore(storeOptions(settings, bucket, prefix))
    })
    after(async () => {
      await store.close?.()
    })

    const listedKeys = async (): Promise<string[]> => {
      const keys: string[] = []
      for await (const blob of store.list()) keys.push(blob.key)
      return keys.sort()
    }

    test('opening creates the missing bucket; each blob is one object under the prefix', async () => {
      await admin.send(new HeadBucketCommand({ Bucket: bucket }))
      const { key } = await store.put(Readable.from([Buffer.from('hello')]), { maxBytes: 100 })
      const listing = await admin.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))
      assert.deepEqual(
        (listing.Contents ?? []).map((object) => object.Key),
        [`${prefix}${key}`],
      )
      await store.delete(key)
    })

    test('a multi-part put is invisible until it completes', async () => {
      const source = new Readable({ read() {} })
      const first = randomBytes(20 * MiB)
      source.push(first)
      const put = store.put(source, { maxBytes: 64 * MiB })
      // Wait for the upload to be under way on the server (its first parts sent).
      while ((await openUploads(admin, bucket, prefix)).length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      assert.deepEqual(await listedKeys(), [])
      const last = randomBytes(MiB)
      source.push(last)
      source.push(null)
      const stored = await put
      assert.equal(stored.size, 21 * MiB)
      assert.deepEqual(await listedKeys(), [stored.key])
      assert.deepEqual(await openUploads(admin, bucket, prefix), [])
      await store.delete(stored.key)
    })

    test('failed and cancelled multi-part puts leave no object and no parts', async () => {
      const chunk = randomBytes(MiB)
      async function* failing(): AsyncGenerator<Buffer> {
        for (let i = 0; i < 20; i++) yield chunk
        throw new Error('client went away')
      }
      async function* endless(): AsyncGenerator<Buffer> {
        for (;;) yield chunk
      }
      const disconnected = new Readable({ read() {} })
      for (let i = 0; i < 20; i++) disconnected.push(chunk)

      // The body's own failure is the client's doing: INVALID_INPUT, as on disk.
      await assert.rejects(store.put(Readable.from(failing()), { maxBytes: 64 * MiB }), {
        code: 'INVALID_INPUT',
      })
      await assert.rejects(store.put(Readable.from(endless()), { maxBytes: 30 * MiB }), {
        code: 'PAYLOAD_TOO_LARGE',
      })
      await assert.rejects(store.put(Readable.from(failing()), { maxBytes: 64 * MiB, expectedSize: 21 * MiB }), {
        code: 'INVALID_INPUT',
      })
      const cancelled = store.put(disconnected, { maxBytes: 64 * MiB })
      while ((await openUploads(admin, bucket, prefix)).length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      disconnected.destroy()
      // The body's end is seen either as a short body or as the stream's premature close.
      await assert.rejects(cancelled, { code: /^(INVALID_INPUT|ERR_STREAM_PREMATURE_CLOSE)$/ })

      assert.deepEqual(await openUploads(admin, bucket, prefix), [])
      assert.deepEqual(await listedKeys(), [])
    })

    test('a body that ends short of its declared size over several parts is not stored', async () => {
      const body = randomBytes(17 * MiB)
      await assert.rejects(store.put(Readable.from([body]), { maxBytes: 64 * MiB, expectedSize: body.length + 1 }), {
        code: 'INVALID_INPUT',
      })
      assert.deepEqual(await openUploads(admin, bucket, prefix), [])
      assert.deepEqual(await listedKeys(), [])
    })

    test('finding 4: sweepTemporary aborts uploads started before the cut-off and reports their bytes', async () => {
      const started = await admin.send(
        new CreateMultipartUploadCommand({ Bucket: bucket, Key: `${prefix}left-by-a-crash` }),
      )
      assert.ok(started.UploadId)
      await admin.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: `${prefix}left-by-a-crash`,
          UploadId: started.UploadId,
          PartNumber: 1,
          Body: randomBytes(1000),
        }),
      )
      // Started after a cut-off an hour ago: a put that may still be running, kept.
      assert.deepEqual(await store.sweepTemporary(Date.now() - 60 * 60 * 1000), { files: 0, bytes: 0 })
      assert.deepEqual(await openUploads(admin, bucket, prefix), [`${prefix}left-by-a-crash`])
      // Clocks of the server and of this process may differ a little; a minute is plenty.
      assert.deepEqual(await store.sweepTemporary(Date.now() + 60_000), { files: 1, bytes: 1000 })
      assert.deepEqual(await openUploads(admin, bucket, prefix), [])
    })

    test('wrong credentials fail at opening with a clear message and no secret', async () => {
      const secret = `wrong-${randomBytes(8).toString('hex')}`
      const options = { ...storeOptions(settings, bucket, prefix), secretAccessKey: secret }
      await assert.rejects(openS3BlobStore(options), (error: unknown) => {
        assert.ok(error instanceof Error)
        assert.match(error.message, new RegExp(`S3 bucket "${bucket}" at .* is not usable`))
        assert.match(error.message, /access denied/)
        assert.ok(!error.message.includes(secret), error.message)
        return true
      })
    })
  })
}

test('a server refusing for its quota or a full disk is INSUFFICIENT_STORAGE; other refusals are not', async () => {
  const { S3ServiceException } = await import('@aws-sdk/client-s3')
  const { isQuotaRefusal } = await import('./index.js')
  const refusal = (name: string, httpStatusCode: number) =>
    new S3ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode }, message: name })
  assert.equal(isQuotaRefusal(refusal('QuotaExceeded', 403)), true)
  assert.equal(isQuotaRefusal(refusal('XMinioStorageFull', 507)), true)
  assert.equal(isQuotaRefusal(refusal('EntityTooLarge', 400)), true)
  assert.equal(isQuotaRefusal(refusal('InternalError', 507)), true)
  assert.equal(isQuotaRefusal(refusal('AccessDenied', 403)), false)
  assert.equal(isQuotaRefusal(refusal('SlowDown', 503)), false)
  assert.equal(isQuotaRefusal(new Error('ENOSPC')), false)
})
