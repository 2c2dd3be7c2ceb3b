import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { tupleToFileWithAccess, withFileRow, type FileWithAccessTuple } from './access-rows.js'
import { lockOnlyChange, tupleToFile, withLockChange, type FileTuple } from './file-rows.js'
import type { UserTuple } from './user-rows.js'

const FILE: FileTuple = [
  'file-1',
  'user-1',
  'Report.docx',
  'report.docx',
  3,
  1024,
  'c2hh',
  'blob-1',
  1000,
  'user-1',
  2000,
  'user-1',
  null,
  null,
  null,
  null,
  7,
  41,
  'folder-1',
  null,
  null,
]
const USER: UserTuple = ['user-1', 'ann', 'Ann Smith', 'ann@example.org', 0, 'hash', 'info', 2, 500, 600, 1]
const ROW: FileWithAccessTuple = [...FILE, ...USER, 'my', 3]
const LOCK = { lockId: 'L1', expiresAt: 9000, holderId: 'user-2', lockedAt: 8000 }

describe('rows of the one WOPI read (fileWithAccessSql)', () => {
  test('the file and the user are read from their places in the row', () => {
    const read = tupleToFileWithAccess(ROW)
    assert.deepEqual(read.file, tupleToFile(FILE))
    assert.equal(read.file.title, 'Report.docx')
    assert.deepEqual(read.user, {
      id: 'user-1',
      userName: 'ann',
      displayName: 'Ann Smith',
      email: 'ann@example.org',
      isAdmin: false,
      passwordHash: 'hash',
      wopiUserInfo: 'info',
      tokenGeneration: 2,
      createdAt: 500,
      updatedAt: 600,
      disabled: true,
    })
    assert.equal(read.rootType, 'my')
    assert.equal(read.shareAccess, 3)
  })

  test('a row whose user columns are NULL has no user', () => {
    const row = [...FILE, ...USER.map(() => null), 'my', null] as unknown as FileWithAccessTuple
    const read = tupleToFileWithAccess(row)
    assert.equal(read.user, undefined)
    assert.equal(read.shareAccess, undefined)
  })

  test('withFileRow replaces the file columns and keeps the user, section and share', () => {
    const changed = withLockChange(FILE, { id: 'file-1', expectedRevision: 41, ...LOCK })
    const row = withFileRow(ROW, changed)
    assert.equal(row.length, ROW.length)
    assert.deepEqual(row.slice(0, FILE.length), changed)
    assert.deepEqual(row.slice(FILE.length), ROW.slice(FILE.length))
    assert.equal(ROW[17], 41, 'the row given is left as it was')
  })
})

describe('lock changes', () => {
  test('withLockChange of a longer row gives the file columns alone, locked, at the next revision', () => {
    const next = withLockChange(ROW, { id: 'file-1', expectedRevision: 41, ...LOCK })
    assert.equal(next.length, FILE.length)
    assert.deepEqual(tupleToFile(next).lock, LOCK)
    assert.equal(tupleToFile(next).revision, 42)
    assert.equal(ROW[12], null, 'the row given is left as it was')
  })

  test('withLockChange refuses a row that is not the one the change was decided on', () => {
    assert.throws(() => withLockChange(ROW, { id: 'file-1', expectedRevision: 40, ...LOCK }), /not the row/)
    assert.throws(() => withLockChange(ROW, { id: 'file-2', expectedRevision: 41, ...LOCK }), /not the row/)
  })

  test('lockOnlyChange: a patch of the lock alone, or with every other field undefined', () => {
    assert.deepEqual(lockOnlyChange('file-1', 41, { lock: LOCK }), { id: 'file-1', expectedRevision: 41, ...LOCK })
    assert.deepEqual(lockOnlyChange('file-1', 41, { lock: null, title: undefined }), {
      id: 'file-1',
      expectedRevision: 41,
      lockId: null,
      expiresAt: null,
      holderId: null,
      lockedAt: null,
    })
  })

  test('lockOnlyChange: undefined when the patch changes anything else, or not the lock', () => {
    assert.equal(lockOnlyChange('file-1', 41, { lock: LOCK, title: 'New.docx' }), undefined)
    assert.equal(lockOnlyChange('file-1', 41, { lock: null, trashedAt: null }), undefined)
    assert.equal(lockOnlyChange('file-1', 41, { title: 'New.docx' }), undefined)
    assert.equal(lockOnlyChange('file-1', 41, {}), undefined)
  })
})
