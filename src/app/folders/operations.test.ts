import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { DomainError } from '../../core/errors.js'
import type { FileOperationRecord, UserRecord } from '../../core/entities.js'
import { openTestContext } from '../../../test/support/app-context.js'
import { FakeClock } from '../../../test/support/folio-server.js'
import { userPrincipal } from '../access.js'
import type { AppContext } from '../context.js'
import { createApp } from '../create-app.js'
import type { OperationResult } from './file-ops.js'
import {
  FINISHED_OPERATION_TTL_MS,
  INTERRUPTED_MESSAGE,
  runOperation,
  SILENT_OPERATION_MS,
  takeOperations,
} from './operations.js'
import type { Logger } from '../../ports/logger.js'

function user(id: string): UserRecord {
  return {
    id,
    userName: id,
    displayName: id,
    email: '',
    isAdmin: false,
    passwordHash: 'x',
    wopiUserInfo: '',
    createdAt: 0,
    updatedAt: 0,
    tokenGeneration: 0,
    disabled: false,
  }
}

const EMPTY: OperationResult = { files: [], folders: [], skipped: 0 }

/**
 * File operations live in the store: two applications over one store (two instances)
 * see each other's operations, running and finished, and each finished one is reported once.
 */
describe('app/operations', () => {
  let ctx: AppContext
  let dispose: () => Promise<void>
  const clock = new FakeClock()
  const alice = userPrincipal(user('u-alice'))
  const bob = userPrincipal(user('u-bob'))

  before(async () => {
    ;({ ctx, dispose } = await openTestContext('folio-app-operations-'))
    ctx = { ...ctx, clock }
  })
  after(() => dispose())

  test('an operation running on one instance is reported by another, then once finished, then no more', async () => {
    const instanceA = createApp(ctx)
    const instanceB = createApp(ctx)
    const folder = await instanceA.folders.create(alice, '@my', 'Moved')
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const running = runOperation(ctx, alice, 'move', async () => {
      await gate
      return { files: [], folders: [folder], skipped: 0 }
    })
    // Wait for the row to be stored before asking the other instance.
    let seen = await instanceB.folders.takeOperations(alice)
    while (seen.length === 0) {
      await new Promise((resolve) => setImmediate(resolve))
      seen = await instanceB.folders.takeOperations(alice)
    }
    assert.deepEqual(
      seen.map((op) => [op.kind, op.finishedAt]),
      [['move', null]],
    )
    assert.deepEqual(await instanceB.folders.takeOperations(bob), [])
    release()
    const done = await running
    assert.deepEqual(done.folders, [{ id: folder.id, title: 'Moved' }])
    const reported = await instanceB.folders.takeOperations(alice)
    assert.deepEqual(
      reported.map((op) => [op.id, op.finishedAt !== null, op.folders]),
      [[done.id, true, [{ id: folder.id, title: 'Moved' }]]],
    )
    assert.deepEqual(await instanceA.folders.takeOperations(alice), [])
  })

  test('a failed operation is recorded with the refusal and reported once', async () => {
    await assert.rejects(
      runOperation(ctx, alice, 'delete', async () => {
        throw new DomainError('NOT_FOUND', 'folder not found')
      }),
      (error: unknown) => error instanceof DomainError,
    )
    const reported = await takeOperations(ctx, alice)
    assert.deepEqual(
      reported.map((op) => [op.kind, op.error, op.finishedAt !== null]),
      [['delete', 'folder not found', true]],
    )
    assert.deepEqual(await takeOperations(ctx, alice), [])
  })

  test('a finished operation nobody asked about expires by its stored finish time', async () => {
    await runOperation(ctx, alice, 'copy', async () => EMPTY)
    clock.advance(FINISHED_OPERATION_TTL_MS + 1)
    assert.deepEqual(await takeOperations(ctx, alice), [])
    // The next operation also purges the table, so nothing is left behind.
    await runOperation(ctx, alice, 'copy', async () => EMPTY)
    clock.advance(FINISHED_OPERATION_TTL_MS + 1)
    await runOperation(ctx, bob, 'copy', async () => EMPTY)
    assert.deepEqual(await ctx.store.operations.take('u-alice'), [])
  })

  /** A run held until release() is called, then ending as `end` says. */
  function heldRun(end: () => Promise<OperationResult>) {
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    return {
      release,
      run: async () => {
        await gate
        return end()
      },
    }
  }

  /** Errors logged, by message. */
  function capturingLogger(): Logger & { errors: string[] } {
    const errors: string[] = []
    const quiet = () => undefined
    return { errors, error: (_obj, msg) => errors.push(msg ?? ''), warn: quiet, info: quiet, debug: quiet }
  }

  test('a call waits up to waitMs, then is answered with its operation running; the end is recorded for the clients that poll', async () => {
    const folder = await createApp(ctx).folders.create(alice, '@my', 'Slow')
    const held = heldRun(async () => ({ files: [], folders: [folder], skipped: 0 }))
    const inFlight = new Set<Promise<unknown>>()
    const answered = await runOperation(ctx, alice, 'move', held.run, { waitMs: 5, inFlight })
    assert.equal(answered.finishedAt, null)
    assert.equal(answered.result, undefined)
    assert.equal(inFlight.size, 1, 'the running operation is held for a graceful stop')
    assert.deepEqual(
      (await takeOperations(ctx, alice)).map((op) => [op.id, op.finishedAt]),
      [[answered.id, null]],
    )
    held.release()
    await Promise.all(inFlight)
    assert.equal(inFlight.size, 0)
    const reported = await takeOperations(ctx, alice)
    assert.deepEqual(
      reported.map((op) => [op.id, op.finishedAt !== null, op.error, op.folders]),
      [[answered.id, true, '', [{ id: folder.id, title: 'Slow' }]]],
    )
  })

  test("an operation that ends within the wait is answered ended, and a refusal is the call's own error", async () => {
    const inFlight = new Set<Promise<unknown>>()
    const done = await runOperation(ctx, alice, 'copy', async () => EMPTY, { waitMs: 60_000, inFlight })
    assert.notEqual(done.finishedAt, null)
    assert.deepEqual(done.result, EMPTY)
    await assert.rejects(
      runOperation(
        ctx,
        alice,
        'delete',
        async () => {
          throw new DomainError('FORBIDDEN', 'not yours')
        },
        { waitMs: 60_000, inFlight },
      ),
      (error: unknown) => error instanceof DomainError && error.code === 'FORBIDDEN',
    )
    assert.equal(inFlight.size, 0, 'nothing runs on after the reply')
    await takeOperations(ctx, alice)
  })

  test('a failure after the reply is recorded for the pollers: a refusal with its message, anything else logged and reported as failed', async () => {
    const logger = capturingLogger()
    const logged = { ...ctx, logger }
    const inFlight = new Set<Promise<unknown>>()
    const refused = heldRun(async () => {
      throw new DomainError('NOT_FOUND', 'folder not found')
    })
    const broken = heldRun(async () => {
      throw new Error('disk on fire')
    })
    const a = await runOperation(logged, alice, 'move', refused.run, { waitMs: 1, inFlight })
    const b = await runOperation(logged, alice, 'copy', broken.run, { waitMs: 1, inFlight })
    refused.release()
    broken.release()
    await Promise.all(inFlight)
    const reported = await takeOperations(ctx, alice)
    assert.deepEqual(
      reported.map((op) => [op.id, op.error, op.finishedAt !== null]),
      [
        [a.id, 'folder not found', true],
        [b.id, 'the operation failed', true],
      ],
    )
    assert.deepEqual(logger.errors, ['file operation failed'], 'only the unexpected failure is logged')
  })

  test('with a wait of 0 the application answers at once, its operation running; drain() waits for it; untilDone waits anyway', async () => {
    const app = createApp({ ...ctx, config: { ...ctx.config, operationWaitMs: 0 } })
    const folder = await app.folders.create(alice, '@my', 'To trash')
    const answered = await app.folders.delete(alice, { folderIds: [folder.id], fileIds: [] }, false)
    assert.equal(answered.finishedAt, null)
    assert.equal(answered.result, undefined)
    await app.drain()
    const after = await app.folders.takeOperations(alice)
    const reported = after.find((op) => op.id === answered.id)
    assert.ok(reported !== undefined && reported.finishedAt !== null && reported.error === '', 'its end was recorded')
    // untilDone: the call waits whatever the setting, and has the result.
    const other = await app.folders.create(alice, '@my', 'Also')
    const waited = await app.folders.delete(alice, { folderIds: [other.id], fileIds: [] }, false, true)
    assert.deepEqual(
      waited.result?.folders.map((f) => f.id),
      [other.id],
    )
    await app.folders.takeOperations(alice)
  })

  test('a running operation whose process fell silent is reported ended with an error; a live one keeps running', async () => {
    // A process that died mid-way: its row says running, and no heartbeat ever comes.
    await ctx.store.operations.start({
      id: 'op-of-a-dead-process',
      userId: alice.user.id,
      kind: 'copy',
      startedAt: clock.now(),
      finishedAt: null,
      error: '',
      files: [],
      folders: [],
    })
    const held = heldRun(async () => EMPTY)
    const inFlight = new Set<Promise<unknown>>()
    // The store, told when a heartbeat at or after `beatAfter` has been written.
    let beatAfter = Number.POSITIVE_INFINITY
    let beaten: () => void = () => undefined
    const beatWritten = new Promise<void>((resolve) => {
      beaten = resolve
    })
    const operations = new Proxy(ctx.store.operations, {
      get(target, name, receiver) {
        if (name !== 'beat') return Reflect.get(target, name, receiver)
        return async (id: string, at: number) => {
          await target.beat(id, at)
          if (at >= beatAfter) beaten()
        }
      },
    })
    const watched: AppContext = { ...ctx, store: { ...ctx.store, operations } }
    const live = await runOperation(watched, alice, 'move', held.run, { waitMs: 1, inFlight, heartbeatMs: 5 })
    const byId = (ops: FileOperationRecord[]) =>
      Object.fromEntries(ops.map((op) => [op.id, [op.finishedAt !== null, op.error]]))
    assert.deepEqual(byId(await takeOperations(ctx, alice)), {
      'op-of-a-dead-process': [false, ''],
      [live.id]: [false, ''],
    })
    clock.advance(SILENT_OPERATION_MS + 1)
    // The live operation's next heartbeat carries the clock's new time: wait until it is written.
    beatAfter = clock.now()
    // The heartbeat's timer does not hold the process open; this one does, meanwhile.
    const keepAlive = setInterval(() => undefined, 60_000)
    await beatWritten.finally(() => clearInterval(keepAlive))
    assert.deepEqual(byId(await takeOperations(ctx, alice)), {
      'op-of-a-dead-process': [true, INTERRUPTED_MESSAGE],
      [live.id]: [false, ''],
    })
    held.release()
    await Promise.all(inFlight)
    assert.deepEqual(
      (await takeOperations(ctx, alice)).map((op) => [op.id, op.error]),
      [[live.id, '']],
    )
  })
})
