import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Readable } from 'node:stream'
import Database from 'better-sqlite3'
import { newId } from '../../src/core/ids.js'
import { indexTermsOf } from '../../src/core/search/terms.js'
import { openFsBlobStore } from '../../src/drivers/blob-fs/index.js'
import { openPostgresStore } from '../../src/drivers/metadata-postgres/index.js'
import { openSqliteStore } from '../../src/drivers/metadata-sqlite/index.js'
import { createTextExtractor } from '../../src/drivers/text-extract/index.js'
import type { BlobStore } from '../../src/ports/blob-store.js'
import type { FileRecord, FolderRecord, MetadataStore } from '../../src/ports/metadata-store.js'
import {
  dropSchema,
  postgresSkipReason,
  queryTestDatabase,
  TEST_DATABASE_URL,
  uniqueSchemaName,
} from '../../test/support/postgres.js'
import { startFolioProcess, type FolioProcess } from '../folio-process.js'
import { jsonCall, pick } from '../http.js'
import { limitFigure, ratioFigure, type Recorder } from '../results.js'
import { median, type Scenario, type ScenarioContext } from '../scenario.js'

const SUBFOLDERS = 100
const LISTED = 100
const WORDS_PER_DOCUMENT = 60
const VOCABULARY = 20_000
/** One document in this many holds the rare word the content search looks for. */
const RARE_EVERY = 1000
const RARE_WORD = 'quetzalword'
const WARMUP_CALLS = 30
const MEASURED_CALLS = 300
const THROUGHPUT_SAMPLE = 2000
const SEED_BATCH = 500

/**
 * A deterministic document text: words of a synthetic vocabulary, Zipf-like; one document
 * in RARE_EVERY of the library (`rare`) also holds the rare word.
 */
function documentText(i: number, rare = true): string {
  const words: string[] = []
  let state = (i * 2654435761) >>> 0
  for (let w = 0; w < WORDS_PER_DOCUMENT; w++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    const rank = Math.floor(VOCABULARY * ((state % 10_000) / 10_000) ** 3)
    words.push(`w${rank.toString(36)}`)
  }
  if (rare && i % RARE_EVERY === 0) words.push(RARE_WORD)
  return `${words.join(' ')}.`
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

interface Seeded {
  textChars: number
  hundredFolderId: string
  /** Files of the throughput sample, each with its own blob (sampleKeys, in the same order). */
  sampleFileIds: string[]
  sampleKeys: string[]
}

/**
 * Scenario 10: search over many indexed documents. The content search of a rare word
 * (`GET files/@search/{word}`, p50 and p99) against a plain listing of a 100-item folder;
 * indexing throughput (the text of a document read from the blob store and its words
 * stored) against reading the same bytes; the index's size against the text's; on SQLite,
 * and on PostgreSQL when one is reachable.
 */
export const search: Scenario = {
  id: 10,
  title: 'Search over many indexed documents',
  async run(ctx: ScenarioContext, record: Recorder) {
    const count = ctx.options.listingFiles
    record.note(SEARCH_NOTE)
    await runOn(ctx, record, 'SQLite', count, undefined)
    const skip = await postgresSkipReason()
    if (skip !== undefined) {
      record.note(`PostgreSQL part skipped: ${skip}`)
      return
    }
    const schema = uniqueSchemaName('folio_bench')
    try {
      await runOn(ctx, record, 'PostgreSQL', count, schema)
    } finally {
      await dropSchema(schema)
    }
  },
}

const SEARCH_NOTE = [
  'Documents are seeded straight through the store (HTTP would take minutes), each with its',
  'words indexed as the index job stores them; the searches and listings then go through a',
  'Folio process, called in turn. The index size counts what search keeps: the text itself',
  '(for snippets, up to FOLIO_SEARCH_MAX_TEXT per document) and the words with their index',
  '(FTS5 tables on SQLite; on PostgreSQL the table with its TOAST and GIN index, the tsvector',
  'holding word positions). Indexing throughput is one document at a time, as the worker',
  'runs: each store of words is its own durable commit.',
].join(' ')

async function runOn(ctx: ScenarioContext, record: Recorder, label: string, count: number, schema: string | undefined) {
  const dataDir = await ctx.workDir(`search-${label}`)
  const env: Record<string, string> =
    schema === undefined ? {} : { FOLIO_DATABASE_URL: TEST_DATABASE_URL, FOLIO_DATABASE_SCHEMA: schema }
  // A first start creates the schema and the admin the documents belong to.
  const first = await startFolioProcess({ dataDir, env: { ...env, FOLIO_JOBS: 'false' } })
  await first.stop()
  const store =
    schema === undefined
      ? await openSqliteStore({ path: join(dataDir, 'folio.db') })
      : await openPostgresStore({ url: TEST_DATABASE_URL, schema })
  const blobs = await openFsBlobStore({ root: join(dataDir, 'files') })
  let seeded: Seeded
  try {
    const started = performance.now()
    seeded = await seed(store, blobs, count)
    ctx.log(`${label}: seeded and indexed ${count} documents in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    await throughput(record, label, store, blobs, seeded.sampleFileIds, seeded.sampleKeys)
  } finally {
    await store.close()
  }
  const indexBytes =
    schema === undefined ? sqliteIndexBytes(join(dataDir, 'folio.db')) : await postgresIndexBytes(schema)
  record.figure(
    ratioFigure({
      metric: `${label}: index size (text kept for snippets, words, index) for ${count.toLocaleString('en')} documents`,
      value: indexBytes / 1024 ** 2,
      baseline: seeded.textChars / 1024 ** 2,
      baselineName: "the documents' text",
      unit: 'MiB',
    }),
  )
  const folio = await startFolioProcess({
    dataDir,
    env: { ...env, FOLIO_JOBS: 'false' },
    cpuProfDir: ctx.options.cpuProfDir,
  })
  try {
    const token = await folio.signIn()
    const rare = `/api/2.0/files/@search/${RARE_WORD}`
    const listing = `/api/2.0/files/${seeded.hundredFolderId}?count=${LISTED}`
    const expected = Math.ceil(count / RARE_EVERY)
    const found = await jsonCall(folio.url, 'GET', rare, { token })
    const items = pick(found.json, 'response')
    record.check(
      `${label}: the content search finds every document holding the rare word`,
      found.status === 200 && Array.isArray(items) && items.length === Math.min(100, expected),
      `status ${found.status}, ${Array.isArray(items) ? items.length : 'no'} items, ${expected} expected`,
    )
    const [searchTimes, listingTimes] = await timeInTurn(folio, token, [rare, listing])
    const listingP50 = median(listingTimes ?? [])
    record.figure(
      ratioFigure({
        metric: `${label}: content search p50 over ${count.toLocaleString('en')} indexed documents (${Math.min(100, expected)} hits)`,
        value: median(searchTimes ?? []),
        baseline: listingP50,
        baselineName: `a listing of a ${LISTED}-item folder (p50)`,
        unit: 'ms',
        target: { max: 3 },
      }),
    )
    record.figure(
      limitFigure({
        metric: `${label}: content search p99`,
        value: percentile(searchTimes ?? [], 99),
        unit: 'ms',
        max: 100,
        baseline: percentile(listingTimes ?? [], 99),
        baselineName: "the listing's p99",
      }),
    )
  } finally {
    await folio.stop()
  }
}

async function timeInTurn(folio: FolioProcess, token: string, paths: string[]): Promise<number[][]> {
  const times: number[][] = paths.map(() => [])
  for (let i = 0; i < WARMUP_CALLS + MEASURED_CALLS; i++) {
    for (const [index, path] of paths.entries()) {
      const reply = await jsonCall(folio.url, 'GET', path, { token })
      if (reply.status !== 200) throw new Error(`${path} answered ${reply.status} ${reply.text}`)
      if (i >= WARMUP_CALLS) times[index]?.push(reply.ms)
    }
  }
  return times
}

/**
 * Indexing throughput on a sample of distinct text documents: read through the text
 * extractor from the blob store and stored in the index (what an index job does after its
 * file lookup), against reading the same blobs whole.
 */
async function throughput(
  record: Recorder,
  label: string,
  store: MetadataStore,
  blobs: BlobStore,
  sample: string[],
  keys: string[],
) {
  const extractor = createTextExtractor()
  const limits = { maxChars: 1024 ** 2, timeoutMs: 30_000 }
  const readStarted = performance.now()
  for (const key of keys.slice(0, sample.length)) {
    for await (const chunk of await blobs.get(key)) void chunk
  }
  const readSeconds = (performance.now() - readStarted) / 1000
  const started = performance.now()
  for (const [i, fileId] of sample.entries()) {
    const key = keys[i] ?? ''
    const result = await extractor.extract(
      { title: 'doc.txt', size: 1, open: (range) => blobs.get(key, range) },
      limits,
    )
    const text = result.outcome === 'text' ? result.text : ''
    await store.search.put({ fileId, version: 2, text, terms: indexTermsOf(text), titleTerms: indexTermsOf('doc.txt') })
  }
  const seconds = (performance.now() - started) / 1000
  record.figure(
    ratioFigure({
      metric: `${label}: indexing throughput (text read and its words stored, one at a time)`,
      value: sample.length / seconds,
      baseline: sample.length / readSeconds,
      baselineName: 'reading the same bytes from the blob store',
      unit: 'docs/s',
    }),
  )
}

function sqliteIndexBytes(path: string): number {
  const db = new Database(path, { readonly: true })
  try {
    const row = db
      .prepare<[], { bytes: number | null }>(
        `SELECT sum(pgsize) AS bytes FROM dbstat
      WHERE name = 'search_documents' OR name LIKE 'search_terms%' OR name LIKE 'sqlite_autoindex_search_documents%'`,
      )
      .get()
    return row?.bytes ?? 0
  } finally {
    db.close()
  }
}

async function postgresIndexBytes(schema: string): Promise<number> {
  const rows = await queryTestDatabase<{ bytes: string }>(
    `SELECT pg_total_relation_size('${schema}.search_documents')::text AS bytes`,
  )
  return Number(rows[0]?.bytes ?? 0)
}

/**
 * The admin's documents: a 'Library' of SUBFOLDERS folders holding `count` documents
 * (each with its own words indexed, as the index job stores them), a folder of exactly
 * LISTED documents for the listing baseline, and THROUGHPUT_SAMPLE distinct text blobs.
 */
async function seed(store: MetadataStore, blobs: BlobStore, count: number): Promise<Seeded> {
  const admin = await store.users.findByUserName('admin')
  if (!admin) throw new Error('the admin account was not created')
  const folder = (parentId: string | null, title: string): FolderRecord => ({
    id: newId(),
    ownerId: admin.id,
    parentId,
    title,
    rootType: parentId === null ? 'my' : null,
    createdAt: 0,
    createdBy: admin.id,
    updatedAt: 0,
    updatedBy: admin.id,
    revision: 1,
    trashedAt: null,
    originFolderId: null,
  })
  const root = await store.folders.ensureRoot(folder(null, 'My documents'))
  const library = folder(root.id, 'Library')
  await store.folders.create(library)
  const subfolders: FolderRecord[] = []
  for (let i = 0; i < SUBFOLDERS; i++) {
    const sub = folder(library.id, `Shelf ${i}`)
    await store.folders.create(sub)
    subfolders.push(sub)
  }
  const hundred = folder(root.id, 'Hundred')
  await store.folders.create(hundred)
  const sampleFolder = folder(root.id, 'Sample')
  await store.folders.create(sampleFolder)
  const sampleKeys: string[] = []
  for (let i = 0; i < THROUGHPUT_SAMPLE; i++) {
    // The sample never holds the rare word: the search's hits stay the library's.
    const blob = await blobs.put(Readable.from([Buffer.from(documentText(i, false))]), { maxBytes: 64 * 1024 })
    sampleKeys.push(blob.key)
  }
  let textChars = 0
  const create = async (i: number, folderId: string, rare = true, blobKey?: string): Promise<string> => {
    const text = documentText(i, rare)
    textChars += text.length
    const key = blobKey ?? sampleKeys[i % sampleKeys.length] ?? ''
    const file: FileRecord = {
      id: newId(),
      ownerId: admin.id,
      folderId,
      trashedAt: null,
      originFolderId: null,
      title: `Document ${String(i).padStart(6, '0')}.txt`,
      version: 1,
      size: text.length,
      sha256: '0'.repeat(64),
      blobKey: key,
      createdAt: i,
      createdBy: admin.id,
      updatedAt: i,
      updatedBy: admin.id,
      lock: null,
      keyVersion: 1,
      revision: 0,
    }
    await store.files.create(file, {
      fileId: file.id,
      version: 1,
      blobKey: key,
      size: text.length,
      sha256: file.sha256,
      createdAt: i,
      createdBy: admin.id,
      source: 'upload',
      meta: {},
    })
    await store.search.put({
      fileId: file.id,
      version: 1,
      text,
      terms: indexTermsOf(text),
      titleTerms: indexTermsOf(file.title),
    })
    return file.id
  }
  for (let from = 0; from < count; from += SEED_BATCH) {
    const batch = Array.from({ length: Math.min(SEED_BATCH, count - from) }, (_, k) => from + k)
    await Promise.all(batch.map((i) => create(i, subfolders[i % SUBFOLDERS]?.id ?? library.id)))
  }
  for (let i = 0; i < LISTED; i++) await create(count + i, hundred.id, false)
  const sampleFileIds: string[] = []
  for (const [i, key] of sampleKeys.entries()) {
    sampleFileIds.push(await create(count + LISTED + i, sampleFolder.id, false, key))
  }
  return { textChars, hundredFolderId: hundred.id, sampleFileIds, sampleKeys }
}
