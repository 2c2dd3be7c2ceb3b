import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { DomainError } from '../core/errors.js'
import type { UserRecord } from '../core/entities.js'
import { openTestContext } from '../../test/support/app-context.js'
import { FakeClock } from '../../test/support/folio-server.js'
import { userPrincipal } from './access.js'
import type { AppContext } from './context.js'
import { createApp } from './create-app.js'
import type { OperationResult } from './file-ops.js'
import { FINISHED_OPERATION_TTL_MS, runOperation, takeOperations } from './operations.js'

function user(id: string): UserRecord {
  return {
    id, userName: id, displayName: id, email: '', isAdmin: false, passwordHash: 'x', wopiUserInfo: '',
    createdAt: 0, updatedAt: 0, tokenGeneration: 0,
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
    const gate = new Promise<void>((resolve) => { release = resolve })
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
    assert.deepEqual(seen.map((op) => [op.kind, op.finishedAt]), [['move', null]])
    assert.deepEqual(await instanceB.folders.takeOperations(bob), [])
    release()
    const done = await running
    assert.deepEqual(done.folders, [{ id: folder.id, title: 'Moved' }])
    const reported = await instanceB.folders.takeOperations(alice)
    assert.deepEqual(reported.map((op) => [op.id, op.finishedAt !== null, op.folders]), [[done.id, true, [{ id: folder.id, title: 'Moved' }]]])
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
    assert.deepEqual(reported.map((op) => [op.kind, op.error, op.finishedAt !== null]), [['delete', 'folder not found', true]])
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
})
