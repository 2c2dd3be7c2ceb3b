import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import { runFolio, serveFolioAt, type ServedFolio } from '../support/folio-command.js'
import { ADMIN_PASSWORD } from '../support/folio-server.js'
import { call, signIn } from '../support/portal-client.js'

const FIXTURES = new URL('../fixtures/search/', import.meta.url)
const METRICS_TOKEN = 'search-crash-metrics-token'

async function until<T>(what: string, check: () => Promise<T | undefined>, tries = 400): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}

// Reads the SQLite data folder directly; the PostgreSQL runs cover the rest of search.
const skip = process.env.FOLIO_TEST_METADATA === 'postgres' ? 'reads the SQLite data folder; runs in npm test' : false

/**
 * A crash between a save and its indexing loses nothing: the real `folio serve` (the
 * bundle) is killed with SIGKILL after saves it acknowledged but did not index yet (its
 * job worker off), one of the queued jobs is removed as if the crash had come between
 * the commit and the enqueue, and the restarted server finds both documents.
 */
describe('search after a crash', { skip }, () => {
  let dataDir = ''
  let folio: ServedFolio | undefined

  after(async () => {
    await folio?.stop('SIGKILL')
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  test('kill -9 after the saves, restart: the documents are found; the backlog metric and folio search reindex', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'folio-search-crash-'))
    const first = await serveFolioAt(dataDir, { FOLIO_JOBS: 'false', FOLIO_METRICS_TOKEN: METRICS_TOKEN })
    folio = first.folio
    const token = await signIn(first.url, 'admin', ADMIN_PASSWORD)
    const upload = async (title: string, bytes: Uint8Array) => {
      const reply = await call(first.url, 'POST', `/api/2.0/files/@my/upload?title=${title}`, {
        token,
        raw: new Uint8Array(bytes),
        headers: { 'Content-Type': 'application/octet-stream' },
      })
      assert.equal(reply.status, 201, reply.text)
      return String(reply.json.response.id)
    }
    const docx = await upload('report.docx', readFileSync(new URL('source-text.docx', FIXTURES)))
    const pdf = await upload('report.pdf', readFileSync(new URL('source-text.pdf', FIXTURES)))
    // The backlog metric counts both jobs (queued right after each save's commit).
    await until('two pending jobs in the metric', async () => {
      const metrics = await call(first.url, 'GET', '/metrics', {
        headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
      })
      return /folio_jobs\{kind="index-version",state="pending"\} 2/.test(metrics.text) ? true : undefined
    })
    await folio.stop('SIGKILL')

    const db = new Database(join(dataDir, 'folio.db'))
    try {
      assert.deepEqual(
        db.prepare("SELECT subject FROM jobs WHERE kind = 'index-version' ORDER BY subject").pluck().all(),
        [docx, pdf].sort(),
      )
      assert.equal(db.prepare('SELECT count(*) FROM search_documents').pluck().get(), 0)
      db.prepare("DELETE FROM jobs WHERE kind = 'index-version' AND subject = ?").run(pdf)
    } finally {
      db.close()
    }

    const second = await serveFolioAt(dataDir)
    folio = second.folio
    const again = await signIn(second.url, 'admin', ADMIN_PASSWORD)
    const found = async (text: string) => {
      const reply = await call(second.url, 'GET', `/api/2.0/files/@search/${encodeURIComponent(text)}`, {
        token: again,
      })
      assert.equal(reply.status, 200, reply.text)
      return reply.json.response.map((item: { id: string }) => item.id).sort()
    }
    await until('both documents found', async () =>
      (await found('wordprocessorword')).length === 2 ? true : undefined,
    )
    assert.deepEqual(await found('wordprocessorword'), [docx, pdf].sort())
    await folio.stop('SIGTERM')

    const run = await runFolio(['search', 'reindex', '--all'], { FOLIO_DATA_DIR: dataDir })
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, /queued 2 file\(s\); indexed 2 here/)
    const stale = await runFolio(['search', 'reindex'], { FOLIO_DATA_DIR: dataDir })
    assert.match(stale.stdout, /queued 0 file\(s\)/)
  })
})
