import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { openDatabase } from './connection.js'
import { openWalIndexHeader } from './wal-index-header.js'

const dirs: string[] = []
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

/** A database in WAL mode with one table, and a second connection to it. */
async function twoConnections() {
  const dir = await mkdtemp(join(tmpdir(), 'folio-wal-index-'))
  dirs.push(dir)
  const ours = await openDatabase(join(dir, 'folio.db'))
  ours.exec('CREATE TABLE t (n INTEGER)')
  const theirs = new Database(ours.name)
  const header = openWalIndexHeader(ours.name)
  const close = () => {
    header.close()
    theirs.close()
    ours.close()
  }
  return { ours, theirs, header, close }
}

describe('the WAL-index header', () => {
  test('stands for nothing until it was read once', async () => {
    const { header, close } = await twoConnections()
    assert.equal(header.unchanged(), false)
    header.remember()
    assert.equal(header.unchanged(), true)
    close()
  })

  test("moves with another connection's commit, and with this connection's own", async () => {
    const { ours, theirs, header, close } = await twoConnections()
    header.remember()
    theirs.prepare('INSERT INTO t VALUES (1)').run()
    assert.equal(header.unchanged(), false, "another connection's commit")
    header.remember()
    ours.prepare('INSERT INTO t VALUES (2)').run()
    assert.equal(header.unchanged(), false, 'our own commit')
    header.remember()
    const many = theirs.transaction(() => {
      for (let n = 0; n < 100; n++) theirs.prepare('INSERT INTO t VALUES (?)').run(n)
    })
    many()
    assert.equal(header.unchanged(), false, 'a transaction of many rows')
    close()
  })

  test('stays put while connections only read, so a poll needs no exact check', async () => {
    const { ours, theirs, header, close } = await twoConnections()
    ours.prepare('INSERT INTO t VALUES (1)').run()
    header.remember()
    for (let i = 0; i < 5; i++) {
      ours.prepare('SELECT count(*) FROM t').get()
      theirs.prepare('SELECT count(*) FROM t').get()
      ours.pragma('data_version')
    }
    assert.equal(header.unchanged(), true)
    close()
  })

  test('a checkpoint and a reset of the WAL count as a change (the caller then asks SQLite)', async () => {
    const { ours, theirs, header, close } = await twoConnections()
    ours.prepare('INSERT INTO t VALUES (1)').run()
    header.remember()
    theirs.pragma('wal_checkpoint(TRUNCATE)')
    theirs.prepare('INSERT INTO t VALUES (2)').run()
    assert.equal(header.unchanged(), false)
    close()
  })

  test('without a -shm file, or once closed, it never says unchanged', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'folio-wal-index-'))
    dirs.push(dir)
    const missing = openWalIndexHeader(join(dir, 'none.db'))
    missing.remember()
    assert.equal(missing.unchanged(), false)
    missing.close()

    const { header, close } = await twoConnections()
    header.remember()
    header.close()
    assert.equal(header.unchanged(), false)
    header.remember()
    assert.equal(header.unchanged(), false)
    close()
  })
})
