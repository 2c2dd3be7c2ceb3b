import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { openDatabase } from './connection.js'
import { createGroupCommit } from './group-commit.js'

const dirs: string[] = []
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

async function openPair() {
  const dir = await mkdtemp(join(tmpdir(), 'folio-group-commit-'))
  dirs.push(dir)
  const path = join(dir, 'test.db')
  const db = await openDatabase(path)
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL) STRICT')
  // A second connection sees only what was committed.
  const reader = new Database(path, { readonly: true })
  const committed = reader.prepare<[], number>('SELECT count(*) FROM t').pluck()
  return { db, reader, committed }
}

describe('group commit', () => {
  test("afterCommit sees each job's value once its commit is durable; one that throws holds up no caller", async () => {
    const { db, reader, committed } = await openPair()
    const commit = createGroupCommit(db)
    const insert = db.prepare<[string, number]>('INSERT INTO t (k, v) VALUES (?, ?)')
    const observed: [number, number, boolean][] = []
    const jobs = [0, 1, 2].map((i) =>
      commit(
        () => {
          insert.run(`k${i}`, i)
          return i
        },
        (value) => {
          observed.push([value, committed.get() ?? 0, db.inTransaction])
          if (value === 0) throw new Error('observer failed')
        },
      ),
    )
    assert.deepEqual(await Promise.all(jobs), [0, 1, 2])
    assert.deepEqual(observed, [
      [0, 3, false],
      [1, 3, false],
      [2, 3, false],
    ])
    reader.close()
    db.close()
  })

  test('concurrent jobs run in one transaction and are committed before they resolve', async () => {
    const { db, reader, committed } = await openPair()
    const commit = createGroupCommit(db)
    const insert = db.prepare<[string, number]>('INSERT INTO t (k, v) VALUES (?, ?)')
    const seenInTransaction: boolean[] = []
    const seenCommitted: number[] = []
    const jobs = Array.from({ length: 50 }, (_, i) =>
      commit(() => {
        seenInTransaction.push(db.inTransaction)
        insert.run(`k${i}`, i)
        return i * 2
      }).then((value) => {
        seenCommitted.push(committed.get() ?? 0)
        return value
      }),
    )
    assert.equal(committed.get(), 0, 'nothing runs before the batch is flushed')
    assert.deepEqual(
      await Promise.all(jobs),
      Array.from({ length: 50 }, (_, i) => i * 2),
    )
    assert.ok(seenInTransaction.every(Boolean))
    // Every job saw all 50 rows committed when it resolved: one commit for the batch.
    assert.deepEqual(seenCommitted, Array(50).fill(50))
    reader.close()
    db.close()
  })

  test('a failing job is rolled back alone; the others commit', async () => {
    const { db, reader, committed } = await openPair()
    const commit = createGroupCommit(db)
    const insert = db.prepare<[string, number]>('INSERT INTO t (k, v) VALUES (?, ?)')
    const first = commit(() => insert.run('a', 1))
    const failing = commit(() => {
      insert.run('b', 2)
      insert.run('a', 3) // duplicate key: this job, including its row 'b', is undone
    })
    const last = commit(() => insert.run('c', 4))
    await first
    await assert.rejects(failing, /UNIQUE/)
    await last
    const keys = reader.prepare<[], string>('SELECT k FROM t ORDER BY k').pluck().all()
    assert.deepEqual(keys, ['a', 'c'])
    assert.equal(committed.get(), 2)
    reader.close()
    db.close()
  })

  test('a failing job alone in its batch is undone whole, and the next batch commits', async () => {
    const { db, reader, committed } = await openPair()
    const commit = createGroupCommit(db)
    const insert = db.prepare<[string, number]>('INSERT INTO t (k, v) VALUES (?, ?)')
    await commit(() => insert.run('a', 1))
    const failing = commit(() => {
      insert.run('b', 2)
      insert.run('a', 3) // duplicate key: the job's row 'b' must not be kept either
    })
    await assert.rejects(failing, /UNIQUE/)
    assert.equal(db.inTransaction, false)
    await commit(() => insert.run('c', 4))
    const keys = reader.prepare<[], string>('SELECT k FROM t ORDER BY k').pluck().all()
    assert.deepEqual(keys, ['a', 'c'])
    assert.equal(committed.get(), 2)
    reader.close()
    db.close()
  })

  test('a single-statement job runs without a savepoint; when its statement fails, only that statement is undone', async () => {
    const { db: folioDb, reader, committed } = await openPair()
    folioDb.close()
    // The same file, with every statement SQLite runs logged (savepoints included).
    const ran: string[] = []
    const db = new Database(reader.name, { verbose: (sql) => ran.push(String(sql)) })
    // Fails the statement after its row went in: SQLite must undo the statement whole,
    // with no savepoint of the job's own to roll back to.
    db.exec(`CREATE TRIGGER t_no_99 AFTER INSERT ON t WHEN new.v = 99
      BEGIN SELECT RAISE(ABORT, 'v 99 refused'); END`)
    const commit = createGroupCommit(db)
    const insert = db.prepare<[string, number]>('INSERT INTO t (k, v) VALUES (?, ?)')
    const alone = { singleStatement: true }
    ran.length = 0
    const first = commit(() => insert.run('a', 1), undefined, alone)
    const failing = commit(() => insert.run('b', 99), undefined, alone)
    const last = commit(() => insert.run('c', 3), undefined, alone)
    await first
    await assert.rejects(failing, /v 99 refused/)
    await last
    const keys = reader.prepare<[], string>('SELECT k FROM t ORDER BY k').pluck().all()
    assert.deepEqual(keys, ['a', 'c'])
    assert.equal(committed.get(), 2)
    assert.equal(ran.filter((sql) => /SAVEPOINT/i.test(sql)).length, 0, ran.join('\n'))
    assert.equal(ran.filter((sql) => /^COMMIT/i.test(sql)).length, 1, 'one commit for the batch')
    reader.close()
    db.close()
  })

  test('jobs queued after a flush form the next batch', async () => {
    const { db, reader, committed } = await openPair()
    const commit = createGroupCommit(db)
    const insert = db.prepare<[string, number]>('INSERT INTO t (k, v) VALUES (?, ?)')
    await commit(() => insert.run('x', 1))
    await commit(() => insert.run('y', 2))
    assert.equal(committed.get(), 2)
    reader.close()
    db.close()
  })

  test('when the transaction cannot start, every job of the batch is rejected', async () => {
    const { db, reader } = await openPair()
    const commit = createGroupCommit(db)
    const insert = db.prepare<[string, number]>('INSERT INTO t (k, v) VALUES (?, ?)')
    const jobs = [commit(() => insert.run('p', 1)), commit(() => insert.run('q', 2))]
    db.close()
    for (const job of jobs) await assert.rejects(job, /not open/)
    reader.close()
  })
})
