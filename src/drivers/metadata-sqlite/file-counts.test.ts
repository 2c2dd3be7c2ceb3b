import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FileListQuery, FileRecord, VersionRecord } from '../../ports/metadata-store.js'
import { openDatabase } from './connection.js'
import { openSqliteStore } from './index.js'
import { applyMigrations, SQLITE_MIGRATIONS_DIR } from './migrations.js'

const dirs: string[] = []
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'folio-file-counts-'))
  dirs.push(dir)
  return dir
}

function fileOf(id: string, ownerId: string): { file: FileRecord; version: VersionRecord } {
  const now = Date.now()
  const file: FileRecord = {
    id,
    ownerId,
    folderId: `folder-${ownerId}`,
    trashedAt: null,
    originFolderId: null,
    title: `${id}.docx`,
    version: 1,
    size: 1,
    sha256: 'a'.repeat(64),
    blobKey: `blob-${id}`,
    createdAt: now,
    createdBy: ownerId,
    updatedAt: now,
    updatedBy: ownerId,
    lock: null,
    keyVersion: 1,
    revision: 0,
  }
  const version: VersionRecord = {
    fileId: id,
    version: 1,
    blobKey: file.blobKey,
    size: 1,
    sha256: file.sha256,
    createdAt: now,
    createdBy: ownerId,
    source: 'upload',
    meta: {},
  }
  return { file, version }
}

const page: Omit<FileListQuery, 'folderId'> = { offset: 0, limit: 10, sortBy: 'updated', descending: true }

describe('listing totals (folder_counts)', () => {
  test('the total follows creates and deletes, per folder', async () => {
    const store = await openSqliteStore({ path: join(await tempDir(), 'folio.db') })
    try {
      for (const id of ['f1', 'f2', 'f3']) {
        const { file, version } = fileOf(id, 'alice')
        await store.files.create(file, version)
      }
      const { file, version } = fileOf('g1', 'bob')
      await store.files.create(file, version)
      await store.files.delete('f2')
      assert.equal((await store.files.list({ ...page, folderId: 'folder-alice' })).total, 2)
      assert.equal((await store.files.list({ ...page, folderId: 'folder-bob' })).total, 1)
      assert.equal((await store.files.list({ ...page, folderId: 'folder-nobody' })).total, 0)
    } finally {
      await store.close()
    }
  })

  test("files stored before folders existed land in their owner's my root, counted", async () => {
    const dir = await tempDir()
    const before = join(dir, 'before-005')
    await mkdir(before)
    for (const name of await readdir(SQLITE_MIGRATIONS_DIR)) {
      if (name < '005') await copyFile(join(SQLITE_MIGRATIONS_DIR, name), join(before, name))
    }
    const path = join(dir, 'folio.db')
    const db = await openDatabase(path)
    await applyMigrations(db, before)
    db.close()
    // Rows written by a Folio that had no folders yet.
    const legacy = await openDatabase(path)
    const insert = legacy.prepare(`INSERT INTO files (id, owner_id, title, title_key, version,
      size, sha256, blob_key, created_at, created_by, updated_at, updated_by, key_version, revision)
      VALUES (?, 'carol', ?, ?, 1, 1, 'x', 'b', 0, 'carol', 0, 'carol', 1, 0)`)
    for (let i = 0; i < 5; i++) insert.run(`old${i}`, `Old ${i}.docx`, `old ${i}.docx`)
    legacy.close()

    const store = await openSqliteStore({ path })
    try {
      const root = await store.folders.findRoot('carol', 'my')
      assert.ok(root)
      const listed = await store.files.list({ ...page, folderId: root.id })
      assert.equal(listed.total, 5)
      assert.ok(listed.items.every((file) => file.folderId === root.id))
      assert.equal(await store.files.titleExists(root.id, 'OLD 1.docx'), true)
    } finally {
      await store.close()
    }
  })
})
