import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, describe, test } from 'node:test'
import type { FileRecord, FolderRecord } from '../../src/core/entities.js'
import { openSqliteStore } from '../../src/drivers/metadata-sqlite/index.js'

const FILES = 10_000
const LOOP = fileURLToPath(new URL('../support/folder-move-loop.ts', import.meta.url))

function folder(id: string, parentId: string | null, title: string): FolderRecord {
  return {
    id,
    ownerId: 'u',
    parentId,
    title,
    rootType: parentId === null ? 'my' : null,
    createdAt: 0,
    createdBy: 'u',
    updatedAt: 0,
    updatedBy: 'u',
    revision: 1,
    trashedAt: null,
    originFolderId: null,
  }
}

describe('moving a large folder', () => {
  const dirs: string[] = []
  after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))))

  test('a process killed (SIGKILL) in the middle of moving a 10,000-file folder leaves the tree whole', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'folio-folder-crash-'))
    dirs.push(dir)
    const path = join(dir, 'folio.db')
    const store = await openSqliteStore({ path })
    await store.folders.ensureRoot(folder('root', null, 'My documents'))
    await store.folders.create(folder('left', 'root', 'Left'))
    await store.folders.create(folder('right', 'root', 'Right'))
    await store.folders.create(folder('big', 'left', 'Big'))
    await store.folders.create(folder('sub', 'big', 'Sub'))
    const creates: Promise<void>[] = []
    for (let i = 0; i < FILES; i++) {
      const file: FileRecord = {
        id: `f${i}`,
        ownerId: 'u',
        folderId: i % 10 === 0 ? 'sub' : 'big',
        title: `File ${i}.docx`,
        version: 1,
        size: 1,
        sha256: 'a'.repeat(64),
        blobKey: `b${i}`,
        createdAt: 0,
        createdBy: 'u',
        updatedAt: 0,
        updatedBy: 'u',
        lock: null,
        keyVersion: 1,
        revision: 0,
        trashedAt: null,
        originFolderId: null,
      }
      creates.push(
        store.files.create(file, {
          fileId: file.id,
          version: 1,
          blobKey: file.blobKey,
          size: 1,
          sha256: file.sha256,
          createdAt: 0,
          createdBy: 'u',
          source: 'upload',
          meta: {},
        }),
      )
    }
    await Promise.all(creates)
    await store.close()

    const child = spawn(process.execPath, ['--import', 'tsx', LOOP, path, 'big', 'left', 'right'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    // Killed once several moves have committed, while it is in the middle of the next ones.
    await new Promise<void>((resolve, reject) => {
      let lines = 0
      child.stdout.on('data', (chunk: Buffer) => {
        lines += chunk.toString().split('\n').length - 1
        if (lines >= 20 && child.kill('SIGKILL')) resolve()
      })
      child.on('exit', (code, signal) => {
        if (signal !== 'SIGKILL') reject(new Error(`the mover ended on its own (${code})`))
      })
    })
    await new Promise((resolve) => child.once('close', resolve))

    const reopened = await openSqliteStore({ path })
    try {
      const big = await reopened.folders.findById('big')
      assert.ok(big?.parentId === 'left' || big?.parentId === 'right', 'the folder is under one of its parents')
      assert.deepEqual(
        (await reopened.folders.path('sub')).map((f) => f.id),
        ['root', big.parentId, 'big', 'sub'],
      )
      const counts = await reopened.folders.counts(['big', 'sub', 'left', 'right'])
      assert.deepEqual(counts.get('big'), { files: FILES - FILES / 10, folders: 1 })
      assert.deepEqual(counts.get('sub'), { files: FILES / 10, folders: 0 })
      const other = big.parentId === 'left' ? 'right' : 'left'
      assert.deepEqual(counts.get(big.parentId), { files: 0, folders: 1 })
      assert.deepEqual(counts.get(other), { files: 0, folders: 0 })
      const page = await reopened.files.list({
        folderId: 'big',
        offset: 0,
        limit: 1,
        sortBy: 'title',
        descending: false,
      })
      assert.equal(page.total, FILES - FILES / 10)
    } finally {
      await reopened.close()
    }
  })
})
