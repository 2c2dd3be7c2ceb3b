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
 * A child process on this Node.js that opens databases, prepares and runs many statements,
 * drops them (some databases closed, some left to the collector with their statements),
 * forces full collections between rounds and exits with statements still alive. It must
 * end with code 0: a SQLite module whose statements outlive their environment's cleanup
 * (better-sqlite3 12 on Node.js 24) aborts here, after a collection or at exit.
 */
const WORKLOAD = `
import Database from 'better-sqlite3'
import { openSqliteStore } from ${JSON.stringify(join(import.meta.dirname, 'index.ts'))}
const dir = process.argv.at(-1)
if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc')
const kept = []
for (let round = 0; round < 40; round++) {
  const db = new Database(':memory:')
  db.exec('CREATE TABLE IF NOT EXISTS t (n INTEGER)')
  for (let i = 0; i < 200; i++) {
    db.prepare('INSERT INTO t (n) VALUES (?)').run(i)
    db.prepare('SELECT count(*) AS c FROM t WHERE n >= ?').get(i)
    for (const row of db.prepare('SELECT n FROM t WHERE n < ? LIMIT 3').iterate(i)) void row
  }
  if (round % 2 === 0) db.close()
  if (round % 10 === 9) kept.push(db.prepare('SELECT 1 AS one'))
  globalThis.gc()
}
for (let round = 0; round < 5; round++) {
  const store = await openSqliteStore({ path: dir + '/folio.db' })
  await store.settings.setIfAbsent('k', 'v')
  await store.close()
  globalThis.gc()
}
globalThis.gc()
await new Promise((resolve) => setTimeout(resolve, 50))
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
  assert.equal(stdout, 'workload done 4\n')
})
