/**
 * Peak memory and throughput of one large put through a blob driver, in a process of its
 * own (so the peak RSS is this put's):
 *
 *   node --import tsx bench/blob-put-memory.ts fs [MiB]
 *   node --import tsx bench/blob-put-memory.ts s3 [MiB]   (S3 test server: scripts/s3-server.sh)
 *
 * The body is generated as it is sent (64 KiB chunks), so any growth is the driver's.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'

import { openFsBlobStore } from '../src/drivers/blob-fs/index.js'
import { openS3BlobStore } from '../src/drivers/blob-s3/index.js'
import type { BlobStore } from '../src/ports/blob-store.js'
import { removeBucket, s3TestClient, s3TestSettings, uniqueBucketName } from '../test/support/s3-test-server.js'

const MiB = 1024 * 1024
const driver = process.argv[2] ?? 'fs'
const mebibytes = Number(process.argv[3] ?? 1024)
const total = mebibytes * MiB

function body(): Readable {
  const chunk = randomBytes(64 * 1024)
  let sent = 0
  return new Readable({
    read() {
      if (sent >= total) {
        this.push(null)
        return
      }
      sent += chunk.length
      this.push(chunk)
    },
  })
}

let store: BlobStore
let dispose: () => Promise<void>
if (driver === 's3') {
  const settings = s3TestSettings()
  const bucket = uniqueBucketName()
  store = await openS3BlobStore({
    ...settings,
    bucket,
    forcePathStyle: true,
    prefix: '',
    maxObjectBytes: total,
  })
  dispose = async () => {
    await store.close?.()
    const admin = s3TestClient(settings)
    await removeBucket(admin, bucket)
    admin.destroy()
  }
} else {
  const root = await mkdtemp(join(tmpdir(), 'folio-put-memory-'))
  store = await openFsBlobStore({ root })
  dispose = () => rm(root, { recursive: true, force: true })
}

const rssBefore = process.memoryUsage().rss
const started = process.hrtime.bigint()
const stored = await store.put(body(), { maxBytes: total, expectedSize: total })
const seconds = Number(process.hrtime.bigint() - started) / 1e9
const peakRss = process.resourceUsage().maxRSS * 1024
await store.delete(stored.key)
await dispose()

console.log(
  `${driver}: ${mebibytes} MiB in ${seconds.toFixed(1)} s (${(mebibytes / seconds).toFixed(0)} MiB/s); ` +
    `RSS before ${(rssBefore / MiB).toFixed(0)} MiB, peak ${(peakRss / MiB).toFixed(0)} MiB`,
)
