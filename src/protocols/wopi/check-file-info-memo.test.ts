import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { AdapterContext } from '../../app/index.js'
import type { FileRecord, UserRecord } from '../../core/entities.js'
import { checkFileInfoBody } from './check-file-info-memo.js'
import { checkFileInfoJson, presentCheckFileInfo } from './presenters.js'

/** The one part of the context a CheckFileInfo body reads. */
function contextAt(publicUrl: string): AdapterContext {
  return { config: { publicUrl } } as unknown as AdapterContext
}

const FILE: FileRecord = {
  id: 'f-1',
  ownerId: 'u-ann',
  title: 'Report.docx',
  version: 3,
  size: 16384,
  sha256: 'ab'.repeat(32),
  blobKey: 'b-1',
  createdAt: 1_700_000_000_000,
  createdBy: 'u-ann',
  updatedAt: 1_700_000_100_000,
  updatedBy: 'u-ann',
  lock: null,
  keyVersion: 1,
  revision: 7,
  folderId: 'd-1',
  trashedAt: null,
  originFolderId: null,
}

const USER: UserRecord = {
  id: 'u-ann',
  userName: 'ann',
  displayName: 'Ann',
  email: '',
  isAdmin: false,
  passwordHash: 'x',
  wopiUserInfo: '',
  tokenGeneration: 0,
  disabled: false,
  createdAt: 0,
  updatedAt: 0,
}

describe('CheckFileInfo bodies remembered per file', () => {
  test('every answer is the body built afresh from the same inputs, whatever changed', () => {
    const ctx = contextAt('https://folio.example')
    const fresh = (
      c: AdapterContext,
      file: FileRecord,
      user: UserRecord,
      permission: 'read' | 'write',
      guest: boolean,
    ) => checkFileInfoJson(presentCheckFileInfo(c, file, user, permission, guest))
    // Each step changes one input the body depends on, then asks twice (the second may be remembered).
    const steps: [AdapterContext, FileRecord, UserRecord, 'read' | 'write', boolean][] = [
      [ctx, FILE, USER, 'write', false],
      [ctx, { ...FILE, title: 'Renamed.docx', revision: 8 }, USER, 'write', false],
      [ctx, { ...FILE, size: 1, sha256: 'cd'.repeat(32), version: 4, revision: 9 }, USER, 'write', false],
      [ctx, { ...FILE, revision: 9 }, { ...USER, displayName: 'Ann B.' }, 'write', false],
      [ctx, { ...FILE, revision: 9 }, { ...USER, displayName: '', userName: 'annb' }, 'write', false],
      [ctx, { ...FILE, revision: 9 }, { ...USER, wopiUserInfo: '{"theme":"dark"}' }, 'write', false],
      [ctx, { ...FILE, revision: 9 }, USER, 'read', false],
      [ctx, { ...FILE, revision: 9 }, USER, 'read', true],
      [ctx, { ...FILE, revision: 9 }, { ...USER, id: 'u-bob' }, 'read', false],
      [contextAt('https://other.example'), { ...FILE, revision: 9 }, USER, 'read', false],
    ]
    for (const [c, file, user, permission, guest] of steps) {
      for (let i = 0; i < 2; i++) {
        const body = checkFileInfoBody(c, file, user, permission, guest)
        const expected = fresh(c, file, user, permission, guest)
        assert.equal(body.text, expected)
        assert.equal(body.bytes, Buffer.byteLength(expected))
      }
    }
  })

  test('two users polling one file alternately each keep their own body', () => {
    const ctx = contextAt('https://folio.example')
    const bob = { ...USER, id: 'u-bob', userName: 'bob', displayName: 'Bob' }
    const first = checkFileInfoBody(ctx, FILE, USER, 'write', false)
    const second = checkFileInfoBody(ctx, FILE, bob, 'read', false)
    assert.equal(checkFileInfoBody(ctx, FILE, USER, 'write', false), first, 'remembered, not rebuilt')
    assert.equal(checkFileInfoBody(ctx, FILE, bob, 'read', false), second)
    assert.notEqual(first.text, second.text)
  })
})
