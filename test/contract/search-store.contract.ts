import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { indexTermsOf, namePiecesOf, queryTermsOf } from '../../src/core/search/terms.js'
import type { FileRecord, FolderRecord, MetadataStore } from '../../src/ports/metadata-store.js'
import type { SearchQuery, SearchScope } from '../../src/ports/search-index.js'
import type { OpenStore } from './metadata-store.contract.js'

const T0 = 1_700_000_000_000
const LEASE = 60_000

function root(ownerId: string): FolderRecord {
  return {
    id: `r-${ownerId}`,
    ownerId,
    parentId: null,
    title: 'my',
    rootType: 'my',
    createdAt: T0,
    createdBy: ownerId,
    updatedAt: T0,
    updatedBy: ownerId,
    revision: 1,
    trashedAt: null,
    originFolderId: null,
  }
}

function folder(id: string, ownerId: string, parentId: string, title: string): FolderRecord {
  return { ...root(ownerId), id, parentId, title, rootType: null }
}

async function addFile(store: MetadataStore, id: string, ownerId: string, folderId: string, title: string) {
  const file: FileRecord = {
    id,
    ownerId,
    title,
    folderId,
    version: 1,
    size: 10,
    sha256: '1'.repeat(64),
    blobKey: `blob-${id}`,
    createdAt: T0,
    createdBy: ownerId,
    updatedAt: T0,
    updatedBy: ownerId,
    lock: null,
    keyVersion: 1,
    revision: 1,
    trashedAt: null,
    originFolderId: null,
  }
  await store.files.create(file, {
    fileId: id,
    version: 1,
    blobKey: file.blobKey,
    size: 10,
    sha256: file.sha256,
    createdAt: T0,
    createdBy: ownerId,
    source: 'create',
    meta: {},
  })
  return file
}

async function index(store: MetadataStore, fileId: string, text: string, version = 1) {
  const title = (await store.files.findById(fileId))?.title ?? ''
  await store.search.put({ fileId, version, text, terms: indexTermsOf(text), titleTerms: indexTermsOf(title) })
}

/**
 * Alice: my / Projects / Deep / budget.docx ("Café crème, quarterly figures") and
 * my / notes.txt ("zanzibar"), my / 100%_done.txt. Bob: my / Shared / plan.docx
 * ("café secret plans") and my / memo.txt ("café memo").
 */
async function seed(store: MetadataStore) {
  await store.folders.ensureRoot(root('u-alice'))
  await store.folders.ensureRoot(root('u-bob'))
  await store.folders.create(folder('d-projects', 'u-alice', 'r-u-alice', 'Projects'))
  await store.folders.create(folder('d-deep', 'u-alice', 'd-projects', 'Deep'))
  await store.folders.create(folder('d-shared', 'u-bob', 'r-u-bob', 'Shared'))
  await addFile(store, 'f-budget', 'u-alice', 'd-deep', 'budget.docx')
  await addFile(store, 'f-notes', 'u-alice', 'r-u-alice', 'notes.txt')
  await addFile(store, 'f-percent', 'u-alice', 'r-u-alice', '100%_done.txt')
  await addFile(store, 'f-plan', 'u-bob', 'd-shared', 'plan.docx')
  await addFile(store, 'f-memo', 'u-bob', 'r-u-bob', 'memo.txt')
  await index(store, 'f-budget', 'Café crème, quarterly figures')
  await index(store, 'f-notes', 'zanzibar')
  await index(store, 'f-percent', 'nothing here')
  await index(store, 'f-plan', 'café secret plans')
  await index(store, 'f-memo', 'café memo')
}

const ALICE: SearchScope = { folderIds: ['r-u-alice'], fileIds: [] }

function query(scope: SearchScope, text: string, inContent = true, scanFileTitles = true): SearchQuery {
  return {
    scope,
    namePieces: namePiecesOf(text),
    scanFileTitles,
    ...(inContent ? { contentTerms: queryTermsOf(text) } : {}),
    limit: 50,
  }
}

async function foundIds(store: MetadataStore, q: SearchQuery): Promise<string[]> {
  const results = await store.search.search(q)
  return [...results.folders.map((f) => f.id), ...results.files.map((hit) => hit.file.id)]
}

/**
 * The search index and the job queue of the metadata store, held to the same cases on
 * every driver: both must find exactly the same documents.
 */
export function runSearchStoreContract(name: string, open: OpenStore): void {
  async function withStore(run: (store: MetadataStore) => Promise<void>): Promise<void> {
    const { store, cleanup } = await open()
    try {
      await run(store)
    } finally {
      await cleanup()
    }
  }

  describe(`${name}: search index`, () => {
    test('content: case and accents do not matter; only the scope is searched', () =>
      withStore(async (store) => {
        await seed(store)
        for (const text of ['café', 'CAFE', 'Cafe', 'crème', 'CREME']) {
          assert.deepEqual(await foundIds(store, query(ALICE, text)), ['f-budget'], text)
        }
        assert.deepEqual(
          await foundIds(store, query({ folderIds: ['r-u-bob'], fileIds: [] }, 'cafe')).then((ids) => ids.sort()),
          ['f-memo', 'f-plan'],
        )
      }))

    test('the scope takes in nested folders, a shared folder and single shared files', () =>
      withStore(async (store) => {
        await seed(store)
        assert.deepEqual(await foundIds(store, query({ folderIds: ['d-projects'], fileIds: [] }, 'quarterly')), [
          'f-budget',
        ])
        assert.deepEqual(await foundIds(store, query({ folderIds: ['d-shared'], fileIds: [] }, 'cafe')), ['f-plan'])
        assert.deepEqual(await foundIds(store, query({ folderIds: [], fileIds: ['f-memo'] }, 'cafe')), ['f-memo'])
        assert.deepEqual(await foundIds(store, query({ folderIds: [], fileIds: [] }, 'cafe')), [])
      }))

    test('the last word is a prefix, the others are whole words', () =>
      withStore(async (store) => {
        await seed(store)
        assert.deepEqual(await foundIds(store, query(ALICE, 'quart')), ['f-budget'])
        assert.deepEqual(await foundIds(store, query(ALICE, 'cafe quart')), ['f-budget'])
        assert.deepEqual(await foundIds(store, query(ALICE, 'quart cafe')), [])
        assert.deepEqual(await foundIds(store, query(ALICE, 'cafe zanzibar')), [])
      }))

    test('names: folders and files of the subtree whose title holds every piece, roots never', () =>
      withStore(async (store) => {
        await seed(store)
        assert.deepEqual(await foundIds(store, query(ALICE, 'PROJ', false)), ['d-projects'])
        assert.deepEqual(await foundIds(store, query(ALICE, 'budget .docx', false)), ['f-budget'])
        assert.deepEqual(await foundIds(store, query(ALICE, 'my', false)), [])
        assert.deepEqual(await foundIds(store, query(ALICE, 'plan', false)), [])
        const hits = (await store.search.search(query(ALICE, 'budget'))).files
        assert.deepEqual(
          hits.map((hit) => [hit.file.id, hit.byName]),
          [['f-budget', true]],
        )
      }))

    test("indexed titles: a file is found by its title's words, accents and case aside, title matches first", () =>
      withStore(async (store) => {
        await seed(store)
        await addFile(store, 'f-cafe', 'u-alice', 'd-projects', 'Café plans.txt')
        await index(store, 'f-cafe', 'about a quarterly thing')
        // Without scanning titles: the index finds both, the title match first.
        const hits = (await store.search.search(query(ALICE, 'CAFE', true, false))).files
        assert.deepEqual(
          hits.map((hit) => [hit.file.id, hit.byName]),
          [
            ['f-cafe', true],
            ['f-budget', false],
          ],
        )
        assert.deepEqual(await foundIds(store, query(ALICE, 'plan', true, false)), ['f-cafe'])
        // No file title is scanned: a piece inside a word is not a word.
        assert.deepEqual(await foundIds(store, query(ALICE, 'udget', true, false)), [])
        // A rename is indexed again at the same version.
        await store.files.update('f-cafe', 1, { title: 'Tea plans.txt' })
        await index(store, 'f-cafe', 'about a quarterly thing')
        assert.deepEqual(await foundIds(store, query(ALICE, 'cafe', true, false)), ['f-budget'])
        assert.deepEqual(await foundIds(store, query(ALICE, 'tea', true, false)), ['f-cafe'])
      }))

    test('name matches come before content matches', () =>
      withStore(async (store) => {
        await seed(store)
        await addFile(store, 'f-zanzi', 'u-alice', 'd-projects', 'zanzibar trip.txt')
        await index(store, 'f-zanzi', 'a trip')
        const hits = (await store.search.search(query(ALICE, 'zanzibar'))).files
        assert.deepEqual(
          hits.map((hit) => [hit.file.id, hit.byName]),
          [
            ['f-zanzi', true],
            ['f-notes', false],
          ],
        )
        assert.ok((hits[1]?.rank ?? 0) > 0)
        assert.match(hits[1]?.textStart ?? '', /zanzibar/)
      }))

    test('query text is data: wildcards and operators of SQL and FTS match only themselves', () =>
      withStore(async (store) => {
        await seed(store)
        assert.deepEqual(await foundIds(store, query(ALICE, '%_', false)), ['f-percent'])
        assert.deepEqual(await foundIds(store, query(ALICE, '%', false)), ['f-percent'])
        for (const hostile of [
          '"',
          "'",
          '*',
          'NEAR(a b)',
          'cafe OR zanzibar',
          'x:*',
          '\\',
          '%',
          "'; DROP TABLE files; --",
          '\uD800',
          'a'.repeat(2048),
        ]) {
          const ids = await foundIds(store, query(ALICE, hostile))
          assert.ok(!ids.includes('f-plan') && !ids.includes('f-memo'), hostile)
        }
        assert.deepEqual(await foundIds(store, query(ALICE, 'cafe OR zanzibar')), [])
        assert.equal((await store.files.findById('f-budget'))?.id, 'f-budget')
      }))

    test("a new version's words replace the old ones; an older version never comes back", () =>
      withStore(async (store) => {
        await seed(store)
        await index(store, 'f-budget', 'marmalade only', 2)
        assert.deepEqual(await foundIds(store, query(ALICE, 'quarterly')), [])
        assert.deepEqual(await foundIds(store, query(ALICE, 'marmalade')), ['f-budget'])
        await index(store, 'f-budget', 'quarterly again', 1)
        assert.deepEqual(await foundIds(store, query(ALICE, 'quarterly')), [])
        assert.equal(await store.search.indexedVersion('f-budget'), 2)
      }))

    test("a deleted file's words go with it; words of a missing file are not stored", () =>
      withStore(async (store) => {
        await seed(store)
        assert.deepEqual(await store.files.delete('f-budget'), { outcome: 'deleted', blobKeys: ['blob-f-budget'] })
        assert.equal(await store.search.indexedVersion('f-budget'), undefined)
        assert.deepEqual(await foundIds(store, query(ALICE, 'quarterly')), [])
        await index(store, 'f-budget', 'ghost words')
        assert.equal(await store.search.indexedVersion('f-budget'), undefined)
        await store.folders.delete('d-shared')
        assert.deepEqual(await foundIds(store, query({ folderIds: ['r-u-bob'], fileIds: [] }, 'cafe')), ['f-memo'])
        await store.search.remove('f-memo')
        assert.deepEqual(await foundIds(store, query({ folderIds: ['r-u-bob'], fileIds: [] }, 'cafe')), [])
        assert.deepEqual(await store.search.stats(), {
          documents: 2,
          textChars: 'zanzibar'.length + 'nothing here'.length,
        })
      }))

    test('a text of a million characters of distinct words is stored and found', () =>
      withStore(async (store) => {
        await seed(store)
        // More distinct words than one PostgreSQL tsvector holds with their positions.
        const words = Array.from({ length: 110_000 }, (_, i) => `x${(i * 7919).toString(36).padStart(7, 'q')}`)
        await index(store, 'f-notes', words.join(' '), 2)
        assert.equal(await store.search.indexedVersion('f-notes'), 2)
        for (const at of [0, 5, 40_000]) {
          assert.deepEqual(await foundIds(store, query(ALICE, words[at] ?? '')), ['f-notes'], `word ${at}`)
        }
        assert.deepEqual(await foundIds(store, query(ALICE, 'zanzibar')), [])
      }))

    test('stale and all file ids, in batches', () =>
      withStore(async (store) => {
        await seed(store)
        await addFile(store, 'f-new', 'u-alice', 'r-u-alice', 'new.txt')
        assert.deepEqual(await store.search.staleFileIds('', 10), ['f-new'])
        assert.deepEqual(await store.search.fileIds('', 2), ['f-budget', 'f-memo'])
        assert.deepEqual(await store.search.fileIds('f-memo', 10), ['f-new', 'f-notes', 'f-percent', 'f-plan'])
      }))
  })

  describe(`${name}: job queue`, () => {
    test('enqueuing twice is one job; take, complete', () =>
      withStore(async (store) => {
        await store.jobs.enqueue('index-version', 'f-1', T0)
        await store.jobs.enqueue('index-version', 'f-1', T0)
        assert.deepEqual(await store.jobs.counts(), [{ kind: 'index-version', state: 'pending', count: 1 }])
        const job = await store.jobs.take('w1', T0, LEASE)
        assert.deepEqual(job, {
          kind: 'index-version',
          subject: 'f-1',
          state: 'running',
          attempts: 1,
          runAfter: T0,
          takenBy: 'w1',
          takenAt: T0,
          lastError: '',
        })
        assert.equal(await store.jobs.take('w2', T0, LEASE), undefined)
        assert.ok(job !== undefined && (await store.jobs.complete(job)))
        assert.deepEqual(await store.jobs.counts(), [])
      }))

    test('a job is not taken before its time', () =>
      withStore(async (store) => {
        await store.jobs.enqueue('k', 's', T0 + 1000)
        assert.equal(await store.jobs.take('w1', T0, LEASE), undefined)
        assert.equal((await store.jobs.take('w1', T0 + 1000, LEASE))?.subject, 's')
      }))

    test("a dead taker's job is taken again once its lease ran out, and its late end is refused", () =>
      withStore(async (store) => {
        await store.jobs.enqueue('k', 's', T0)
        const first = await store.jobs.take('w1', T0, LEASE)
        assert.equal(await store.jobs.take('w2', T0 + LEASE, LEASE), undefined)
        const second = await store.jobs.take('w2', T0 + LEASE + 1, LEASE)
        assert.equal(second?.attempts, 2)
        assert.ok(first !== undefined && second !== undefined)
        assert.equal(await store.jobs.complete(first), false)
        assert.equal(await store.jobs.complete(second), true)
      }))

    test('enqueued again while running: that run does not complete it, it runs once more', () =>
      withStore(async (store) => {
        await store.jobs.enqueue('k', 's', T0)
        const run = await store.jobs.take('w1', T0, LEASE)
        await store.jobs.enqueue('k', 's', T0 + 5)
        assert.ok(run !== undefined)
        assert.equal(await store.jobs.complete(run), false)
        const again = await store.jobs.take('w1', T0 + 10, LEASE)
        assert.equal(again?.subject, 's')
        assert.equal(again?.attempts, 1)
      }))

    test('a failure is retried at its time, or kept failed for good', () =>
      withStore(async (store) => {
        await store.jobs.enqueue('k', 'a', T0)
        await store.jobs.enqueue('k', 'b', T0 + 1)
        const a = await store.jobs.take('w1', T0 + 1, LEASE)
        assert.ok(a !== undefined && (await store.jobs.fail(a, 'disk on fire', T0 + 500)))
        const b = await store.jobs.take('w1', T0 + 1, LEASE)
        assert.equal(b?.subject, 'b')
        assert.ok(b !== undefined && (await store.jobs.fail(b, 'no such file', undefined)))
        assert.equal(await store.jobs.take('w1', T0 + 499, LEASE), undefined)
        const retried = await store.jobs.take('w1', T0 + 500, LEASE)
        assert.deepEqual([retried?.subject, retried?.attempts, retried?.lastError], ['a', 2, 'disk on fire'])
        assert.deepEqual(await store.jobs.counts(), [
          { kind: 'k', state: 'failed', count: 1 },
          { kind: 'k', state: 'running', count: 1 },
        ])
        assert.ok(retried !== undefined && (await store.jobs.complete(retried)))
        // The failed one is never taken again, however late.
        assert.equal(await store.jobs.take('w1', T0 + 10 * LEASE, LEASE), undefined)
      }))

    test('takers in parallel get each job once', () =>
      withStore(async (store) => {
        const subjects = Array.from({ length: 30 }, (_, i) => `s${String(i).padStart(2, '0')}`)
        await store.jobs.enqueueMany('k', subjects, T0)
        const taken: string[] = []
        await Promise.all(
          ['w1', 'w2', 'w3'].map(async (worker) => {
            for (;;) {
              const job = await store.jobs.take(worker, T0, LEASE)
              if (job === undefined) return
              taken.push(job.subject)
              await store.jobs.complete(job)
            }
          }),
        )
        assert.deepEqual(taken.sort(), subjects)
      }))
  })
}
