import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SlotPool } from './slot-pool.js'

const busy = () => new Error('busy')

test('slots are handed out, then callers wait in order, then the queue is full', async () => {
  const pool = new SlotPool(2, 1)
  const first = await pool.acquire(undefined, busy)
  const second = await pool.acquire(undefined, busy)
  assert.deepEqual([first, second].sort(), [0, 1])
  const waiting = pool.acquire(undefined, busy)
  await assert.rejects(pool.acquire(undefined, busy), /busy/)
  pool.release(first)
  assert.equal(await waiting, first)
})

test('a waiting caller that aborts leaves the queue; close refuses the rest', async () => {
  const pool = new SlotPool(1, 2)
  await pool.acquire(undefined, busy)
  const controller = new AbortController()
  const aborted = pool.acquire(controller.signal, busy)
  const closed = pool.acquire(undefined, busy)
  controller.abort(new Error('gone'))
  await assert.rejects(aborted, /gone/)
  pool.close(() => new Error('stopped'))
  await assert.rejects(closed, /stopped/)
})
