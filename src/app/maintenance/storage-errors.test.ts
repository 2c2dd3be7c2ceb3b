import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { test } from 'node:test'
import { openTestContext } from '../../../test/support/app-context.js'
import { withStorageErrorReports } from './storage-errors.js'

test('storage failures are reported per store; domain answers (not found, name taken) are not', async () => {
  const { ctx, dispose } = await openTestContext('folio-storage-errors-')
  const reports: string[] = []
  const watched = withStorageErrorReports(ctx, {
    editorSave: () => undefined,
    storageError: (store) => reports.push(store),
  })
  try {
    assert.equal(await watched.store.files.findById('nope'), undefined)
    await assert.rejects(watched.blobs.get('0'.repeat(64), { start: 0, end: 0 }), { code: 'NOT_FOUND' })
    const stored = await watched.blobs.put(Readable.from([Buffer.from('x')]), { maxBytes: 10 })
    assert.equal(stored.size, 1)
    assert.deepEqual(reports, [], 'a missing blob is an answer, not a failure')
    await watched.store.close()
    // SQLite: the connection is not open; PostgreSQL: the pool has ended.
    await assert.rejects(watched.store.users.list(), /not open|after calling end on the pool/)
    assert.deepEqual(reports, ['database'])
  } finally {
    await dispose().catch(() => undefined)
  }
})
