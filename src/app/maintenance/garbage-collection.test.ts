import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { openTestContext } from '../../../test/support/app-context.js'
import { testBlobsInS3 } from '../../../test/support/postgres.js'
import { authenticateToken, createUser, signIn } from '../accounts/accounts.js'
import type { AppContext } from '../context.js'
import { uploadFile } from '../files/files.js'
import { collectGarbage, GC_MIN_AGE_MS, runHousekeeping } from './garbage-collection.js'

const HOUR = 60 * 60 * 1000

// Tests that plant temporary files in the local blob folder, which S3 (npm run test:scale) has not.
const blobFolderSkip = testBlobsInS3() ? 'the contents are in S3, not in a blob folder' : false

describe('garbage collection', () => {
  let ctx: AppContext
  let dispose: () => Promise<void>
  before(async () => {
    ;({ ctx, dispose } = await openTestContext('folio-gc-'))
  })
  after(() => dispose())

  const later = (ms: number) => ({ store: ctx.store, blobs: ctx.blobs, clock: { now: () => Date.now() + ms } })
  const put = (bytes: Buffer) => ctx.blobs.put(Readable.from([bytes]), { maxBytes: 1 << 20 })

  test(
    'finding 4: removes old unreferenced blobs and temp files, keeps referenced and young ones',
    { skip: blobFolderSkip },
    async () => {
      const owner = await createUser(ctx, { userName: 'gc-owner', password: 'gc-password-1' })
      const file = await uploadFile(ctx, owner.id, 'Kept.txt', Readable.from([Buffer.from('kept')]))
      const orphan = await put(randomBytes(3000))
      const tmpDir = join(ctx.config.dataDir, 'files', 'tmp')
      await mkdir(tmpDir, { recursive: true })
      await writeFile(join(tmpDir, 'interrupted.tmp'), randomBytes(500))

      // Everything is young: nothing goes.
      const early = await collectGarbage(later(0))
      assert.deepEqual([early.blobsRemoved, early.tempFilesRemoved], [0, 0])
      assert.equal(await ctx.blobs.exists(orphan.key), true)

      const report = await collectGarbage(later(GC_MIN_AGE_MS + 1000))
      assert.equal(report.blobsRemoved, 1)
      assert.equal(report.blobBytesFreed, 3000)
      assert.equal(report.tempFilesRemoved, 1)
      assert.equal(report.tempBytesFreed, 500)
      assert.ok(report.blobsScanned >= 2)
      assert.equal(await ctx.blobs.exists(orphan.key), false)
      assert.equal(await ctx.blobs.exists(file.blobKey), true, 'a referenced blob stays, however old')
      assert.deepEqual(await readdir(tmpDir), [])

      const again = await collectGarbage(later(GC_MIN_AGE_MS + 1000))
      assert.deepEqual([again.blobsRemoved, again.tempFilesRemoved], [0, 0])
    },
  )

  test('finding 4: a blob whose version commits while the collector runs is not taken (age threshold)', async () => {
    // The first test makes this user, unless it was skipped.
    const owner =
      (await ctx.store.users.findByUserName('gc-owner')) ??
      (await createUser(ctx, { userName: 'gc-owner', password: 'gc-password-1' }))
    const stored = await put(Buffer.from('in flight'))
    const collecting = collectGarbage(later(HOUR / 2))
    const file = await uploadFile(ctx, owner.id, 'Racing.txt', Readable.from([Buffer.from('racing')]))
    await collecting
    assert.equal(await ctx.blobs.exists(stored.key), true)
    assert.equal(await ctx.blobs.exists(file.blobKey), true)
  })

  test(
    'finding 4: an old temp file with a fresh mtime (an upload still running) stays',
    { skip: blobFolderSkip },
    async () => {
      const tmpDir = join(ctx.config.dataDir, 'files', 'tmp')
      const running = join(tmpDir, 'running.tmp')
      const stale = join(tmpDir, 'stale.tmp')
      await writeFile(running, 'x')
      await writeFile(stale, 'y')
      const old = new Date(Date.now() - 2 * HOUR)
      await utimes(stale, old, old)
      const report = await collectGarbage(later(0))
      assert.equal(report.tempFilesRemoved, 1)
      assert.deepEqual(await readdir(tmpDir), ['running.tmp'])
    },
  )

  test('finding 9: housekeeping purges expired sessions and throttle keys that have started over', async () => {
    await createUser(ctx, { userName: 'gc-sessions', password: 'gc-password-2' })
    const live = await signIn(ctx, 'gc-sessions', 'gc-password-2', '192.0.2.1')
    await assert.rejects(signIn(ctx, 'gc-sessions', 'wrong-password', '192.0.2.2'), { code: 'INVALID_CREDENTIALS' })
    assert.notEqual(await ctx.store.throttle.get('addr:192.0.2.2'), undefined)

    const now = await runHousekeeping({ ...later(0), config: ctx.config })
    assert.equal(now.sessionsPurged, 0)
    assert.equal(now.throttleKeysPurged, 0)
    await authenticateToken(ctx, live.token)

    const dayLater = { ...later(ctx.config.sessionTtlMs + 1000), config: ctx.config }
    const report = await runHousekeeping(dayLater)
    assert.ok(report.sessionsPurged >= 1)
    assert.ok(report.throttleKeysPurged >= 2)
    assert.equal(await ctx.store.sessions.find(live.token), undefined)
    assert.equal(await ctx.store.throttle.get('addr:192.0.2.2'), undefined)
    assert.equal(await ctx.store.throttle.get('user:gc-sessions'), undefined)
  })
})
