import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const dirs: string[] = []
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

/**
 * A child process on this Node.js that prepares and runs many statements and drops them:
 * from async functions awaiting between statements (collections then happen while
 * microtasks run), with databases opened and left to the collector with their statements,
 * with full collections forced between rounds, and Folio's own store opened and closed.
 * It must end with code 0. With better-sqlite3 12 on Node.js 24 it aborted
 * (`Assertion failed: (env) != nullptr` from Statement::~Statement): a statement collected
 * while microtasks run finds no environment to remove its cleanup hook from.
 */
const WORKLOAD = `
import Database from 'better-sqlite3'
import { openSqliteStore } from ${JSON.stringify(join(import.meta.dirname, 'index.ts'))}
const dir = process.argv.at(-1)
if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc')
const kept = []
async function churn(db, count) {
  for (let i = 0; i < count; i++) {
    db.prepare('SELECT ? AS n').get(i)
    await null
  }
}
await new Promise((resolve) => setImmediate(resolve))
for (let round = 0; round < 8; round++) {
  const db = new Database(':memory:')
  db.exec('CREATE TABLE t (n INTEGER)')
  await Promise.all([churn(db, 10000), churn(db, 10000)])
  for (let i = 0; i < 200; i++) {
    db.prepare('INSERT INTO t (n) VALUES (?)').run(i)
    for (const row of db.prepare('SELECT n FROM t WHERE n < ? LIMIT 3').iterate(i)) void row
  }
  kept.push(db.prepare('SELECT 1 AS one'))
  if (round % 2 === 0) db.close()
  globalThis.gc()
}
for (let round = 0; round < 3; round++) {
  const store = await openSqliteStore({ path: dir + '/folio.db' })
  await store.settings.setIfAbsent('k', 'v')
  await store.close()
  globalThis.gc()
}
process.stdout.write('workload done ' + kept.length + '\\n')
`

test('a GC-heavy workload of SQLite statements created and dropped exits with code 0', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'folio-sqlite-gc-'))
  dirs.push(dir)
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', WORKLOAD, dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  )
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr)
  assert.equal(stdout, 'workload done 8\n')
})
