import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Readable } from 'node:stream'
import { newId } from '../../src/core/ids.js'
import { openFsBlobStore } from '../../src/drivers/blob-fs/index.js'
import { openSqliteStore } from '../../src/drivers/metadata-sqlite/index.js'
import type { FileRecord } from '../../src/ports/metadata-store.js'
import { startFolioProcess, type FolioProcess } from '../folio-process.js'
import { jsonCall, pick } from '../http.js'
import { ratioFigure, type Recorder } from '../results.js'
import { median, type Scenario, type ScenarioContext } from '../scenario.js'
import { createSharee, shareFolder } from '../sharing-setup.js'

const PAGE = 100
const SMALL_LIBRARY = 100
const WARMUP_CALLS = 30
const MEASURED_CALLS = 200
const SEED_BATCH = 1000

/**
 * Scenario 5: the time of one page of 100 of a folder (GET /api/2.0/files/{folderId}?count=100)
 * holding a large number of files, as a ratio to the same with 100 files in it; and the
 * same page read by someone the folder is shared with, as a ratio to the owner's.
 * Libraries are seeded straight through the SQLite store (HTTP would take
 * minutes); both Folios then run side by side and are called in turn, so load
 * from elsewhere on the machine hits both alike.
 */
export const listing: Scenario = {
  id: 5,
  title: 'Listing one page of 100 in a large library',
  async run(ctx: ScenarioContext, record: Recorder) {
    const large = ctx.options.listingFiles
    const smallLibrary = await seededLibrary(ctx, SMALL_LIBRARY)
    const largeLibrary = await seededLibrary(ctx, large)
    const small = await startFolioProcess({ dataDir: smallLibrary.dataDir })
    const big = await startFolioProcess({ dataDir: largeLibrary.dataDir, cpuProfDir: ctx.options.cpuProfDir })
    try {
      const smallToken = await small.signIn()
      const bigToken = await big.signIn()
      const sharee = await createSharee(big, bigToken)
      await shareFolder(big, bigToken, largeLibrary.folderId, sharee.id, 2)
      const smallFirst = `/api/2.0/files/${smallLibrary.folderId}?count=${PAGE}`
      const first = `/api/2.0/files/${largeLibrary.folderId}?count=${PAGE}`
      const last = `/api/2.0/files/${largeLibrary.folderId}?count=${PAGE}&startIndex=${large - PAGE}`
      await checkPage(record, small, smallToken, smallFirst, SMALL_LIBRARY, 0)
      await checkPage(record, big, bigToken, first, large, 0)
      await checkPage(record, big, sharee.token, first, large, 2)
      const [smallPage, bigFirst, shareeFirst] = await timeInTurn([
        { folio: small, token: smallToken, path: smallFirst },
        { folio: big, token: bigToken, path: first },
        { folio: big, token: sharee.token, path: first },
      ])
      const [bigLast] = await timeInTurn([{ folio: big, token: bigToken, path: last }])
      const baselineName = `the same with ${SMALL_LIBRARY} files`
      const count = large.toLocaleString('en')
      record.figure(
        ratioFigure({
          metric: `first page of ${PAGE} in a folder of ${count} files`,
          value: bigFirst ?? Number.NaN,
          baseline: smallPage ?? Number.NaN,
          baselineName,
          unit: 'ms',
          target: { max: 1.5 },
        }),
      )
      record.figure(
        ratioFigure({
          metric: `last page of ${PAGE} in a folder of ${count} files (startIndex ${large - PAGE})`,
          value: bigLast ?? Number.NaN,
          baseline: smallPage ?? Number.NaN,
          baselineName,
          unit: 'ms',
        }),
      )
      record.figure(
        ratioFigure({
          metric: `first page of ${PAGE} in a folder of ${count} files, read by someone it is shared with`,
          value: shareeFirst ?? Number.NaN,
          baseline: bigFirst ?? Number.NaN,
          baselineName: 'the owner, same page',
          unit: 'ms',
          target: { max: 1.5 },
        }),
      )
    } finally {
      await big.stop()
      await small.stop()
    }
  },
}

/** A data folder whose admin has a folder of `count` files (and that folder's id). */
async function seededLibrary(ctx: ScenarioContext, count: number): Promise<{ dataDir: string; folderId: string }> {
  const dataDir = await ctx.workDir(`listing-${count}`)
  // A first start creates the database and the admin account the files will belong to.
  const first = await startFolioProcess({ dataDir })
  await first.stop()
  const started = performance.now()
  const folderId = await seed(dataDir, count)
  ctx.log(`seeded ${count} files in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  return { dataDir, folderId }
}

async function checkPage(
  record: Recorder,
  folio: FolioProcess,
  token: string,
  path: string,
  count: number,
  access: number,
) {
  const reply = await jsonCall(folio.url, 'GET', path, { token })
  const files = pick(reply.json, 'response', 'files')
  const total = pick(reply.json, 'response', 'total')
  const firstAccess = pick(reply.json, 'response', 'files', 0, 'access')
  const who = access === 0 ? 'the owner' : 'a sharee'
  record.check(
    `a folder of ${count} files read by ${who} answers a full page, the right total and access ${access}`,
    reply.status === 200 && Array.isArray(files) && files.length === PAGE && total === count && firstAccess === access,
    `status ${reply.status}, ${Array.isArray(files) ? files.length : 'no'} files, total ${String(total)}, access ${String(firstAccess)}`,
  )
}

/** Median time of each call, calling them in turn (sequentially), after a warm-up. */
async function timeInTurn(calls: { folio: FolioProcess; token: string; path: string }[]): Promise<number[]> {
  const times: number[][] = calls.map(() => [])
  for (let i = 0; i < WARMUP_CALLS + MEASURED_CALLS; i++) {
    for (const [index, call] of calls.entries()) {
      const reply = await jsonCall(call.folio.url, 'GET', call.path, { token: call.token })
      if (reply.status !== 200) throw new Error(`listing answered ${reply.status} ${reply.text}`)
      if (i >= WARMUP_CALLS) times[index]?.push(reply.ms)
    }
  }
  return times.map(median)
}

/**
 * Stores `count` files of the admin in a folder under their root, all sharing one small
 * blob, with distinct times; returns the folder's id.
 */
async function seed(dataDir: string, count: number): Promise<string> {
  const store = await openSqliteStore({ path: join(dataDir, 'folio.db') })
  try {
    const blobs = await openFsBlobStore({ root: join(dataDir, 'files') })
    const blob = await blobs.put(Readable.from([Buffer.from('bench listing\n')]), { maxBytes: 1024 })
    const admin = await store.users.findByUserName('admin')
    if (!admin) throw new Error('the admin account was not created')
    const start = Date.now() - count * 1000
    const myRoot = await store.folders.ensureRoot({
      id: newId(),
      ownerId: admin.id,
      parentId: null,
      title: 'My documents',
      rootType: 'my',
      createdAt: 0,
      createdBy: admin.id,
      updatedAt: 0,
      updatedBy: admin.id,
      revision: 1,
      trashedAt: null,
      originFolderId: null,
    })
    const folder = {
      id: newId(),
      ownerId: admin.id,
      parentId: myRoot.id,
      title: 'Big folder',
      rootType: null,
      createdAt: 0,
      createdBy: admin.id,
      updatedAt: 0,
      updatedBy: admin.id,
      revision: 1,
      trashedAt: null,
      originFolderId: null,
    }
    await store.folders.create(folder)
    const create = async (i: number) => {
      const at = start + i * 1000
      const file: FileRecord = {
        id: newId(),
        ownerId: admin.id,
        folderId: folder.id,
        trashedAt: null,
        originFolderId: null,
        title: `Document ${String(i).padStart(6, '0')}.docx`,
        version: 1,
        size: blob.size,
        sha256: blob.sha256,
        blobKey: blob.key,
        createdAt: at,
        createdBy: admin.id,
        updatedAt: at,
        updatedBy: admin.id,
        lock: null,
        keyVersion: 1,
        revision: 0,
      }
      await store.files.create(file, {
        fileId: file.id,
        version: 1,
        blobKey: blob.key,
        size: blob.size,
        sha256: blob.sha256,
        createdAt: at,
        createdBy: admin.id,
        source: 'upload',
        meta: {},
      })
    }
    // Many creates at once: the store's group commit makes them few transactions.
    for (let from = 0; from < count; from += SEED_BATCH) {
      const batch = Array.from({ length: Math.min(SEED_BATCH, count - from) }, (_, i) => from + i)
      await Promise.all(batch.map(create))
    }
    return folder.id
  } finally {
    await store.close()
  }
}
