import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { openTestContext } from '../../../test/support/app-context.js'
import type { AppContext } from '../context.js'
import { enqueueJob, type JobKind } from './index.js'
import { JOB_LEASE_MS, JOB_MAX_ATTEMPTS, runOneJob, startJobWorker } from './worker.js'

describe('background job worker', () => {
  let ctx: AppContext
  let dispose: () => Promise<void>
  let now = 1_700_000_000_000

  before(async () => {
    const opened = await openTestContext('folio-jobs-')
    ctx = { ...opened.ctx, clock: { now: () => now } }
    dispose = opened.dispose
  })
  after(() => dispose())

  test('a failing job is retried later with a growing delay, then kept failed', async () => {
    const runs: number[] = []
    const flaky: JobKind = {
      kind: 'flaky',
      run: async () => {
        runs.push(now)
        throw new Error('the disk is on fire')
      },
    }
    const kinds = new Map([[flaky.kind, flaky]])
    await enqueueJob(ctx, 'flaky', 's1')
    for (let attempt = 1; attempt <= JOB_MAX_ATTEMPTS; attempt++) {
      assert.equal(await runOneJob(ctx, kinds, 'w'), true, `attempt ${attempt}`)
      // Not due again at once.
      assert.equal(await runOneJob(ctx, kinds, 'w'), false)
      now += 10 * 60_000
    }
    assert.equal(runs.length, JOB_MAX_ATTEMPTS)
    assert.deepEqual(await ctx.store.jobs.counts(), [{ kind: 'flaky', state: 'failed', count: 1 }])
    now += JOB_LEASE_MS * 10
    assert.equal(await runOneJob(ctx, kinds, 'w'), false)
  })

  test('a worker with a kind filter takes only those kinds; another takes the rest; a permanent error fails at once', async () => {
    const ran: string[] = []
    const slow: JobKind = {
      kind: 'slow',
      run: async (_ctx, subject) => {
        ran.push(`slow:${subject}`)
        throw new Error('unreadable document')
      },
      isPermanent: () => true,
    }
    const fast: JobKind = { kind: 'fast', run: async (_ctx, subject) => void ran.push(`fast:${subject}`) }
    const kinds = new Map([
      [slow.kind, slow],
      [fast.kind, fast],
    ])
    await enqueueJob(ctx, 'slow', 'a')
    await enqueueJob(ctx, 'fast', 'b')
    assert.equal(await runOneJob(ctx, kinds, 'w', { except: ['slow'] }), true)
    assert.equal(await runOneJob(ctx, kinds, 'w', { except: ['slow'] }), false)
    assert.deepEqual(ran, ['fast:b'])
    assert.equal(await runOneJob(ctx, kinds, 'w', { only: ['slow'] }), true)
    assert.deepEqual(ran, ['fast:b', 'slow:a'])
    const [job] = await ctx.store.jobs.find('slow', ['a'])
    assert.equal(job?.state, 'failed', 'no retry for a permanent error')
    assert.equal(job?.attempts, 1)
  })

  test('a job of an unknown kind is kept failed, not retried forever', async () => {
    await ctx.store.jobs.enqueue('no-such-kind', 'x', now)
    assert.equal(await runOneJob(ctx, new Map(), 'w'), true)
    const counts = await ctx.store.jobs.counts()
    assert.ok(counts.some((row) => row.kind === 'no-such-kind' && row.state === 'failed'))
  })

  test('the loop runs a job enqueued in this process without waiting for its poll', async () => {
    const done: string[] = []
    let finish: () => void = () => undefined
    const finished = new Promise<void>((resolve) => {
      finish = resolve
    })
    const kind: JobKind = {
      kind: 'record',
      run: async (_ctx, subject) => {
        done.push(subject)
        finish()
      },
    }
    const worker = startJobWorker(ctx, [kind])
    try {
      await enqueueJob(ctx, 'record', 'hello')
      await finished
      assert.deepEqual(done, ['hello'])
    } finally {
      await worker.stop()
    }
  })
})
