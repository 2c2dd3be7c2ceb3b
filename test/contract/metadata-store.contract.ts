import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { isDomainError, type ErrorCode } from '../../src/core/errors.js'
import type {
  AuditEvent,
  FileDeletion,
  FilePatch,
  FileOperationRecord,
  FileRecord,
  FileSortField,
  FolderRecord,
  MetadataStore,
  SessionRecord,
  ShareLinkRecord,
  FolderLinkRecord,
  ShareRecord,
  UserRecord,
  VersionRecord,
} from '../../src/ports/metadata-store.js'
import type { TransferBatch } from '../../src/ports/metadata-transfer.js'

/**
 * What a driver's test hands the contract: a fresh, empty store, how to dispose of it and
 * how to open a second store over the same storage, as another process or instance does
 * (closed by the test that opens it, before cleanup).
 */
export type OpenStore = () => Promise<{
  store: MetadataStore
  cleanup: () => Promise<void>
  openAnother: () => Promise<MetadataStore>
}>

const T0 = 1_700_000_000_000

function buildUser(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id: 'u-alice',
    userName: 'Alice',
    displayName: 'Alice Liddell',
    email: 'alice@example.test',
    isAdmin: false,
    passwordHash: 'scrypt$1$abc$def',
    wopiUserInfo: '',
    tokenGeneration: 0,
    disabled: false,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  }
}

function buildSession(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    tokenHash: 'a'.repeat(64),
    userId: 'u-alice',
    createdAt: T0,
    expiresAt: T0 + 3_600_000,
    ...overrides,
  }
}

function buildFile(overrides: Partial<FileRecord> = {}): FileRecord {
  return {
    id: 'f-1',
    ownerId: 'u-alice',
    title: 'Report.docx',
    version: 1,
    size: 1234,
    sha256: '1'.repeat(64),
    blobKey: 'blob-f-1-v1',
    createdAt: T0,
    createdBy: 'u-alice',
    updatedAt: T0,
    updatedBy: 'u-alice',
    lock: null,
    keyVersion: 1,
    revision: 1,
    // One folder per owner unless the test says otherwise (no folder row is needed).
    folderId: `d-${overrides.ownerId ?? 'u-alice'}`,
    trashedAt: null,
    originFolderId: null,
    ...overrides,
  }
}

/** The version row that matches a file's head. */
function headVersion(file: FileRecord, overrides: Partial<VersionRecord> = {}): VersionRecord {
  return {
    fileId: file.id,
    version: file.version,
    blobKey: file.blobKey,
    size: file.size,
    sha256: file.sha256,
    createdAt: file.createdAt,
    createdBy: file.createdBy,
    source: 'create',
    meta: {},
    ...overrides,
  }
}

function nextVersion(file: FileRecord, overrides: Partial<VersionRecord> = {}): VersionRecord {
  const version = file.version + 1
  return {
    fileId: file.id,
    version,
    blobKey: `blob-${file.id}-v${version}`,
    size: file.size + version,
    sha256: String(version % 10).repeat(64),
    createdAt: file.updatedAt + 1000,
    createdBy: 'u-bob',
    source: 'wopi',
    meta: {},
    ...overrides,
  }
}

async function createFile(store: MetadataStore, overrides: Partial<FileRecord> = {}) {
  const file = buildFile(overrides)
  await store.files.create(file, headVersion(file))
  return file
}

function isCode(code: ErrorCode) {
  return (error: unknown) => isDomainError(error) && error.code === code
}

/**
 * Defines node:test suites that hold every MetadataStore driver to the port's
 * promises. `open` must return a fresh, empty store on each call; the suites
 * talk to it only through the port.
 */
export function runMetadataStoreContract(name: string, open: OpenStore): void {
  async function withStore(run: (store: MetadataStore) => Promise<void>): Promise<void> {
    const { store, cleanup } = await open()
    try {
      await run(store)
    } finally {
      await cleanup()
    }
  }

  /** A store and a second one over the same storage (another process or instance). */
  async function withTwoStores(run: (store: MetadataStore, other: MetadataStore) => Promise<void>): Promise<void> {
    const { store, cleanup, openAnother } = await open()
    try {
      const other = await openAnother()
      try {
        await run(store, other)
      } finally {
        await other.close()
      }
    } finally {
      await cleanup()
    }
  }

  describe(`${name}: users`, () => {
    test('create then findById returns every field', () =>
      withStore(async (store) => {
        const admin = buildUser({
          id: 'u-root',
          userName: 'root',
          isAdmin: true,
          wopiUserInfo: 'x',
        })
        const plain = buildUser()
        await store.users.create(admin)
        await store.users.create(plain)
        assert.deepEqual(await store.users.findById('u-root'), admin)
        assert.deepEqual(await store.users.findById('u-alice'), plain)
        assert.equal(await store.users.findById('u-nobody'), undefined)
      }))

    test('a user name taken in another case throws USER_EXISTS', () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await assert.rejects(store.users.create(buildUser({ id: 'u-other', userName: 'ALICE' })), isCode('USER_EXISTS'))
        assert.equal(await store.users.findById('u-other'), undefined)
      }))

    test('a user name taken with non-ASCII letters in another case throws USER_EXISTS', () =>
      withStore(async (store) => {
        await store.users.create(buildUser({ userName: 'Émile' }))
        await assert.rejects(store.users.create(buildUser({ id: 'u-other', userName: 'éMILE' })), isCode('USER_EXISTS'))
      }))

    test('findByUserName ignores case', () =>
      withStore(async (store) => {
        const user = buildUser()
        await store.users.create(user)
        assert.deepEqual(await store.users.findByUserName('aLiCe'), user)
        assert.deepEqual(await store.users.findByUserName('Alice'), user)
        assert.equal(await store.users.findByUserName('alic'), undefined)
      }))

    test('list returns every user', () =>
      withStore(async (store) => {
        assert.deepEqual(await store.users.list(), [])
        const alice = buildUser()
        const bob = buildUser({ id: 'u-bob', userName: 'bob' })
        await store.users.create(bob)
        await store.users.create(alice)
        const ids = (await store.users.list()).map((u) => u.id).sort()
        assert.deepEqual(ids, ['u-alice', 'u-bob'])
      }))

    test('update changes only the patched fields and reports a missing user', () =>
      withStore(async (store) => {
        const user = buildUser()
        await store.users.create(user)
        const changed = await store.users.update('u-alice', {
          displayName: 'A. L.',
          isAdmin: true,
          updatedAt: T0 + 5,
        })
        assert.equal(changed, true)
        assert.deepEqual(await store.users.findById('u-alice'), {
          ...user,
          displayName: 'A. L.',
          isAdmin: true,
          updatedAt: T0 + 5,
        })
        await store.users.update('u-alice', {
          email: 'new@example.test',
          passwordHash: 'scrypt$2',
          wopiUserInfo: 'info',
          isAdmin: false,
          updatedAt: T0 + 6,
        })
        assert.deepEqual(await store.users.findById('u-alice'), {
          ...user,
          displayName: 'A. L.',
          email: 'new@example.test',
          passwordHash: 'scrypt$2',
          wopiUserInfo: 'info',
          isAdmin: false,
          updatedAt: T0 + 6,
        })
        assert.equal(await store.users.update('u-nobody', { updatedAt: T0 }), false)
      }))

    test('finding 13: bumpTokenGeneration adds one in the same update, and only when asked', () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await store.users.update('u-alice', { passwordHash: 'scrypt$3', updatedAt: T0 + 1, bumpTokenGeneration: true })
        assert.equal((await store.users.findById('u-alice'))?.tokenGeneration, 1)
        await store.users.update('u-alice', { displayName: 'Al', updatedAt: T0 + 2 })
        assert.equal((await store.users.findById('u-alice'))?.tokenGeneration, 1)
        await Promise.all([
          store.users.update('u-alice', { updatedAt: T0 + 3, bumpTokenGeneration: true }),
          store.users.update('u-alice', { updatedAt: T0 + 3, bumpTokenGeneration: true }),
        ])
        const user = await store.users.findById('u-alice')
        assert.equal(user?.tokenGeneration, 3)
        assert.equal(user?.passwordHash, 'scrypt$3')
      }))

    test('disabled is stored, read back by every lookup, changed only when patched, and travels', () =>
      withStore(async (store) => {
        await store.users.create(buildUser({ id: 'u-off', userName: 'off', disabled: true }))
        await store.users.create(buildUser())
        assert.equal((await store.users.findById('u-off'))?.disabled, true)
        assert.equal((await store.users.findByUserName('OFF'))?.disabled, true)
        assert.equal((await store.users.findById('u-alice'))?.disabled, false)
        await store.users.update('u-alice', { disabled: true, updatedAt: T0 + 1, bumpTokenGeneration: true })
        await store.users.update('u-off', { disabled: false, updatedAt: T0 + 1 })
        await store.users.update('u-alice', { displayName: 'Al', updatedAt: T0 + 2 })
        const alice = await store.users.findById('u-alice')
        assert.equal(alice?.disabled, true, 'a patch without disabled leaves it')
        assert.equal(alice?.tokenGeneration, 1)
        assert.equal((await store.users.findById('u-off'))?.disabled, false)
        assert.deepEqual(
          (await store.users.list()).map((u) => [u.id, u.disabled]),
          [
            ['u-alice', true],
            ['u-off', false],
          ],
        )
      }))

    test('remove deletes the user and their sessions only', () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await store.users.create(buildUser({ id: 'u-bob', userName: 'bob' }))
        await store.sessions.create(buildSession({ tokenHash: 'h1' }))
        await store.sessions.create(buildSession({ tokenHash: 'h2' }))
        await store.sessions.create(buildSession({ tokenHash: 'h3', userId: 'u-bob' }))
        assert.equal(await store.users.remove('u-alice'), true)
        assert.equal(await store.users.findById('u-alice'), undefined)
        assert.equal(await store.users.findByUserName('alice'), undefined)
        assert.equal(await store.sessions.find('h1'), undefined)
        assert.equal(await store.sessions.find('h2'), undefined)
        assert.equal((await store.sessions.find('h3'))?.userId, 'u-bob')
        assert.equal(await store.users.remove('u-alice'), false)
      }))

    test('a removed user name can be taken again', () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await store.users.remove('u-alice')
        await store.users.create(buildUser({ id: 'u-alice-2', userName: 'ALICE' }))
        assert.equal((await store.users.findByUserName('alice'))?.id, 'u-alice-2')
      }))

    test('removing a user keeps the files they own', () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        const file = await createFile(store)
        await store.users.remove('u-alice')
        assert.deepEqual(await store.files.findById(file.id), file)
      }))
  })

  describe(`${name}: sessions`, () => {
    test('create then find returns the session; unknown hashes find nothing', () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        const session = buildSession()
        await store.sessions.create(session)
        assert.deepEqual(await store.sessions.find(session.tokenHash), session)
        assert.equal(await store.sessions.find('b'.repeat(64)), undefined)
      }))

    test('revoke ends one session', () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await store.sessions.create(buildSession({ tokenHash: 'h1' }))
        await store.sessions.create(buildSession({ tokenHash: 'h2' }))
        await store.sessions.revoke('h1')
        assert.equal(await store.sessions.find('h1'), undefined)
        assert.notEqual(await store.sessions.find('h2'), undefined)
        await store.sessions.revoke('h1')
      }))

    test("revokeAllForUser can keep one session of the user (the caller's own)", () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await store.users.create(buildUser({ id: 'u-bob', userName: 'bob' }))
        await store.sessions.create(buildSession({ tokenHash: 'h1' }))
        await store.sessions.create(buildSession({ tokenHash: 'h2' }))
        await store.sessions.create(buildSession({ tokenHash: 'h3', userId: 'u-bob' }))
        await store.sessions.revokeAllForUser('u-alice', 'h2')
        assert.equal(await store.sessions.find('h1'), undefined)
        assert.notEqual(await store.sessions.find('h2'), undefined)
        assert.notEqual(await store.sessions.find('h3'), undefined)
      }))

    test("revokeAllForUser ends that user's sessions only", () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await store.users.create(buildUser({ id: 'u-bob', userName: 'bob' }))
        await store.sessions.create(buildSession({ tokenHash: 'h1' }))
        await store.sessions.create(buildSession({ tokenHash: 'h2' }))
        await store.sessions.create(buildSession({ tokenHash: 'h3', userId: 'u-bob' }))
        await store.sessions.revokeAllForUser('u-alice')
        assert.equal(await store.sessions.find('h1'), undefined)
        assert.equal(await store.sessions.find('h2'), undefined)
        assert.notEqual(await store.sessions.find('h3'), undefined)
      }))

    test('purgeExpired removes sessions with expiresAt <= now and counts them', () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await store.sessions.create(buildSession({ tokenHash: 'old', expiresAt: T0 - 1 }))
        await store.sessions.create(buildSession({ tokenHash: 'edge', expiresAt: T0 }))
        await store.sessions.create(buildSession({ tokenHash: 'live', expiresAt: T0 + 1 }))
        assert.equal(await store.sessions.purgeExpired(T0), 2)
        assert.equal(await store.sessions.find('old'), undefined)
        assert.equal(await store.sessions.find('edge'), undefined)
        assert.notEqual(await store.sessions.find('live'), undefined)
        assert.equal(await store.sessions.purgeExpired(T0), 0)
      }))
  })

  describe(`${name}: throttle`, () => {
    const state = (failures: number, at: number, blockedUntil = 0) => ({
      failures,
      windowStartedAt: T0,
      lastAttemptAt: at,
      blockedUntil,
    })
    const put = (next: ReturnType<typeof state> | undefined) => () => ({ next, result: undefined })

    test('update stores what the step returns, per key, and hands it the stored state', () =>
      withStore(async (store) => {
        assert.equal(await store.throttle.get('ip:1'), undefined)
        const seen = await store.throttle.update('ip:1', (current) => ({
          next: state(1, T0),
          result: current,
        }))
        assert.equal(seen, undefined)
        await store.throttle.update('ip:1', put(state(2, T0 + 5, T0 + 60_000)))
        assert.deepEqual(await store.throttle.get('ip:1'), state(2, T0 + 5, T0 + 60_000))
        assert.equal(await store.throttle.get('ip:2'), undefined)
        await store.throttle.update('ip:1', put(undefined))
        assert.equal(await store.throttle.get('ip:1'), undefined, 'undefined deletes the key')
      }))

    test('clear forgets the key only', () =>
      withStore(async (store) => {
        await store.throttle.update('ip:1', put(state(1, T0)))
        await store.throttle.update('ip:2', put(state(1, T0)))
        await store.throttle.clear('ip:1')
        assert.equal(await store.throttle.get('ip:1'), undefined)
        assert.deepEqual(await store.throttle.get('ip:2'), state(1, T0))
      }))

    test('finding 1: concurrent updates on one key never interleave (none is lost)', () =>
      withStore(async (store) => {
        const counts = await Promise.all(
          Array.from({ length: 50 }, () =>
            store.throttle.update('user:x', (current) => {
              const failures = (current?.failures ?? 0) + 1
              return { next: state(failures, T0), result: failures }
            }),
          ),
        )
        assert.deepEqual(
          [...counts].sort((a, b) => a - b),
          Array.from({ length: 50 }, (_, i) => i + 1),
        )
        assert.equal((await store.throttle.get('user:x'))?.failures, 50)
      }))

    test('finding 9: purgeStale deletes quiet, unlocked keys only', () =>
      withStore(async (store) => {
        const quietMs = 60_000
        await store.throttle.update('old', put(state(2, T0)))
        await store.throttle.update('old-locked', put(state(9, T0, T0 + 10 * quietMs)))
        await store.throttle.update('recent', put(state(1, T0 + quietMs)))
        assert.equal(await store.throttle.purgeStale(T0 + quietMs, quietMs), 1)
        assert.equal(await store.throttle.get('old'), undefined)
        assert.notEqual(await store.throttle.get('old-locked'), undefined)
        assert.notEqual(await store.throttle.get('recent'), undefined)
      }))
  })

  describe(`${name}: files`, () => {
    test('create then findById returns every field, with and without a lock', () =>
      withStore(async (store) => {
        const locked = buildFile({
          id: 'f-locked',
          title: 'Plan.xlsx',
          version: 3,
          size: 98_765,
          sha256: 'c'.repeat(64),
          blobKey: 'blobs/plan-3',
          createdAt: T0 - 50,
          createdBy: 'u-bob',
          updatedAt: T0 + 70,
          updatedBy: 'u-carol',
          lock: { lockId: '{"S":"abc","F":4}', expiresAt: T0 + 1_800_000 },
          keyVersion: 2,
          revision: 9,
        })
        const unlocked = buildFile({ id: 'f-free', title: 'Notes.txt', size: 0 })
        await store.files.create(locked, headVersion(locked))
        await store.files.create(unlocked, headVersion(unlocked))
        assert.deepEqual(await store.files.findById('f-locked'), locked)
        assert.deepEqual(await store.files.findById('f-free'), unlocked)
        assert.equal(await store.files.findById('f-none'), undefined)
      }))

    test('create stores the first version with its meta', () =>
      withStore(async (store) => {
        const file = buildFile()
        const first = headVersion(file, {
          source: 'upload',
          meta: { wopi: { isAutosave: true }, note: 'é', list: [1, 'two', null] },
        })
        await store.files.create(file, first)
        assert.deepEqual(await store.files.listVersions(file.id), [first])
        assert.deepEqual(await store.files.getVersion(file.id, 1), first)
      }))

    test('a title taken by the same owner in another case throws NAME_TAKEN and adds nothing', () =>
      withStore(async (store) => {
        await createFile(store, { id: 'f-1', title: 'Budget.xlsx' })
        await createFile(store, { id: 'f-2', title: 'Ärger.docx' })
        await assert.rejects(createFile(store, { id: 'f-3', title: 'budget.XLSX' }), isCode('NAME_TAKEN'))
        await assert.rejects(createFile(store, { id: 'f-4', title: 'äRGER.DOCX' }), isCode('NAME_TAKEN'))
        assert.equal(await store.files.findById('f-3'), undefined)
        assert.deepEqual(await store.files.listVersions('f-3'), [])
        assert.equal(await store.files.findById('f-4'), undefined)
      }))

    test('another owner may use the same title', () =>
      withStore(async (store) => {
        await createFile(store, { id: 'f-1', title: 'Budget.xlsx' })
        const bobs = await createFile(store, { id: 'f-2', ownerId: 'u-bob', title: 'Budget.xlsx' })
        assert.deepEqual(await store.files.findById('f-2'), bobs)
      }))

    test('a lock keeps its holder and the time it was taken; unlocking clears both', () =>
      withStore(async (store) => {
        const file = await createFile(store, { revision: 0 })
        const lock = { lockId: 'held', expiresAt: T0 + 1_800_000, holderId: 'u-bob', lockedAt: T0 + 7 }
        const locked = await store.files.update(file.id, 0, { lock })
        assert.deepEqual(locked?.lock, lock)
        assert.deepEqual((await store.files.findById(file.id))?.lock, lock)
        await store.files.update(file.id, 1, { lock: null })
        await store.files.update(file.id, 2, { lock: { lockId: 'old-style', expiresAt: T0 + 5 } })
        assert.deepEqual((await store.files.findById(file.id))?.lock, { lockId: 'old-style', expiresAt: T0 + 5 })
      }))

    test('titleExists ignores case and looks at one folder only', () =>
      withStore(async (store) => {
        await createFile(store, { title: 'Budget.xlsx' })
        assert.equal(await store.files.titleExists('d-u-alice', 'BUDGET.xlsx'), true)
        assert.equal(await store.files.titleExists('d-u-alice', 'Budget.xls'), false)
        assert.equal(await store.files.titleExists('d-u-bob', 'Budget.xlsx'), false)
      }))

    test('update with the current revision applies the patch and bumps the revision', () =>
      withStore(async (store) => {
        const file = await createFile(store, { revision: 4 })
        const lock = { lockId: 'lock-1', expiresAt: T0 + 1_800_000 }
        const locked = await store.files.update(file.id, 4, {
          lock,
          updatedAt: T0 + 1,
          updatedBy: 'u-bob',
        })
        const expected = { ...file, lock, updatedAt: T0 + 1, updatedBy: 'u-bob', revision: 5 }
        assert.deepEqual(locked, expected)
        assert.deepEqual(await store.files.findById(file.id), expected)

        const renamed = await store.files.update(file.id, 5, {
          title: 'Final.docx',
          lock: null,
          keyVersion: 7,
        })
        const expected2 = {
          ...expected,
          title: 'Final.docx',
          lock: null,
          keyVersion: 7,
          revision: 6,
        }
        assert.deepEqual(renamed, expected2)
        assert.deepEqual(await store.files.findById(file.id), expected2)
        assert.equal(await store.files.titleExists('d-u-alice', 'Report.docx'), false)
        assert.equal(await store.files.titleExists('d-u-alice', 'final.docx'), true)
      }))

    test('an empty patch still bumps the revision', () =>
      withStore(async (store) => {
        const file = await createFile(store)
        assert.deepEqual(await store.files.update(file.id, 1, {}), { ...file, revision: 2 })
      }))

    test('update with a stale revision returns undefined and changes nothing', () =>
      withStore(async (store) => {
        const file = await createFile(store, { revision: 4 })
        assert.equal(await store.files.update(file.id, 3, { title: 'Other.docx' }), undefined)
        assert.equal(await store.files.update(file.id, 5, { updatedAt: T0 + 9 }), undefined)
        assert.deepEqual(await store.files.findById(file.id), file)
        assert.equal(await store.files.update('f-none', 1, { updatedAt: T0 }), undefined)
      }))

    test('renaming onto a title the owner uses throws NAME_TAKEN and changes nothing', () =>
      withStore(async (store) => {
        await createFile(store, { id: 'f-1', title: 'A.docx' })
        const b = await createFile(store, { id: 'f-2', title: 'B.docx' })
        await assert.rejects(store.files.update('f-2', 1, { title: 'a.DOCX' }), isCode('NAME_TAKEN'))
        assert.deepEqual(await store.files.findById('f-2'), b)
        assert.equal((await store.files.update('f-2', 1, { title: 'C.docx' }))?.revision, 2)
      }))

    test('renaming onto a title another owner uses succeeds', () =>
      withStore(async (store) => {
        await createFile(store, { id: 'f-1', title: 'A.docx' })
        await createFile(store, { id: 'f-2', ownerId: 'u-bob', title: 'B.docx' })
        const renamed = await store.files.update('f-2', 1, { title: 'A.docx' })
        assert.equal(renamed?.title, 'A.docx')
      }))

    test('a file can be renamed to another case of its own title', () =>
      withStore(async (store) => {
        const file = await createFile(store, { title: 'report.docx' })
        const renamed = await store.files.update(file.id, 1, { title: 'Report.DOCX' })
        assert.equal(renamed?.title, 'Report.DOCX')
        assert.equal((await store.files.findById(file.id))?.title, 'Report.DOCX')
      }))

    // A lock-only change takes its own statement (and, on PostgreSQL, a batch of its own).
    const concurrentPatches: Array<[string, (i: number) => FilePatch]> = [
      ['updates', (i) => ({ updatedAt: T0 + i + 1, updatedBy: `u-${i}` })],
      ['lock changes', (i) => ({ lock: { lockId: `lock-${i}`, expiresAt: T0 + 60_000 + i } })],
    ]
    for (const [what, patchOf] of concurrentPatches) {
      test(`50 concurrent ${what} with the same revision: exactly one wins, and it is the one stored`, () =>
        withStore(async (store) => {
          const file = await createFile(store, { revision: 10 })
          const results = await Promise.all(
            Array.from({ length: 50 }, (_, i) => store.files.update(file.id, 10, patchOf(i))),
          )
          const winners = results.filter((r) => r !== undefined)
          assert.equal(winners.length, 1)
          assert.deepEqual(await store.files.findById(file.id), winners[0])
          assert.equal(winners[0]?.revision, 11)
        }))
    }

    test('concurrent lock changes of many files each land on their own file', () =>
      withStore(async (store) => {
        const files = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            createFile(store, { id: `many-${i}`, title: `f-${i}.docx`, blobKey: `blob-many-${i}` }),
          ),
        )
        // Every file is changed twice at its revision: one change of each pair wins.
        const results = await Promise.all(
          files.flatMap((file, i) => [
            store.files.update(file.id, file.revision, { lock: { lockId: `a-${i}`, expiresAt: T0 + 60_000 } }),
            store.files.update(file.id, file.revision, { lock: { lockId: `b-${i}`, expiresAt: T0 + 60_000 } }),
          ]),
        )
        for (const [i, file] of files.entries()) {
          const pair = [results[2 * i], results[2 * i + 1]]
          const won = pair.filter((r) => r !== undefined)
          assert.equal(won.length, 1, `file ${i}`)
          assert.equal(won[0]?.id, file.id)
          assert.ok([`a-${i}`, `b-${i}`].includes(won[0]?.lock?.lockId ?? ''))
          assert.deepEqual(await store.files.findById(file.id), won[0])
        }
      }))

    test('finding 4: blobKeysInUse names the keys some version uses, old and current, until the file goes', () =>
      withStore(async (store) => {
        const file = await createFile(store)
        const v2 = nextVersion(file)
        await store.files.commitVersion(file.id, 1, v2, { updatedAt: v2.createdAt })
        const asked = [file.blobKey, v2.blobKey, 'blob-nobody', file.blobKey]
        assert.deepEqual(await store.files.blobKeysInUse(asked), new Set([file.blobKey, v2.blobKey]))
        assert.deepEqual(await store.files.blobKeysInUse([]), new Set())
        const many = Array.from({ length: 1200 }, (_, i) => `k-${i}`).concat([v2.blobKey])
        assert.deepEqual(await store.files.blobKeysInUse(many), new Set([v2.blobKey]))
        await store.files.delete(file.id)
        assert.deepEqual(await store.files.blobKeysInUse(asked), new Set())
      }))

    test('commitVersion appends the version, moves the head and applies the patch', () =>
      withStore(async (store) => {
        const file = await createFile(store, {
          lock: { lockId: 'L', expiresAt: T0 + 100 },
          keyVersion: 1,
        })
        const v2 = nextVersion(file, { meta: { forcesavetype: 1 } })
        const committed = await store.files.commitVersion(file.id, 1, v2, {
          updatedAt: v2.createdAt,
          updatedBy: 'u-bob',
          keyVersion: 2,
        })
        const expected: FileRecord = {
          ...file,
          version: 2,
          size: v2.size,
          sha256: v2.sha256,
          blobKey: v2.blobKey,
          updatedAt: v2.createdAt,
          updatedBy: 'u-bob',
          keyVersion: 2,
          revision: 2,
        }
        assert.deepEqual(committed, expected)
        assert.deepEqual(await store.files.findById(file.id), expected)
        assert.deepEqual(await store.files.listVersions(file.id), [headVersion(file), v2])
        assert.deepEqual(await store.files.getVersion(file.id, 2), v2)
      }))

    test('countLocked counts files whose lock has not expired at the given time', () =>
      withStore(async (store) => {
        assert.equal(await store.files.countLocked(T0), 0)
        await createFile(store, { id: 'f-a', title: 'a.docx', lock: { lockId: 'A', expiresAt: T0 + 100 } })
        await createFile(store, { id: 'f-b', title: 'b.docx', lock: { lockId: 'B', expiresAt: T0 + 200 } })
        await createFile(store, { id: 'f-c', title: 'c.docx' })
        assert.equal(await store.files.countLocked(T0), 2)
        assert.equal(await store.files.countLocked(T0 + 100), 1, 'a lock expiring now no longer counts')
        assert.equal(await store.files.countLocked(T0 + 200), 0)
      }))

    test('commitVersion drops the versions named in drop in the same commit, and only those', () =>
      withStore(async (store) => {
        const file = await createFile(store)
        const v2 = nextVersion(file)
        await store.files.commitVersion(file.id, 1, v2, { updatedAt: v2.createdAt })
        const afterV2 = { ...file, version: 2, revision: 2, updatedAt: v2.createdAt }
        const v3 = nextVersion(afterV2)
        await store.files.commitVersion(file.id, 2, v3, { updatedAt: v3.createdAt })
        const v4 = nextVersion({ ...afterV2, version: 3, revision: 3, updatedAt: v3.createdAt })
        const committed = await store.files.commitVersion(file.id, 3, v4, { updatedAt: v4.createdAt }, [1, 3])
        assert.equal(committed?.version, 4)
        assert.equal(committed?.blobKey, v4.blobKey)
        assert.deepEqual(await store.files.listVersions(file.id), [v2, v4])
        assert.equal(await store.files.getVersion(file.id, 3), undefined)
        const inUse = await store.files.blobKeysInUse([file.blobKey, v2.blobKey, v3.blobKey, v4.blobKey])
        assert.deepEqual([...inUse].sort(), [v2.blobKey, v4.blobKey].sort())
      }))

    test('commitVersion with a stale revision drops nothing; dropping the new version throws', () =>
      withStore(async (store) => {
        const file = await createFile(store)
        const v2 = nextVersion(file)
        assert.equal(await store.files.commitVersion(file.id, 7, v2, { updatedAt: T0 + 5 }, [1]), undefined)
        assert.deepEqual(await store.files.listVersions(file.id), [headVersion(file)])
        await assert.rejects(
          store.files.commitVersion(file.id, 1, v2, { updatedAt: T0 + 5 }, [2]),
          /cannot be committed and dropped at once/,
        )
        assert.deepEqual(await store.files.listVersions(file.id), [headVersion(file)])
        assert.equal((await store.files.findById(file.id))?.revision, 1)
      }))

    test('commitVersion with a stale revision adds no version and changes nothing', () =>
      withStore(async (store) => {
        const file = await createFile(store, { revision: 3 })
        const v2 = nextVersion(file)
        assert.equal(await store.files.commitVersion(file.id, 2, v2, { updatedAt: T0 + 5 }), undefined)
        assert.deepEqual(await store.files.findById(file.id), file)
        assert.deepEqual(await store.files.listVersions(file.id), [headVersion(file)])
        assert.equal(await store.files.getVersion(file.id, 2), undefined)
        assert.equal(await store.files.commitVersion('f-none', 1, { ...v2, fileId: 'f-none' }, {}), undefined)
      }))

    test('commitVersion whose patch clashes on title throws NAME_TAKEN and adds no version', () =>
      withStore(async (store) => {
        await createFile(store, { id: 'f-1', title: 'Taken.docx' })
        const file = await createFile(store, { id: 'f-2', title: 'Mine.docx' })
        await assert.rejects(
          store.files.commitVersion(file.id, 1, nextVersion(file), { title: 'TAKEN.docx' }),
          isCode('NAME_TAKEN'),
        )
        assert.deepEqual(await store.files.findById(file.id), file)
        assert.deepEqual(await store.files.listVersions(file.id), [headVersion(file)])
      }))

    test('concurrent commitVersion calls with the same revision: exactly one wins', () =>
      withStore(async (store) => {
        const file = await createFile(store)
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            store.files.commitVersion(file.id, 1, nextVersion(file, { blobKey: `blob-${i}` }), { updatedAt: T0 + i }),
          ),
        )
        const winners = results.filter((r) => r !== undefined)
        assert.equal(winners.length, 1)
        const versions = await store.files.listVersions(file.id)
        assert.equal(versions.length, 2)
        assert.equal(versions[1]?.blobKey, winners[0]?.blobKey)
      }))

    test('listVersions is ordered by version and getVersion finds one', () =>
      withStore(async (store) => {
        let file = await createFile(store)
        const written = [headVersion(file)]
        for (const source of ['upload', 'force-save', 'restore'] as const) {
          const version = nextVersion(file, { source })
          const next = await store.files.commitVersion(file.id, file.revision, version, {})
          assert.ok(next)
          file = next
          written.push(version)
        }
        assert.deepEqual(await store.files.listVersions(file.id), written)
        assert.deepEqual(await store.files.getVersion(file.id, 3), written[2])
        assert.equal(await store.files.getVersion(file.id, 5), undefined)
        assert.equal(await store.files.getVersion('f-none', 1), undefined)
        assert.deepEqual(await store.files.listVersions('f-none'), [])
      }))

    test('delete returns the blob keys of every version and removes them', () =>
      withStore(async (store) => {
        let file = await createFile(store)
        for (let i = 0; i < 2; i += 1) {
          const version = nextVersion(file)
          const next = await store.files.commitVersion(file.id, file.revision, version, {})
          assert.ok(next)
          file = next
        }
        const other = await createFile(store, { id: 'f-2', title: 'Other.docx', blobKey: 'b-o' })
        const deletion = await store.files.delete(file.id)
        const keys = deletion.outcome === 'deleted' ? deletion.blobKeys : undefined
        assert.deepEqual([...(keys ?? [])].sort(), ['blob-f-1-v1', 'blob-f-1-v2', 'blob-f-1-v3'])
        assert.equal(await store.files.findById(file.id), undefined)
        assert.deepEqual(await store.files.listVersions(file.id), [])
        assert.equal(await store.files.getVersion(file.id, 1), undefined)
        assert.deepEqual(await store.files.delete(file.id), { outcome: 'not-found' })
        assert.deepEqual(await store.files.findById('f-2'), other)
        assert.equal(await store.files.titleExists('d-u-alice', 'Report.docx'), false)
      }))

    test('delete with the current revision removes the file and reports its blob keys', () =>
      withStore(async (store) => {
        const file = await createFile(store, { revision: 7 })
        assert.deepEqual(await store.files.delete(file.id, 7), {
          outcome: 'deleted',
          blobKeys: ['blob-f-1-v1'],
        })
        assert.equal(await store.files.findById(file.id), undefined)
        assert.deepEqual(await store.files.listVersions(file.id), [])
        assert.equal(await store.files.titleExists('d-u-alice', file.title), false)
      }))

    test('delete with a stale revision reports revision-moved and changes nothing', () =>
      withStore(async (store) => {
        const file = await createFile(store, { revision: 4 })
        assert.deepEqual(await store.files.delete(file.id, 3), { outcome: 'revision-moved' })
        assert.deepEqual(await store.files.delete(file.id, 5), { outcome: 'revision-moved' })
        assert.deepEqual(await store.files.findById(file.id), file)
        assert.deepEqual(await store.files.listVersions(file.id), [headVersion(file)])
        assert.deepEqual(await store.files.delete('f-none', 1), { outcome: 'not-found' })
      }))

    test('a conditional delete racing a lock on the same revision: exactly one wins', () =>
      withStore(async (store) => {
        for (let round = 0; round < 20; round += 1) {
          const file = await createFile(store, { id: `f-race-${round}`, title: `R${round}.docx` })
          const lock = { lockId: 'L', expiresAt: T0 + 1_800_000 }
          let deletion: FileDeletion | undefined
          let locked: FileRecord | undefined
          const deleting = async () => {
            deletion = await store.files.delete(file.id, file.revision)
          }
          const locking = async () => {
            locked = await store.files.update(file.id, file.revision, { lock })
          }
          // Both orders of issue, so a delete that ignores the revision cannot slip through.
          await Promise.all(round % 2 === 0 ? [deleting(), locking()] : [locking(), deleting()])
          const deleted = deletion?.outcome === 'deleted'
          assert.notEqual(deleted, locked !== undefined, `round ${round}: one winner`)
          const stored = await store.files.findById(file.id)
          if (deleted) {
            assert.equal(stored, undefined)
          } else {
            assert.deepEqual(deletion, { outcome: 'revision-moved' })
            assert.deepEqual(stored?.lock, lock)
          }
        }
      }))

    test('findByTitle ignores case in any script and looks at one folder only', () =>
      withStore(async (store) => {
        const budget = await createFile(store, { id: 'f-1', title: 'Budget.xlsx' })
        const umlaut = await createFile(store, { id: 'f-2', title: 'Übersicht.docx' })
        await createFile(store, { id: 'f-3', ownerId: 'u-bob', title: 'Notes.txt' })
        assert.deepEqual(await store.files.findByTitle('d-u-alice', 'BUDGET.xlsx'), budget)
        assert.deepEqual(await store.files.findByTitle('d-u-alice', 'übersicht.DOCX'), umlaut)
        assert.equal(await store.files.findByTitle('d-u-alice', 'Budget.xls'), undefined)
        assert.equal(await store.files.findByTitle('d-u-alice', 'Budget'), undefined)
        assert.equal(await store.files.findByTitle('d-u-alice', 'Notes.txt'), undefined)
        assert.equal(await store.files.findByTitle('d-u-bob', 'Budget.xlsx'), undefined)
      }))

    test('findByTitle follows renames and deletes', () =>
      withStore(async (store) => {
        const file = await createFile(store, { title: 'Draft.docx' })
        const renamed = await store.files.update(file.id, file.revision, { title: 'Final.docx' })
        assert.equal(await store.files.findByTitle('d-u-alice', 'Draft.docx'), undefined)
        assert.deepEqual(await store.files.findByTitle('d-u-alice', 'final.docx'), renamed)
        await store.files.delete(file.id)
        assert.equal(await store.files.findByTitle('d-u-alice', 'Final.docx'), undefined)
      }))
  })

  describe(`${name}: file listing`, () => {
    // Ties on size, created and updated, with ids that sort against insertion order.
    const listed = (id: string, title: string, size: number, created: number, updated: number) =>
      buildFile({ id, title, size, createdAt: T0 + created, updatedAt: T0 + updated })
    const fixtures: FileRecord[] = [
      listed('f-e', 'delta.pptx', 300, 1, 9),
      listed('f-c', 'Alpha.docx', 100, 2, 5),
      listed('f-a', 'charlie.txt', 100, 2, 5),
      listed('f-d', 'Echo.xlsx', 50, 3, 1),
      listed('f-b', 'bravo.docx', 300, 2, 7),
      listed('f-f', 'Foxtrot.md', 0, 0, 9),
    ]
    // Type and author have their own fixtures below.
    const sortValue: Record<'title' | 'created' | 'updated' | 'size', (f: FileRecord) => string | number> = {
      title: (f) => f.title.toLowerCase(),
      created: (f) => f.createdAt,
      updated: (f) => f.updatedAt,
      size: (f) => f.size,
    }

    function expectedOrder(sortBy: keyof typeof sortValue, descending: boolean): string[] {
      const sign = descending ? -1 : 1
      const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0)
      return [...fixtures]
        .sort((a, b) => sign * (compare(sortValue[sortBy](a), sortValue[sortBy](b)) || compare(a.id, b.id)))
        .map((f) => f.id)
    }

    async function seed(store: MetadataStore): Promise<void> {
      for (const file of fixtures) await store.files.create(file, headVersion(file))
      const others = buildFile({ id: 'f-z', ownerId: 'u-bob', title: 'Alpha.docx' })
      await store.files.create(others, headVersion(others))
    }

    test("lists the folder's files only, with total and full records", () =>
      withStore(async (store) => {
        await seed(store)
        const page = await store.files.list({
          folderId: 'd-u-alice',
          offset: 0,
          limit: 100,
          sortBy: 'title',
          descending: false,
        })
        assert.equal(page.total, fixtures.length)
        const byId = new Map(fixtures.map((f) => [f.id, f]))
        assert.deepEqual(
          page.items,
          page.items.map((f) => byId.get(f.id)),
        )
        assert.deepEqual(
          await store.files.list({
            folderId: 'd-none',
            offset: 0,
            limit: 10,
            sortBy: 'size',
            descending: true,
          }),
          { total: 0, items: [] },
        )
      }))

    for (const sortBy of ['title', 'created', 'updated', 'size'] as const) {
      for (const descending of [false, true]) {
        const label = `${sortBy} ${descending ? 'descending' : 'ascending'}`
        test(`sorts by ${label}, ties broken by id, and pages without gaps or repeats`, () =>
          withStore(async (store) => {
            await seed(store)
            const whole = await store.files.list({
              folderId: 'd-u-alice',
              offset: 0,
              limit: 100,
              sortBy,
              descending,
            })
            assert.deepEqual(
              whole.items.map((f) => f.id),
              expectedOrder(sortBy, descending),
            )
            const paged: string[] = []
            for (let offset = 0; offset < fixtures.length + 2; offset += 4) {
              const page = await store.files.list({
                folderId: 'd-u-alice',
                offset,
                limit: 4,
                sortBy,
                descending,
              })
              assert.equal(page.total, fixtures.length)
              assert.ok(page.items.length <= 4)
              paged.push(...page.items.map((f) => f.id))
            }
            assert.deepEqual(paged, expectedOrder(sortBy, descending))
          }))
      }
    }

    test('offset past the end returns no items but the total', () =>
      withStore(async (store) => {
        await seed(store)
        const page = await store.files.list({
          folderId: 'd-u-alice',
          offset: 50,
          limit: 10,
          sortBy: 'updated',
          descending: true,
        })
        assert.deepEqual(page, { total: fixtures.length, items: [] })
      }))

    test('titleContains ignores case, in any script', () =>
      withStore(async (store) => {
        for (const [id, title] of [
          ['f-1', 'Report 2024.docx'],
          ['f-2', 'q1 REPORT.xlsx'],
          ['f-3', 'Notes.txt'],
          ['f-4', 'ÜBERSICHT.pdf'],
        ] as const) {
          await createFile(store, { id, title })
        }
        await createFile(store, { id: 'f-9', ownerId: 'u-bob', title: 'report.docx' })
        const found = await store.files.list({
          folderId: 'd-u-alice',
          offset: 0,
          limit: 10,
          sortBy: 'title',
          descending: false,
          titleContains: 'rEpOrT',
        })
        assert.equal(found.total, 2)
        assert.deepEqual(
          found.items.map((f) => f.id),
          ['f-2', 'f-1'],
        )
        const umlaut = await store.files.list({
          folderId: 'd-u-alice',
          offset: 0,
          limit: 10,
          sortBy: 'title',
          descending: false,
          titleContains: 'übersicht',
        })
        assert.deepEqual(
          umlaut.items.map((f) => f.id),
          ['f-4'],
        )
      }))

    test('titleContains treats % and _ as plain characters', () =>
      withStore(async (store) => {
        const titles = [
          ['f-1', 'Growth 100%.xlsx'],
          ['f-2', 'Growth 1000.xlsx'],
          ['f-3', 'draft_v2.docx'],
          ['f-4', 'draftXv2.docx'],
          ['f-5', 'back\\slash.txt'],
        ] as const
        for (const [id, title] of titles) {
          await createFile(store, { id, title })
        }
        async function search(titleContains: string): Promise<string[]> {
          const page = await store.files.list({
            folderId: 'd-u-alice',
            offset: 0,
            limit: 10,
            sortBy: 'title',
            descending: false,
            titleContains,
          })
          assert.equal(page.total, page.items.length)
          // Sorted here: collations disagree on where punctuation goes.
          return page.items.map((f) => f.id).sort()
        }
        assert.deepEqual(await search('%'), ['f-1'])
        assert.deepEqual(await search('100%'), ['f-1'])
        assert.deepEqual(await search('_'), ['f-3'])
        assert.deepEqual(await search('t_v'), ['f-3'])
        assert.deepEqual(await search('\\'), ['f-5'])
        assert.deepEqual(await search('growth'), ['f-1', 'f-2'])
      }))

    test('titleContains combines with paging and total', () =>
      withStore(async (store) => {
        for (let i = 0; i < 5; i += 1) {
          await createFile(store, { id: `f-r${i}`, title: `report-${i}.docx` })
        }
        await createFile(store, { id: 'f-x', title: 'other.docx' })
        const page = await store.files.list({
          folderId: 'd-u-alice',
          offset: 2,
          limit: 2,
          sortBy: 'title',
          descending: true,
          titleContains: 'REPORT',
        })
        assert.equal(page.total, 5)
        assert.deepEqual(
          page.items.map((f) => f.id),
          ['f-r2', 'f-r1'],
        )
      }))
  })

  describe(`${name}: listing by type and by author`, () => {
    // Creators with names that sort against their ids; u-gone has no user any more. Names
    // compare by bytes on both stores, so 'alice' comes after every capital.
    const people: Array<[string, string]> = [
      ['u-a', 'Carol Ann'],
      ['u-b', 'alice Liddell'],
      ['u-c', 'Bob Stone'],
    ]
    const made = (id: string, title: string, createdBy: string) => buildFile({ id, title, createdBy })
    const fixtures: FileRecord[] = [
      made('f-1', 'notes', 'u-a'),
      made('f-2', 'Zeta.DOCX', 'u-b'),
      made('f-3', 'alpha.docx', 'u-c'),
      made('f-4', 'b.tar.gz', 'u-gone'),
      made('f-5', 'Memo.md', 'u-c'),
      made('f-6', 'trailing.', 'u-b'),
      made('f-7', 'Émile.pdf', 'u-a'),
    ]
    // No extension first (also a title ending in a dot), then by extension, then title;
    // 'é' sorts after every ASCII letter, as bytes do.
    const byType = ['notes', 'trailing.', 'alpha.docx', 'Zeta.DOCX', 'b.tar.gz', 'Memo.md', 'Émile.pdf']
    // A removed creator counts as '', then Bob, Carol, alice; ties by title.
    const byAuthor = ['b.tar.gz', 'alpha.docx', 'Memo.md', 'notes', 'Émile.pdf', 'trailing.', 'Zeta.DOCX']

    async function seed(store: MetadataStore): Promise<void> {
      for (const [id, displayName] of people) {
        await store.users.create(buildUser({ id, userName: id, displayName }))
      }
      for (const file of fixtures) await store.files.create(file, headVersion(file))
    }

    async function titles(
      store: MetadataStore,
      sortBy: FileSortField,
      descending: boolean,
      limit = 100,
    ): Promise<string[]> {
      const seen: string[] = []
      for (let offset = 0; offset < fixtures.length; offset += limit) {
        const page = await store.files.list({ folderId: 'd-u-alice', offset, limit, sortBy, descending })
        assert.equal(page.total, fixtures.length)
        seen.push(...page.items.map((f) => f.title))
      }
      return seen
    }

    for (const [sortBy, expected] of [
      ['type', byType],
      ['author', byAuthor],
    ] as const) {
      test(`sorts files by ${sortBy} then title, both directions, pages without gaps or repeats`, () =>
        withStore(async (store) => {
          await seed(store)
          assert.deepEqual(await titles(store, sortBy, false), expected)
          assert.deepEqual(await titles(store, sortBy, true), [...expected].reverse())
          assert.deepEqual(await titles(store, sortBy, false, 3), expected)
          assert.deepEqual(await titles(store, sortBy, true, 3), [...expected].reverse())
        }))
    }

    test('a rename moves the file to its new type; a new display name moves it by author', () =>
      withStore(async (store) => {
        await seed(store)
        const notes = await store.files.findById('f-1')
        assert.ok(notes)
        assert.ok(await store.files.update('f-1', notes.revision, { title: 'notes.zip' }))
        assert.deepEqual(await titles(store, 'type', false), [
          'trailing.',
          'alpha.docx',
          'Zeta.DOCX',
          'b.tar.gz',
          'Memo.md',
          'Émile.pdf',
          'notes.zip',
        ])
        assert.ok(await store.users.update('u-c', { displayName: 'Zoe Stone', updatedAt: T0 + 1 }))
        assert.deepEqual(await titles(store, 'author', false), [
          'b.tar.gz',
          'notes.zip',
          'Émile.pdf',
          'alpha.docx',
          'Memo.md',
          'trailing.',
          'Zeta.DOCX',
        ])
      }))

    test("folders sort by their creator's name for author and by title for type", () =>
      withStore(async (store) => {
        for (const [id, displayName] of people) {
          await store.users.create(buildUser({ id, userName: id, displayName }))
        }
        const my = await store.folders.ensureRoot({
          id: 'r-my',
          ownerId: 'u-alice',
          parentId: null,
          title: 'my',
          rootType: 'my',
          createdAt: T0,
          createdBy: 'u-alice',
          updatedAt: T0,
          updatedBy: 'u-alice',
          revision: 1,
          trashedAt: null,
          originFolderId: null,
        })
        const add = (id: string, title: string, createdBy: string) =>
          store.folders.create({
            ...my,
            id,
            parentId: my.id,
            title,
            rootType: null,
            createdBy,
          })
        await add('d-1', 'beta.docx', 'u-a')
        await add('d-2', 'Alpha', 'u-c')
        await add('d-3', 'gamma', 'u-b')
        await add('d-4', 'delta', 'u-c')
        const list = async (sortBy: FileSortField, descending: boolean) =>
          (await store.folders.list({ parentId: my.id, offset: 0, limit: 10, sortBy, descending })).items.map(
            (f) => f.title,
          )
        assert.deepEqual(await list('type', false), ['Alpha', 'beta.docx', 'delta', 'gamma'])
        assert.deepEqual(await list('type', true), ['gamma', 'delta', 'beta.docx', 'Alpha'])
        assert.deepEqual(await list('author', false), ['Alpha', 'delta', 'beta.docx', 'gamma'])
        assert.deepEqual(await list('author', true), ['gamma', 'beta.docx', 'delta', 'Alpha'])
      }))
  })

  describe(`${name}: folders`, () => {
    function root(ownerId: string, rootType: 'my' | 'trash', id = `r-${ownerId}-${rootType}`): FolderRecord {
      return {
        id,
        ownerId,
        parentId: null,
        title: rootType,
        rootType,
        createdAt: T0,
        createdBy: ownerId,
        updatedAt: T0,
        updatedBy: ownerId,
        revision: 1,
        trashedAt: null,
        originFolderId: null,
      }
    }
    function folder(id: string, parentId: string, title: string, overrides: Partial<FolderRecord> = {}): FolderRecord {
      return { ...root('u-alice', 'my', id), parentId, title, rootType: null, ...overrides }
    }

    test('ensureRoot stores one root per owner and section, also under concurrent calls', () =>
      withStore(async (store) => {
        const results = await Promise.all(
          ['a', 'b', 'c', 'd'].map((n) => store.folders.ensureRoot(root('u-alice', 'my', `r-${n}`))),
        )
        assert.equal(new Set(results.map((r) => r.id)).size, 1)
        assert.deepEqual(await store.folders.findRoot('u-alice', 'my'), results[0])
        const trash = await store.folders.ensureRoot(root('u-alice', 'trash'))
        assert.notEqual(trash.id, results[0]?.id)
        assert.equal(await store.folders.findRoot('u-bob', 'my'), undefined)
      }))

    test('findWithAccess: the file, the user and the section of its folder in one read', () =>
      withStore(async (store) => {
        const bob = buildUser({ id: 'u-bob', userName: 'bob' })
        await store.users.create(buildUser({ isAdmin: true, wopiUserInfo: 'info' }))
        await store.users.create(bob)
        await store.users.update('u-alice', { updatedAt: T0 + 1, bumpTokenGeneration: true })
        const alice = buildUser({ isAdmin: true, wopiUserInfo: 'info', tokenGeneration: 1, updatedAt: T0 + 1 })
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        await store.folders.create(folder('d-a', my.id, 'A'))
        await store.folders.create(folder('d-b', 'd-a', 'B'))
        const lock = { lockId: 'L', expiresAt: T0 + 1000, holderId: 'u-bob', lockedAt: T0 }
        const created = await createFile(store, { folderId: 'd-b' })
        const file = await store.files.update('f-1', created.revision, { lock })
        assert.deepEqual(file, { ...created, lock, revision: created.revision + 1 })
        assert.deepEqual(await store.files.findWithAccess('f-1', 'u-alice'), {
          file,
          user: alice,
          rootType: 'my',
          shareAccess: undefined,
        })
        assert.deepEqual(await store.files.findWithAccess('f-1', 'u-bob'), {
          file,
          user: bob,
          rootType: 'my',
          shareAccess: undefined,
        })
        // A removed user (or a link guest's id) reads as no user; the file is still there.
        assert.deepEqual(await store.files.findWithAccess('f-1', 'u-nobody'), {
          file,
          user: undefined,
          rootType: 'my',
          shareAccess: undefined,
        })
        assert.equal(await store.files.findWithAccess('f-missing', 'u-alice'), undefined)
        const trash = await store.folders.ensureRoot(root('u-alice', 'trash'))
        await store.folders.update('d-a', 1, { parentId: trash.id })
        assert.equal((await store.files.findWithAccess('f-1', 'u-alice'))?.rootType, 'trash')
        await createFile(store, { id: 'f-lost', title: 'lost.docx', folderId: 'd-missing' })
        assert.equal((await store.files.findWithAccess('f-lost', 'u-alice'))?.rootType, undefined)
      }))

    test("findWithAccess never answers from before a commit, its own store's or another instance's", () =>
      withTwoStores(async (store, other) => {
        await store.users.create(buildUser())
        await store.users.create(buildUser({ id: 'u-bob', userName: 'bob' }))
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        await store.folders.create(folder('d-a', my.id, 'A'))
        const created = await createFile(store, { folderId: 'd-a' })
        // Each check reads twice first, so a remembered answer (if the driver keeps one) is
        // what the change must displace.
        const readTwice = async (userId: string) => {
          await store.files.findWithAccess('f-1', userId)
          return store.files.findWithAccess('f-1', userId)
        }
        const lock = { lockId: 'L', expiresAt: T0 + 1000, holderId: 'u-bob', lockedAt: T0 }
        assert.equal((await readTwice('u-alice'))?.file.lock, null)
        const locked = await other.files.update('f-1', created.revision, { lock })
        assert.deepEqual((await readTwice('u-alice'))?.file, locked, "another instance's lock is seen")
        const unlocked = await store.files.update('f-1', created.revision + 1, { lock: null })
        assert.deepEqual((await readTwice('u-alice'))?.file, unlocked, 'its own unlock is seen')

        const share = {
          itemKind: 'folder' as const,
          itemId: 'd-a',
          userId: 'u-bob',
          grantedBy: 'u-alice',
          grantedAt: T0,
        }
        assert.equal((await readTwice('u-bob'))?.shareAccess, undefined)
        await other.shares.put({ ...share, access: 2 })
        assert.equal((await readTwice('u-bob'))?.shareAccess, 2, "another instance's share is seen")
        await store.shares.put({ ...share, access: 6 })
        assert.equal((await readTwice('u-bob'))?.shareAccess, 6, 'its own change of the share is seen')
        await other.shares.remove('folder', 'd-a', 'u-bob')
        assert.equal((await readTwice('u-bob'))?.shareAccess, undefined, "another instance's removal is seen")

        // A lock cycle of its own interleaved with share changes of its own and another's.
        let current = unlocked ?? created
        const relock = async (lockId: string) => {
          const next = await store.files.update('f-1', current.revision, { lock: { ...lock, lockId } })
          assert.ok(next)
          current = next
        }
        for (const [n, change] of [
          async () => store.shares.put({ ...share, access: 1 }),
          async () => other.shares.put({ ...share, access: 5 }),
          async () => store.shares.remove('folder', 'd-a', 'u-bob'),
        ].entries()) {
          await relock(`L-${n}`)
          assert.deepEqual((await readTwice('u-bob'))?.file, current)
          await change()
          await relock(`M-${n}`)
          const read = await readTwice('u-bob')
          assert.deepEqual(read?.file, current, 'the lock written after the share change is seen')
          assert.equal(read?.shareAccess, [1, 5, undefined][n], 'the share changed before the lock is seen')
        }

        await other.users.update('u-bob', { updatedAt: T0 + 1, bumpTokenGeneration: true })
        assert.equal((await readTwice('u-bob'))?.user?.tokenGeneration, 1, "another instance's token bump is seen")
        const trash = await other.folders.ensureRoot(root('u-alice', 'trash'))
        await other.folders.update('d-a', 1, { parentId: trash.id })
        assert.equal((await readTwice('u-alice'))?.rootType, 'trash', "another instance's move to the trash is seen")
        assert.deepEqual(await other.files.delete('f-1'), { outcome: 'deleted', blobKeys: [created.blobKey] })
        assert.equal(await readTwice('u-alice'), undefined, "another instance's delete is seen")
      }))

    test('a lock change of a file just read answers the row as stored, even when another instance moved it first', () =>
      withTwoStores(async (store, other) => {
        await store.users.create(buildUser())
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        const created = await createFile(store, { folderId: my.id })
        const readTwice = async () => {
          await store.files.findWithAccess('f-1', 'u-alice')
          return (await store.files.findWithAccess('f-1', 'u-alice'))?.file
        }
        const lock = (lockId: string) => ({ lockId, expiresAt: T0 + 1000, holderId: 'u-alice', lockedAt: T0 })
        // Lock, refresh and unlock of the row read last, each compared with another
        // instance's read of the stored row.
        let current = (await readTwice()) ?? created
        for (const change of [lock('L'), { ...lock('L'), expiresAt: T0 + 2000 }, null]) {
          const next = await store.files.update('f-1', current.revision, { lock: change })
          assert.deepEqual(next, await other.files.findById('f-1'))
          assert.deepEqual(await readTwice(), next)
          current = next ?? current
        }
        // Another instance renames the file after this one read it: a lock change at the old
        // revision is refused, one at the new revision carries the new title.
        await readTwice()
        const renamed = await other.files.update('f-1', current.revision, { title: 'renamed.docx' })
        assert.ok(renamed)
        assert.equal(await store.files.update('f-1', current.revision, { lock: lock('M') }), undefined)
        const locked = await store.files.update('f-1', renamed.revision, { lock: lock('M') })
        assert.equal(locked?.title, 'renamed.docx')
        assert.deepEqual(locked, await other.files.findById('f-1'))
        assert.deepEqual(await readTwice(), locked)
      }))

    test("findWithAccess: a non-owner's most specific share, the file's own entry then the nearest folder", () =>
      withStore(async (store) => {
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        await store.folders.create(folder('d-a', my.id, 'A'))
        await store.folders.create(folder('d-b', 'd-a', 'B'))
        await createFile(store, { folderId: 'd-b' })
        await createFile(store, { id: 'f-2', title: 'two.docx', folderId: 'd-a' })
        const share = (itemKind: 'file' | 'folder', itemId: string, userId: string, access: number) =>
          store.shares.put({ itemKind, itemId, userId, access, grantedBy: 'u-alice', grantedAt: T0 })
        const accessOf = async (fileId: string, userId: string) =>
          (await store.files.findWithAccess(fileId, userId))?.shareAccess
        assert.equal(await accessOf('f-1', 'u-bob'), undefined)
        await share('folder', my.id, 'u-bob', 2)
        assert.equal(await accessOf('f-1', 'u-bob'), 2)
        await share('folder', 'd-a', 'u-bob', 6)
        assert.equal(await accessOf('f-1', 'u-bob'), 6)
        await share('folder', 'd-b', 'u-bob', 1)
        assert.equal(await accessOf('f-1', 'u-bob'), 1)
        assert.equal(await accessOf('f-2', 'u-bob'), 6, 'a folder below the file does not reach it')
        await share('file', 'f-1', 'u-bob', 5)
        assert.equal(await accessOf('f-1', 'u-bob'), 5)
        assert.equal(await accessOf('f-1', 'u-carol'), undefined, 'entries are per user')
        await share('file', 'f-2', 'u-carol', 7)
        assert.equal(await accessOf('f-1', 'u-carol'), undefined, 'entries are per item')
        assert.equal(await accessOf('f-2', 'u-carol'), 7)
        // The owner's access needs no share: none is looked up for them.
        await share('file', 'f-1', 'u-alice', 2)
        assert.equal(await accessOf('f-1', 'u-alice'), undefined)
      }))

    test('sharedOnly lists the items shared with someone or by a working link, with their total, page by page', () =>
      withStore(async (store) => {
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        for (const id of ['d-1', 'd-2', 'd-3']) await store.folders.create(folder(id, my.id, `Folder ${id}`))
        for (let i = 0; i < 6; i += 1) {
          await createFile(store, { id: `f-${i}`, title: `file-${i}.docx`, folderId: my.id })
        }
        const share = (itemKind: 'file' | 'folder', itemId: string) =>
          store.shares.put({ itemKind, itemId, userId: 'u-bob', access: 2, grantedBy: 'u-alice', grantedAt: T0 })
        await share('folder', 'd-2')
        await share('file', 'f-1')
        await share('file', 'f-4')
        const link = { keyHash: 'c'.repeat(64), access: 2, createdAt: T0, revokedAt: null }
        await store.shareLinks.put({ fileId: 'f-3', ...link })
        await store.shareLinks.put({ fileId: 'f-5', ...link })
        assert.equal(await store.shareLinks.revoke('f-5', T0 + 1), true, 'a revoked link shares nothing')
        const files = (offset: number, limit: number, titleContains?: string) =>
          store.files.list({
            folderId: my.id,
            offset,
            limit,
            sortBy: 'title',
            descending: false,
            sharedOnly: true,
            ...(titleContains === undefined ? {} : { titleContains }),
          })
        const first = await files(0, 2)
        assert.equal(first.total, 3)
        assert.deepEqual(
          first.items.map((f) => f.id),
          ['f-1', 'f-3'],
        )
        assert.deepEqual(
          (await files(2, 2)).items.map((f) => f.id),
          ['f-4'],
        )
        assert.deepEqual(await files(0, 10, 'file-4'), { total: 1, items: [await store.files.findById('f-4')] })
        const folders = await store.folders.list({
          parentId: my.id,
          offset: 0,
          limit: 10,
          sortBy: 'title',
          descending: false,
          sharedOnly: true,
        })
        assert.equal(folders.total, 1)
        assert.deepEqual(
          folders.items.map((f) => f.id),
          ['d-2'],
        )
        const all = await store.files.list({
          folderId: my.id,
          offset: 0,
          limit: 10,
          sortBy: 'title',
          descending: false,
        })
        assert.equal(all.total, 6, 'without the flag every file is listed')
      }))

    test('many concurrent findWithAccess calls of different files and users each get their own answer', () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await store.users.create(buildUser({ id: 'u-bob', userName: 'bob' }))
        await store.users.create(buildUser({ id: 'u-carol', userName: 'carol' }))
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        const trash = await store.folders.ensureRoot(root('u-alice', 'trash'))
        await store.folders.create(folder('d-shared', my.id, 'Shared'))
        await store.folders.create(folder('d-deep', 'd-shared', 'Deep'))
        await store.shares.put({
          itemKind: 'folder',
          itemId: 'd-shared',
          userId: 'u-bob',
          access: 6,
          grantedBy: 'u-alice',
          grantedAt: T0,
        })
        await store.shares.put({
          itemKind: 'file',
          itemId: 'f-own',
          userId: 'u-carol',
          access: 2,
          grantedBy: 'u-alice',
          grantedAt: T0,
        })
        const files = [
          await createFile(store, { id: 'f-own', title: 'own.docx', folderId: my.id }),
          await createFile(store, { id: 'f-deep', title: 'deep.docx', folderId: 'd-deep' }),
          await createFile(store, { id: 'f-trash', title: 'gone.docx', folderId: trash.id }),
        ]
        const byId = new Map(files.map((file) => [file.id, file]))
        const users = new Map([
          ['u-alice', await store.users.findById('u-alice')],
          ['u-bob', await store.users.findById('u-bob')],
          ['u-carol', await store.users.findById('u-carol')],
        ])
        // What each (file, user) pair must read: the owner, a sharee through a folder, a
        // sharee of the file alone, someone with no share, a missing user, a missing file.
        const expected = (fileId: string, userId: string) => {
          const file = byId.get(fileId)
          if (file === undefined) return undefined
          const rootType = fileId === 'f-trash' ? 'trash' : 'my'
          const shareAccess =
            userId === 'u-alice'
              ? undefined
              : userId === 'u-bob' && fileId === 'f-deep'
                ? 6
                : userId === 'u-carol' && fileId === 'f-own'
                  ? 2
                  : undefined
          return { file, user: users.get(userId), rootType, shareAccess }
        }
        const pairs: Array<[string, string]> = []
        for (let round = 0; round < 8; round++) {
          for (const fileId of ['f-own', 'f-deep', 'f-trash', 'f-missing']) {
            for (const userId of ['u-alice', 'u-bob', 'u-carol', 'u-nobody']) pairs.push([fileId, userId])
          }
        }
        const answers = await Promise.all(pairs.map(([fileId, userId]) => store.files.findWithAccess(fileId, userId)))
        pairs.forEach(([fileId, userId], i) => {
          assert.deepEqual(answers[i], expected(fileId, userId), `file ${fileId} as ${userId}`)
        })
      }))

    test('busyFilesInside: files anywhere under the folder with a live WOPI lock or editors on record', () =>
      withStore(async (store) => {
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        await store.folders.create(folder('d-a', my.id, 'Outer'))
        await store.folders.create(folder('d-b', 'd-a', 'Inner'))
        const lock = (expiresAt: number) => ({ lockId: 'L', expiresAt })
        await createFile(store, { id: 'f-locked', title: 'a.docx', folderId: 'd-b', lock: lock(T0 + 1000) })
        await createFile(store, { id: 'f-expired', title: 'b.docx', folderId: 'd-a', lock: lock(T0 - 1) })
        await createFile(store, { id: 'f-edited', title: 'c.docx', folderId: 'd-a' })
        await createFile(store, { id: 'f-closed', title: 'd.docx', folderId: 'd-a' })
        await createFile(store, { id: 'f-outside', title: 'e.docx', folderId: my.id, lock: lock(T0 + 1000) })
        await store.editing.setEditors('f-edited', 'key-1', ['u-alice'], T0)
        await store.editing.setEditors('f-closed', 'key-2', ['u-alice'], T0)
        await store.editing.endSession('f-closed', 'key-2', T0)
        const ids = async (id: string) => (await store.folders.busyFilesInside(id, T0)).map((f) => f.id).sort()
        assert.deepEqual(await ids('d-a'), ['f-edited', 'f-locked'])
        assert.deepEqual(await ids('d-b'), ['f-locked'])
        assert.deepEqual(await ids('missing'), [])
      }))

    test('create, findById, path and NAME_TAKEN per parent without regard to case', () =>
      withStore(async (store) => {
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        const a = folder('d-a', my.id, 'Projects')
        await store.folders.create(a)
        const b = folder('d-b', 'd-a', 'Übersicht')
        await store.folders.create(b)
        assert.deepEqual(await store.folders.findById('d-b'), b)
        assert.deepEqual(
          (await store.folders.path('d-b')).map((f) => f.id),
          [my.id, 'd-a', 'd-b'],
        )
        assert.deepEqual(await store.folders.path('nope'), [])
        assert.equal(await store.folders.rootTypeOf('d-b'), 'my')
        assert.equal(await store.folders.rootTypeOf(my.id), 'my')
        assert.equal(await store.folders.rootTypeOf('nope'), undefined)
        await assert.rejects(store.folders.create(folder('d-c', my.id, 'PROJECTS')), isCode('NAME_TAKEN'))
        await assert.rejects(store.folders.create(folder('d-d', 'missing', 'X')), isCode('NOT_FOUND'))
        await store.folders.create(folder('d-e', 'd-a', 'projects'))
        assert.equal(await store.folders.titleExists('d-a', 'übersicht'), true)
        assert.equal(await store.folders.titleExists(my.id, 'übersicht'), false)
      }))

    test('list pages folders, counts follow files and folders as they come and go', () =>
      withStore(async (store) => {
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        for (const [id, title] of [
          ['d-1', 'beta'],
          ['d-2', 'Alpha'],
          ['d-3', 'gamma'],
        ] as const) {
          await store.folders.create(folder(id, my.id, title, { createdAt: T0 + id.length }))
        }
        const page = await store.folders.list({
          parentId: my.id,
          offset: 1,
          limit: 1,
          sortBy: 'title',
          descending: false,
        })
        assert.equal(page.total, 3)
        assert.deepEqual(
          page.items.map((f) => f.id),
          ['d-1'],
        )
        const filtered = await store.folders.list({
          parentId: my.id,
          offset: 0,
          limit: 10,
          sortBy: 'updated',
          descending: true,
          titleContains: 'AMM',
        })
        assert.deepEqual({ total: filtered.total, ids: filtered.items.map((f) => f.id) }, { total: 1, ids: ['d-3'] })
        await createFile(store, { id: 'f-1', folderId: 'd-1' })
        await createFile(store, { id: 'f-2', folderId: 'd-1', title: 'b.docx' })
        const counts = await store.folders.counts([my.id, 'd-1', 'd-2'])
        assert.deepEqual(counts.get(my.id), { files: 0, folders: 3 })
        assert.deepEqual(counts.get('d-1'), { files: 2, folders: 0 })
        assert.deepEqual(counts.get('d-2'), { files: 0, folders: 0 })
        const f1 = await store.files.findById('f-1')
        assert.ok(f1)
        await store.files.update('f-1', f1.revision, { folderId: 'd-2' })
        const after = await store.folders.counts(['d-1', 'd-2'])
        assert.deepEqual([after.get('d-1')?.files, after.get('d-2')?.files], [1, 1])
        const listed = await store.files.list({
          folderId: 'd-2',
          offset: 0,
          limit: 10,
          sortBy: 'title',
          descending: false,
        })
        assert.deepEqual({ total: listed.total, ids: listed.items.map((f) => f.id) }, { total: 1, ids: ['f-1'] })
      }))

    test('files list filters by title suffix', () =>
      withStore(async (store) => {
        await createFile(store, { id: 'f-1', title: 'a.docx' })
        await createFile(store, { id: 'f-2', title: 'b.XLSX' })
        await createFile(store, { id: 'f-3', title: 'c.txt' })
        const page = await store.files.list({
          folderId: 'd-u-alice',
          offset: 0,
          limit: 10,
          sortBy: 'title',
          descending: false,
          titleEndsWith: ['.docx', '.xlsx'],
        })
        assert.deepEqual({ total: page.total, ids: page.items.map((f) => f.id) }, { total: 2, ids: ['f-1', 'f-2'] })
      }))

    test('a move is one update; content follows; cycles and roots are refused', () =>
      withStore(async (store) => {
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        const trash = await store.folders.ensureRoot(root('u-alice', 'trash'))
        await store.folders.create(folder('d-a', my.id, 'A'))
        await store.folders.create(folder('d-b', 'd-a', 'B'))
        await createFile(store, { id: 'f-1', folderId: 'd-b' })
        await assert.rejects(store.folders.update('d-a', 1, { parentId: 'd-b' }), isCode('INVALID_INPUT'))
        await assert.rejects(store.folders.update('d-a', 1, { parentId: 'd-a' }), isCode('INVALID_INPUT'))
        await assert.rejects(store.folders.update(my.id, 1, { parentId: trash.id }), isCode('INVALID_INPUT'))
        await assert.rejects(store.folders.update('d-a', 1, { parentId: 'gone' }), isCode('NOT_FOUND'))
        const moved = await store.folders.update('d-a', 1, {
          parentId: trash.id,
          trashedAt: T0 + 5,
          originFolderId: my.id,
        })
        assert.equal(moved?.revision, 2)
        assert.equal(moved?.trashedAt, T0 + 5)
        assert.equal(await store.folders.update('d-a', 1, { title: 'stale' }), undefined)
        assert.deepEqual(
          (await store.folders.path('d-b')).map((f) => f.id),
          [trash.id, 'd-a', 'd-b'],
        )
        assert.equal(await store.folders.rootTypeOf('d-b'), 'trash')
        assert.deepEqual(
          (await store.folders.trashedBefore(T0 + 5, 10)).map((f) => f.id),
          ['d-a'],
        )
        assert.deepEqual(await store.folders.trashedBefore(T0 + 4, 10), [])
        await store.folders.create(folder('d-c', my.id, 'b'))
        await assert.rejects(store.folders.update('d-c', 1, { parentId: 'd-a', title: 'B' }), isCode('NAME_TAKEN'))
      }))

    test('delete takes the whole tree with files and versions, and reports their blob keys', () =>
      withStore(async (store) => {
        const my = await store.folders.ensureRoot(root('u-alice', 'my'))
        await store.folders.create(folder('d-a', my.id, 'A'))
        await store.folders.create(folder('d-b', 'd-a', 'B'))
        const kept = await createFile(store, { id: 'f-0', folderId: my.id })
        const f1 = await createFile(store, { id: 'f-1', folderId: 'd-a', blobKey: 'k-1' })
        await store.files.commitVersion('f-1', f1.revision, nextVersion(f1, { blobKey: 'k-2' }), {})
        await createFile(store, { id: 'f-2', folderId: 'd-b', blobKey: 'k-3' })
        await assert.rejects(store.folders.delete(my.id), isCode('INVALID_INPUT'))
        assert.deepEqual(await store.folders.delete('d-a', 7), { outcome: 'revision-moved' })
        const deletion = await store.folders.delete('d-a', 1)
        assert.equal(deletion.outcome, 'deleted')
        if (deletion.outcome !== 'deleted') return
        assert.deepEqual([...deletion.fileIds].sort(), ['f-1', 'f-2'])
        assert.deepEqual([...deletion.blobKeys].sort(), ['k-1', 'k-2', 'k-3'])
        assert.equal(await store.folders.findById('d-b'), undefined)
        assert.equal(await store.files.findById('f-2'), undefined)
        assert.deepEqual(await store.files.listVersions('f-1'), [])
        assert.deepEqual(await store.files.findById('f-0'), kept)
        assert.deepEqual((await store.folders.counts([my.id])).get(my.id), { files: 1, folders: 0 })
        assert.deepEqual(await store.folders.delete('d-a'), { outcome: 'not-found' })
      }))

    test('a file keeps its id, lock and trash facts through a move', () =>
      withStore(async (store) => {
        const lock = { lockId: 'L', expiresAt: T0 + 60_000 }
        const file = await createFile(store, { lock })
        const moved = await store.files.update(file.id, file.revision, {
          folderId: 'd-trash',
          trashedAt: T0 + 1,
          originFolderId: file.folderId,
        })
        assert.deepEqual(moved, {
          ...file,
          folderId: 'd-trash',
          trashedAt: T0 + 1,
          originFolderId: 'd-u-alice',
          revision: file.revision + 1,
        })
        assert.deepEqual(
          (await store.files.trashedBefore(T0 + 1, 5)).map((f) => f.id),
          [file.id],
        )
        const back = await store.files.update(file.id, file.revision + 1, {
          folderId: 'd-u-alice',
          trashedAt: null,
          originFolderId: null,
        })
        assert.equal(back?.trashedAt, null)
        assert.deepEqual(await store.files.trashedBefore(T0 + 10, 5), [])
      }))
  })

  describe(`${name}: settings`, () => {
    test('get returns undefined until a value is set', () =>
      withStore(async (store) => {
        assert.equal(await store.settings.get('signing-secret'), undefined)
        assert.equal(await store.settings.setIfAbsent('signing-secret', 's1'), 's1')
        assert.equal(await store.settings.get('signing-secret'), 's1')
      }))

    test('setIfAbsent keeps the first value', () =>
      withStore(async (store) => {
        assert.equal(await store.settings.setIfAbsent('k', 'first'), 'first')
        assert.equal(await store.settings.setIfAbsent('k', 'second'), 'first')
        assert.equal(await store.settings.get('k'), 'first')
        assert.equal(await store.settings.setIfAbsent('other', 'x'), 'x')
      }))

    test('concurrent setIfAbsent calls all get the one stored value', () =>
      withStore(async (store) => {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.settings.setIfAbsent('k', `v${i}`)),
        )
        const stored = await store.settings.get('k')
        assert.ok(stored !== undefined)
        assert.deepEqual(
          results,
          results.map(() => stored),
        )
      }))
  })

  describe(`${name}: user settings`, () => {
    test("undefined until set; each user's own; replaced whole; removed with the user", () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await store.users.create(buildUser({ id: 'u-bob', userName: 'Bob' }))
        assert.equal(await store.userSettings.get('u-alice'), undefined)
        await store.userSettings.set('u-alice', { updateIfExist: true, cultureName: '' })
        assert.deepEqual(await store.userSettings.get('u-alice'), { updateIfExist: true, cultureName: '' })
        assert.equal(await store.userSettings.get('u-bob'), undefined)
        await store.userSettings.set('u-alice', { updateIfExist: false, cultureName: 'de-DE' })
        assert.deepEqual(await store.userSettings.get('u-alice'), { updateIfExist: false, cultureName: 'de-DE' })
        await store.userSettings.set('u-alice', { updateIfExist: true, cultureName: 'fr' })
        assert.deepEqual(await store.userSettings.get('u-alice'), { updateIfExist: true, cultureName: 'fr' })
        assert.equal(await store.users.remove('u-alice'), true)
        assert.equal(await store.userSettings.get('u-alice'), undefined)
      }))
  })

  describe(`${name}: quotas and used space`, () => {
    const used = async (store: MetadataStore, userId = 'u-alice') => (await store.quotas.get(userId)).usedSpace

    test('used space follows every version added and removed, by file, version and folder', () =>
      withStore(async (store) => {
        assert.deepEqual(await store.quotas.get('u-alice'), { usedSpace: 0, quotaLimit: undefined })
        const file = await createFile(store, { size: 100 })
        await createFile(store, { id: 'f-bob', ownerId: 'u-bob', title: 'Bob.docx', size: 7 })
        assert.equal(await used(store), 100)
        const v2 = nextVersion(file, { size: 50 })
        await store.files.commitVersion(file.id, file.revision, v2, { updatedAt: v2.createdAt })
        assert.equal(await used(store), 150)
        const v3 = nextVersion({ ...file, version: 2 }, { size: 20 })
        await store.files.commitVersion(file.id, file.revision + 1, v3, { updatedAt: v3.createdAt }, [1])
        assert.equal(await used(store), 70, 'the dropped first version no longer counts')
        assert.equal((await store.files.delete(file.id)).outcome, 'deleted')
        assert.equal(await used(store), 0)
        assert.equal(await used(store, 'u-bob'), 7)

        const my = await store.folders.ensureRoot({
          id: 'r-my',
          ownerId: 'u-alice',
          parentId: null,
          title: 'my',
          rootType: 'my',
          createdAt: T0,
          createdBy: 'u-alice',
          updatedAt: T0,
          updatedBy: 'u-alice',
          revision: 1,
          trashedAt: null,
          originFolderId: null,
        })
        await store.folders.create({ ...my, id: 'd-a', parentId: my.id, title: 'A', rootType: null })
        await createFile(store, { id: 'f-in', folderId: 'd-a', title: 'In.docx', size: 30 })
        await createFile(store, { id: 'f-out', folderId: my.id, title: 'Out.docx', size: 5 })
        assert.equal(await used(store), 35)
        assert.equal((await store.folders.delete('d-a')).outcome, 'deleted')
        assert.equal(await used(store), 5)
      }))

    test('limits: set, read in one go with the usage, removed, and gone with the user', () =>
      withStore(async (store) => {
        await store.users.create(buildUser())
        await store.users.create(buildUser({ id: 'u-bob', userName: 'Bob' }))
        await createFile(store, { size: 10 })
        await store.quotas.setLimit(['u-alice', 'u-bob', 'u-nobody'], 1000)
        const many = await store.quotas.getMany(['u-alice', 'u-bob', 'u-nobody'])
        assert.deepEqual(many.get('u-alice'), { usedSpace: 10, quotaLimit: 1000 })
        assert.deepEqual(many.get('u-bob'), { usedSpace: 0, quotaLimit: 1000 })
        assert.deepEqual(many.get('u-nobody'), { usedSpace: 0, quotaLimit: undefined }, 'no user: no limit stored')
        await store.quotas.setLimit(['u-bob'], 0)
        assert.equal((await store.quotas.get('u-bob')).quotaLimit, 0)
        await store.quotas.setLimit(['u-bob'], undefined)
        assert.equal((await store.quotas.get('u-bob')).quotaLimit, undefined)
        assert.equal(await store.users.remove('u-alice'), true)
        assert.deepEqual(await store.quotas.get('u-alice'), { usedSpace: 10, quotaLimit: undefined })
      }))

    test('another instance on the same storage reads the same usage', () =>
      withTwoStores(async (store, other) => {
        await store.users.create(buildUser())
        await store.quotas.setLimit(['u-alice'], 500)
        await createFile(store, { size: 120 })
        assert.deepEqual(await other.quotas.get('u-alice'), { usedSpace: 120, quotaLimit: 500 })
        await createFile(other, { id: 'f-2', title: 'Two.docx', size: 3 })
        assert.equal(await used(store), 123)
      }))
  })

  describe(`${name}: renditions`, () => {
    const rendition = (sourceBlobKey: string, target: string, blobKey: string) => ({
      sourceBlobKey,
      target,
      blobKey,
      size: 1234,
      sha256: 'ab'.repeat(32),
      createdAt: 1_700_000_000_000,
    })

    test('add then get returns every field; another format or source is not found', () =>
      withStore(async (store) => {
        const made = rendition('src-1', 'pdf', 'pdf-1')
        assert.deepEqual(await store.renditions.add(made), made)
        assert.deepEqual(await store.renditions.get('src-1', 'pdf'), made)
        assert.equal(await store.renditions.get('src-1', 'png'), undefined)
        assert.equal(await store.renditions.get('src-2', 'pdf'), undefined)
      }))

    test('the first rendition of a pair stays: a second add returns it', () =>
      withStore(async (store) => {
        const first = rendition('src-1', 'pdf', 'pdf-first')
        const results = await Promise.all([
          store.renditions.add(first),
          store.renditions.add(rendition('src-1', 'pdf', 'pdf-second')),
        ])
        const stored = await store.renditions.get('src-1', 'pdf')
        assert.ok(stored !== undefined)
        assert.deepEqual(results, [stored, stored])
      }))

    test('forget and removeBySources drop rows; removeBySources names their blobs', () =>
      withStore(async (store) => {
        await store.renditions.add(rendition('src-1', 'pdf', 'pdf-1'))
        await store.renditions.add(rendition('src-1', 'png', 'png-1'))
        await store.renditions.add(rendition('src-2', 'pdf', 'pdf-2'))
        await store.renditions.forget('src-2', 'pdf')
        assert.equal(await store.renditions.get('src-2', 'pdf'), undefined)
        const removed = await store.renditions.removeBySources(['src-1', 'src-none'])
        assert.deepEqual(removed.sort(), ['pdf-1', 'png-1'])
        assert.equal(await store.renditions.get('src-1', 'png'), undefined)
        assert.deepEqual(await store.renditions.removeBySources([]), [])
      }))

    test('a rendition blob is in use while some version holds its source, and not after', () =>
      withStore(async (store) => {
        const file = await createFile(store)
        await store.renditions.add(rendition(file.blobKey, 'pdf', 'pdf-of-v1'))
        await store.renditions.add(rendition('blob-of-nobody', 'pdf', 'pdf-of-nothing'))
        assert.deepEqual(
          await store.files.blobKeysInUse(['pdf-of-v1', 'pdf-of-nothing', file.blobKey]),
          new Set(['pdf-of-v1', file.blobKey]),
        )
        await store.files.delete(file.id)
        assert.deepEqual(await store.files.blobKeysInUse(['pdf-of-v1', file.blobKey]), new Set())
      }))
  })

  describe(`${name}: audit`, () => {
    function event(n: number, overrides: Partial<AuditEvent> = {}): AuditEvent {
      return {
        id: `ev-${n}`,
        at: T0 + n * 1000,
        action: 'sign-in',
        actorId: 'u-alice',
        actorName: 'Alice',
        address: '192.0.2.7',
        targetType: '',
        targetId: '',
        targetName: '',
        detail: '',
        ...overrides,
      }
    }

    test('an empty trail lists nothing', () =>
      withStore(async (store) => {
        assert.deepEqual(await store.audit.list({ offset: 0, limit: 10 }), { total: 0, items: [] })
      }))

    test('append then list returns every field, newest first, with the total', () =>
      withStore(async (store) => {
        const removal = event(2, {
          action: 'user-removed',
          targetType: 'user',
          targetId: 'u-bob',
          targetName: 'Bob',
          detail: 'Zoë\'s "account"',
        })
        await store.audit.append(event(1))
        await store.audit.append(removal)
        await store.audit.append(event(3, { action: 'sign-in-failed', actorId: '', actorName: 'mallory' }))
        const all = await store.audit.list({ offset: 0, limit: 10 })
        assert.equal(all.total, 3)
        assert.deepEqual(
          all.items.map((e) => e.id),
          ['ev-3', 'ev-2', 'ev-1'],
        )
        assert.deepEqual(all.items[1], removal)
      }))

    test('events of the same millisecond come newest appended first', () =>
      withStore(async (store) => {
        for (const n of [1, 2, 3]) await store.audit.append(event(n, { at: T0 }))
        const all = await store.audit.list({ offset: 0, limit: 10 })
        assert.deepEqual(
          all.items.map((e) => e.id),
          ['ev-3', 'ev-2', 'ev-1'],
        )
      }))

    test('pages without gaps or repeats, and since/until bound the time', () =>
      withStore(async (store) => {
        for (let n = 1; n <= 7; n++) await store.audit.append(event(n))
        const seen: string[] = []
        for (let offset = 0; offset < 7; offset += 3) {
          const page = await store.audit.list({ offset, limit: 3 })
          assert.equal(page.total, 7)
          seen.push(...page.items.map((e) => e.id))
        }
        assert.deepEqual(seen, ['ev-7', 'ev-6', 'ev-5', 'ev-4', 'ev-3', 'ev-2', 'ev-1'])
        const window = await store.audit.list({ offset: 0, limit: 10, since: T0 + 3000, until: T0 + 6000 })
        assert.equal(window.total, 3)
        assert.deepEqual(
          window.items.map((e) => e.id),
          ['ev-5', 'ev-4', 'ev-3'],
        )
      }))
  })

  describe(`${name}: editing`, () => {
    const saveError = { status: 3, documentKey: 'f-1.1', message: 'could not save', at: T0 + 5 }

    test('a file has no state until status 1 records editors, in the order given', () =>
      withStore(async (store) => {
        await createFile(store)
        assert.equal(await store.editing.get('f-1'), undefined)
        await store.editing.setEditors('f-1', 'f-1.1', ['u-bob', 'u-alice'], T0 + 1)
        assert.deepEqual(await store.editing.get('f-1'), {
          fileId: 'f-1',
          documentKey: 'f-1.1',
          editors: ['u-bob', 'u-alice'],
          updatedAt: T0 + 1,
          lastError: null,
        })
        await store.editing.setEditors('f-1', 'f-1.1', ['u-alice'], T0 + 2)
        assert.deepEqual((await store.editing.get('f-1'))?.editors, ['u-alice'])
      }))

    test('endSession clears the editors only for the stored session key', () =>
      withStore(async (store) => {
        await createFile(store)
        await store.editing.setEditors('f-1', 'f-1.2', ['u-alice'], T0)
        assert.equal(await store.editing.endSession('f-1', 'f-1.1', T0 + 1), false)
        assert.deepEqual((await store.editing.get('f-1'))?.editors, ['u-alice'])
        assert.equal(await store.editing.endSession('f-1', 'f-1.2', T0 + 2), true)
        const state = await store.editing.get('f-1')
        assert.deepEqual(state?.editors, [])
        assert.equal(state?.documentKey, 'f-1.2')
        assert.equal(state?.updatedAt, T0 + 2)
        assert.equal(await store.editing.endSession('f-1', 'f-1.2', T0 + 3), false)
        assert.equal(await store.editing.endSession('f-none', 'f-none.1', T0), false)
      }))

    test('an error is kept beside the editors until cleared', () =>
      withStore(async (store) => {
        await createFile(store)
        await store.editing.recordError('f-1', saveError)
        assert.deepEqual(await store.editing.get('f-1'), {
          fileId: 'f-1',
          documentKey: '',
          editors: [],
          updatedAt: T0 + 5,
          lastError: saveError,
        })
        await store.editing.setEditors('f-1', 'f-1.1', ['u-alice'], T0 + 6)
        assert.deepEqual((await store.editing.get('f-1'))?.lastError, saveError)
        const later = { ...saveError, status: 7, message: 'force save failed', at: T0 + 7 }
        await store.editing.recordError('f-1', later)
        const state = await store.editing.get('f-1')
        assert.deepEqual(state?.lastError, later)
        assert.deepEqual(state?.editors, ['u-alice'])
        await store.editing.clearError('f-1')
        assert.equal((await store.editing.get('f-1'))?.lastError, null)
        assert.deepEqual((await store.editing.get('f-1'))?.editors, ['u-alice'])
      }))

    test('writes for a missing file throw NOT_FOUND', () =>
      withStore(async (store) => {
        await assert.rejects(store.editing.setEditors('f-none', 'k', ['u-alice'], T0), isCode('NOT_FOUND'))
        await assert.rejects(store.editing.recordError('f-none', saveError), isCode('NOT_FOUND'))
        await store.editing.clearError('f-none')
        assert.equal(await store.editing.get('f-none'), undefined)
      }))

    test('getMany returns the states of the listed files that have one', () =>
      withStore(async (store) => {
        await createFile(store)
        await createFile(store, { id: 'f-2', title: 'Two.docx', blobKey: 'b-2' })
        await createFile(store, { id: 'f-3', title: 'Three.docx', blobKey: 'b-3' })
        await store.editing.setEditors('f-1', 'f-1.1', ['u-alice'], T0)
        await store.editing.recordError('f-3', { ...saveError, documentKey: 'f-3.1' })
        const states = await store.editing.getMany(['f-3', 'f-2', 'f-1', 'f-none'])
        assert.deepEqual(states.map((s) => s.fileId).sort(), ['f-1', 'f-3'])
        assert.deepEqual(await store.editing.getMany([]), [])
      }))

    test('findByEditor returns the sessions a user is editing in, and no ended one', () =>
      withStore(async (store) => {
        await createFile(store)
        await createFile(store, { id: 'f-2', title: 'Two.docx', blobKey: 'b-2' })
        await createFile(store, { id: 'f-3', title: 'Three.docx', blobKey: 'b-3' })
        await store.editing.setEditors('f-1', 'f-1.1', ['u-bob', 'u-alice'], T0)
        await store.editing.setEditors('f-2', 'f-2.1', ['u-alice-2'], T0)
        await store.editing.setEditors('f-3', 'f-3.1', ['u-alice'], T0)
        await store.editing.endSession('f-3', 'f-3.1', T0 + 1)
        const states = await store.editing.findByEditor('u-alice')
        assert.deepEqual(
          states.map((s) => [s.fileId, s.documentKey]),
          [['f-1', 'f-1.1']],
        )
        assert.deepEqual(
          (await store.editing.findByEditor('u-bob')).map((s) => s.fileId),
          ['f-1'],
        )
        assert.deepEqual(await store.editing.findByEditor('u-nobody'), [])
      }))

    test('deleting the file removes its state', () =>
      withStore(async (store) => {
        await createFile(store)
        await store.editing.setEditors('f-1', 'f-1.1', ['u-alice'], T0)
        await store.editing.recordError('f-1', saveError)
        await store.files.delete('f-1')
        assert.equal(await store.editing.get('f-1'), undefined)
        assert.deepEqual(await store.editing.getMany(['f-1']), [])
      }))
  })

  describe(`${name}: shares`, () => {
    const share = (overrides: Partial<ShareRecord> = {}): ShareRecord => ({
      itemKind: 'file',
      itemId: 'f-1',
      userId: 'u-bob',
      access: 2,
      grantedBy: 'u-alice',
      grantedAt: T0,
      ...overrides,
    })

    test('put then find returns every field; a second put replaces the entry', () =>
      withStore(async (store) => {
        await createFile(store)
        await store.shares.put(share())
        assert.deepEqual(await store.shares.find('file', 'f-1', 'u-bob'), share())
        await store.shares.put(share({ access: 1, grantedBy: 'u-root', grantedAt: T0 + 5 }))
        assert.deepEqual(
          await store.shares.find('file', 'f-1', 'u-bob'),
          share({ access: 1, grantedBy: 'u-root', grantedAt: T0 + 5 }),
        )
        assert.equal((await store.shares.listForItem('file', 'f-1')).length, 1)
      }))

    test('entries are per item kind, item and user', () =>
      withStore(async (store) => {
        await createFile(store)
        await store.shares.put(share())
        await store.shares.put(share({ userId: 'u-carol', access: 6, grantedAt: T0 + 1 }))
        await store.shares.put(share({ itemKind: 'folder', itemId: 'f-1', access: 1, grantedAt: T0 + 2 }))
        assert.deepEqual(
          (await store.shares.listForItem('file', 'f-1')).map((s) => [s.userId, s.access]),
          [
            ['u-bob', 2],
            ['u-carol', 6],
          ],
        )
        assert.deepEqual(
          (await store.shares.listForUser('u-bob')).map((s) => [s.itemKind, s.access]),
          [
            ['folder', 1],
            ['file', 2],
          ],
        )
        assert.equal(await store.shares.find('file', 'f-2', 'u-bob'), undefined)
      }))

    test('listForItems reads the entries of many items of one kind at once', () =>
      withStore(async (store) => {
        await createFile(store)
        await createFile(store, { id: 'f-2', title: 'Two.docx', blobKey: 'b-2' })
        await store.shares.put(share())
        await store.shares.put(share({ itemId: 'f-2', userId: 'u-carol', grantedAt: T0 + 1 }))
        await store.shares.put(share({ itemKind: 'folder', itemId: 'f-1', grantedAt: T0 + 2 }))
        assert.deepEqual(
          (await store.shares.listForItems('file', ['f-1', 'f-2', 'f-none'])).map((s) => [s.itemId, s.userId]),
          [
            ['f-1', 'u-bob'],
            ['f-2', 'u-carol'],
          ],
        )
        assert.deepEqual(await store.shares.listForItems('file', []), [])
      }))

    test('remove deletes one entry and says whether there was one', () =>
      withStore(async (store) => {
        await createFile(store)
        await store.shares.put(share())
        await store.shares.put(share({ userId: 'u-carol' }))
        assert.equal(await store.shares.remove('file', 'f-1', 'u-bob'), true)
        assert.equal(await store.shares.remove('file', 'f-1', 'u-bob'), false)
        assert.equal(await store.shares.find('file', 'f-1', 'u-bob'), undefined)
        assert.deepEqual(
          (await store.shares.listForItem('file', 'f-1')).map((s) => s.userId),
          ['u-carol'],
        )
      }))

    test('deleting a file removes its entries, not those of other items', () =>
      withStore(async (store) => {
        await createFile(store)
        await createFile(store, { id: 'f-2', title: 'Two.docx', blobKey: 'b-2' })
        await store.shares.put(share())
        await store.shares.put(share({ itemId: 'f-2' }))
        await store.files.delete('f-1')
        assert.deepEqual(
          (await store.shares.listForUser('u-bob')).map((s) => s.itemId),
          ['f-2'],
        )
      }))
  })

  describe(`${name}: share links`, () => {
    const link = (overrides: Partial<ShareLinkRecord> = {}): ShareLinkRecord => ({
      fileId: 'f-1',
      keyHash: 'c'.repeat(64),
      access: 2,
      createdAt: T0,
      revokedAt: null,
      ...overrides,
    })

    test('put then find; a new put replaces the key and turns the link back on', () =>
      withStore(async (store) => {
        await createFile(store)
        assert.equal(await store.shareLinks.find('f-1'), undefined)
        await store.shareLinks.put(link())
        assert.deepEqual(await store.shareLinks.find('f-1'), link())
        assert.equal(await store.shareLinks.revoke('f-1', T0 + 9), true)
        await store.shareLinks.put(link({ keyHash: 'd'.repeat(64), access: 1, createdAt: T0 + 10 }))
        assert.deepEqual(
          await store.shareLinks.find('f-1'),
          link({ keyHash: 'd'.repeat(64), access: 1, createdAt: T0 + 10 }),
        )
      }))

    test('listWorking lists the links that are on among many files', () =>
      withStore(async (store) => {
        await createFile(store)
        await createFile(store, { id: 'f-2', title: 'Two.docx', blobKey: 'b-2' })
        await store.shareLinks.put(link())
        await store.shareLinks.put(link({ fileId: 'f-2' }))
        assert.equal(await store.shareLinks.revoke('f-2', T0 + 1), true)
        assert.deepEqual(
          (await store.shareLinks.listWorking(['f-1', 'f-2'])).map((l) => l.fileId),
          ['f-1'],
        )
        assert.deepEqual(await store.shareLinks.listWorking([]), [])
      }))

    test('setAccess and revoke act on a working link only', () =>
      withStore(async (store) => {
        await createFile(store)
        assert.equal(await store.shareLinks.setAccess('f-1', 1), false)
        assert.equal(await store.shareLinks.revoke('f-1', T0), false)
        await store.shareLinks.put(link())
        assert.equal(await store.shareLinks.setAccess('f-1', 6), true)
        assert.equal((await store.shareLinks.find('f-1'))?.access, 6)
        assert.equal(await store.shareLinks.revoke('f-1', T0 + 3), true)
        assert.equal(await store.shareLinks.revoke('f-1', T0 + 4), false)
        assert.equal(await store.shareLinks.setAccess('f-1', 1), false)
        assert.deepEqual(await store.shareLinks.find('f-1'), link({ access: 6, revokedAt: T0 + 3 }))
      }))

    test('deleting the file removes its link', () =>
      withStore(async (store) => {
        await createFile(store)
        await store.shareLinks.put(link())
        await store.files.delete('f-1')
        assert.equal(await store.shareLinks.find('f-1'), undefined)
      }))
  })

  describe(`${name}: folder links`, () => {
    const folderLink = (overrides: Partial<FolderLinkRecord> = {}): FolderLinkRecord => ({
      folderId: 'd-1',
      keyHash: 'c'.repeat(64),
      access: 2,
      denyDownload: false,
      expiresAt: null,
      createdAt: T0,
      revokedAt: null,
      ...overrides,
    })
    const folderNamed = (id: string, parentId: string | null): FolderRecord => ({
      id,
      ownerId: 'u-alice',
      parentId,
      title: id,
      rootType: parentId === null ? 'my' : null,
      createdAt: T0,
      createdBy: 'u-alice',
      updatedAt: T0,
      updatedBy: 'u-alice',
      revision: 1,
      trashedAt: null,
      originFolderId: null,
    })
    async function createFolders(store: MetadataStore): Promise<void> {
      await store.folders.ensureRoot(folderNamed('r-1', null))
      await store.folders.create(folderNamed('d-1', 'r-1'))
      await store.folders.create(folderNamed('d-2', 'r-1'))
    }

    test('put, find and findByKeyHash; a new put replaces the key and every setting and turns it on', () =>
      withStore(async (store) => {
        await createFolders(store)
        assert.equal(await store.folderLinks.find('d-1'), undefined)
        assert.equal(await store.folderLinks.findByKeyHash('c'.repeat(64)), undefined)
        await store.folderLinks.put(folderLink({ denyDownload: true, expiresAt: T0 + 5000 }))
        assert.deepEqual(await store.folderLinks.find('d-1'), folderLink({ denyDownload: true, expiresAt: T0 + 5000 }))
        assert.deepEqual(
          await store.folderLinks.findByKeyHash('c'.repeat(64)),
          folderLink({ denyDownload: true, expiresAt: T0 + 5000 }),
        )
        assert.equal(await store.folderLinks.revoke('d-1', T0 + 9), true)
        await store.folderLinks.put(folderLink({ keyHash: 'd'.repeat(64), access: 1, createdAt: T0 + 10 }))
        assert.deepEqual(
          await store.folderLinks.find('d-1'),
          folderLink({ keyHash: 'd'.repeat(64), access: 1, createdAt: T0 + 10 }),
        )
        assert.equal(await store.folderLinks.findByKeyHash('c'.repeat(64)), undefined)
      }))

    test('update and revoke act on a working link only; listWorking lists those on', () =>
      withStore(async (store) => {
        await createFolders(store)
        const settings = { access: 6, denyDownload: true, expiresAt: T0 + 1 }
        assert.equal(await store.folderLinks.update('d-1', settings), false)
        assert.equal(await store.folderLinks.revoke('d-1', T0), false)
        await store.folderLinks.put(folderLink())
        await store.folderLinks.put(folderLink({ folderId: 'd-2', keyHash: 'e'.repeat(64) }))
        assert.equal(await store.folderLinks.update('d-1', settings), true)
        assert.deepEqual(await store.folderLinks.find('d-1'), folderLink(settings))
        assert.equal(await store.folderLinks.revoke('d-2', T0 + 3), true)
        assert.equal(await store.folderLinks.revoke('d-2', T0 + 4), false)
        assert.equal(await store.folderLinks.update('d-2', settings), false)
        assert.deepEqual(
          (await store.folderLinks.listWorking(['d-1', 'd-2'])).map((l) => l.folderId),
          ['d-1'],
        )
        assert.deepEqual(await store.folderLinks.listWorking([]), [])
      }))

    test('deleting the folder removes its link', () =>
      withStore(async (store) => {
        await createFolders(store)
        await store.folderLinks.put(folderLink())
        assert.equal((await store.folders.delete('d-1')).outcome, 'deleted')
        assert.equal(await store.folderLinks.find('d-1'), undefined)
      }))
  })

  describe(`${name}: transfer`, () => {
    /** A store holding one of everything a store keeps, with nesting, locks and history. */
    async function fill(store: MetadataStore): Promise<void> {
      await store.users.create(buildUser({ id: 'u-root', userName: 'root', isAdmin: true, tokenGeneration: 3 }))
      await store.users.create(buildUser({ wopiUserInfo: 'info' }))
      await store.userSettings.set('u-alice', { updateIfExist: true, cultureName: 'es' })
      await store.quotas.setLimit(['u-alice'], 5_000_000_000)
      await store.settings.setIfAbsent('signing-secret', 'c2VjcmV0')
      await store.sessions.create(buildSession())
      await store.throttle.update('alice', () => ({
        next: { failures: 2, windowStartedAt: T0, lastAttemptAt: T0 + 5, blockedUntil: T0 + 60_000 },
        result: undefined,
      }))
      const folder = (id: string, parentId: string | null, title: string): FolderRecord => ({
        id,
        ownerId: 'u-alice',
        parentId,
        title,
        rootType: parentId === null ? (id === 'r-trash' ? 'trash' : 'my') : null,
        createdAt: T0,
        createdBy: 'u-alice',
        updatedAt: T0 + 1,
        updatedBy: 'u-root',
        revision: 2,
        trashedAt: null,
        originFolderId: null,
      })
      await store.folders.ensureRoot(folder('r-my', null, 'my'))
      await store.folders.ensureRoot(folder('r-trash', null, 'trash'))
      // Created deepest-named first, so an export by id alone would put children first.
      await store.folders.create(folder('z-projects', 'r-my', 'Projects'))
      await store.folders.create(folder('a-deep', 'z-projects', 'Deep'))
      await store.folders.create({ ...folder('m-old', 'r-trash', 'Old'), trashedAt: T0 + 9, originFolderId: 'r-my' })
      const file = await createFile(store, { id: 'f-1', folderId: 'a-deep' })
      let head = await store.files.commitVersion(
        'f-1',
        1,
        nextVersion(file, { meta: { changesBlobKey: 'chg', n: 1 } }),
        {
          updatedAt: T0 + 1000,
          updatedBy: 'u-bob',
          lock: { lockId: 'L1', expiresAt: T0 + 1_800_000, holderId: 'u-bob', lockedAt: T0 },
        },
      )
      assert.ok(head)
      head = await store.files.commitVersion('f-1', head.revision, nextVersion(head, { source: 'exit-save' }), {})
      assert.ok(head)
      await createFile(store, {
        id: 'f-2',
        folderId: 'r-trash',
        title: 'Gone.xlsx',
        trashedAt: T0 + 7,
        originFolderId: 'r-my',
      })
      await store.editing.setEditors('f-1', 'key-1', ['u-alice', 'u-bob'], T0 + 3)
      await store.editing.recordError('f-1', { status: 3, documentKey: 'key-1', message: 'failed', at: T0 + 4 })
      await store.shares.put({
        itemKind: 'folder',
        itemId: 'z-projects',
        userId: 'u-bob',
        access: 2,
        grantedBy: 'u-alice',
        grantedAt: T0,
      })
      await store.shares.put({
        itemKind: 'file',
        itemId: 'f-1',
        userId: 'u-carol',
        access: 1,
        grantedBy: 'u-alice',
        grantedAt: T0 + 1,
      })
      await store.shareLinks.put({ fileId: 'f-1', keyHash: 'e'.repeat(64), access: 2, createdAt: T0, revokedAt: null })
      await store.folderLinks.put({
        folderId: 'z-projects',
        keyHash: 'f'.repeat(64),
        access: 2,
        denyDownload: true,
        expiresAt: T0 + 7,
        createdAt: T0,
        revokedAt: null,
      })
      for (const n of [1, 2, 3]) {
        await store.audit.append({
          id: `ev-${n}`,
          at: T0,
          action: 'sign-in',
          actorId: 'u-alice',
          actorName: 'Alice',
          address: '192.0.2.1',
          targetType: n === 3 ? 'file' : '',
          targetId: n === 3 ? 'f-1' : '',
          targetName: '',
          detail: `#${n}`,
        })
      }
    }

    /** Everything a store answers about the records fill() made. */
    async function view(store: MetadataStore) {
      const folderIds = ['r-my', 'r-trash', 'z-projects', 'a-deep', 'm-old']
      return {
        users: await store.users.list(),
        userSettings: [await store.userSettings.get('u-alice'), await store.userSettings.get('u-root')],
        // The limit moves; the used space follows from the versions imported.
        quotas: [...(await store.quotas.getMany(['u-alice', 'u-root', 'u-bob'])).entries()],
        secret: await store.settings.get('signing-secret'),
        session: await store.sessions.find('a'.repeat(64)),
        throttle: await store.throttle.get('alice'),
        folders: await Promise.all(folderIds.map((id) => store.folders.findById(id))),
        path: (await store.folders.path('a-deep')).map((f) => f.id),
        counts: [...(await store.folders.counts(folderIds)).entries()].sort(),
        files: [await store.files.findById('f-1'), await store.files.findById('f-2')],
        versions: await store.files.listVersions('f-1'),
        editing: await store.editing.get('f-1'),
        shares: [await store.shares.listForItem('folder', 'z-projects'), await store.shares.listForUser('u-carol')],
        link: await store.shareLinks.find('f-1'),
        folderLink: await store.folderLinks.find('z-projects'),
        audit: await store.audit.list({ offset: 0, limit: 10 }),
      }
    }

    async function collect(batches: AsyncIterable<TransferBatch>): Promise<TransferBatch[]> {
      const all: TransferBatch[] = []
      for await (const batch of batches) all.push(batch)
      return all
    }

    async function* replay(batches: TransferBatch[]): AsyncGenerator<TransferBatch> {
      yield* batches
    }

    const expected = {
      users: 2,
      userSettings: 1,
      userQuotas: 1,
      settings: 1,
      sessions: 1,
      throttle: 1,
      folders: 5,
      files: 2,
      versions: 4,
      editing: 1,
      shares: 2,
      shareLinks: 1,
      folderLinks: 1,
      audit: 3,
    }
    const zero = Object.fromEntries(Object.keys(expected).map((kind) => [kind, 0]))

    test('a store exported in small batches imports into an empty one that answers the same', async () => {
      const source = await open()
      const target = await open()
      try {
        await fill(source.store)
        assert.equal(await target.store.transfer.isEmpty(), true)
        assert.equal(await source.store.transfer.isEmpty(), false)
        const batches = await collect(source.store.transfer.exportRecords(2))
        assert.ok(batches.every((batch) => batch.records.length >= 1 && batch.records.length <= 2))
        const folders = batches.flatMap((batch) => (batch.kind === 'folders' ? batch.records : []))
        for (const [index, f] of folders.entries()) {
          if (f.parentId !== null)
            assert.ok(
              folders.slice(0, index).some((p) => p.id === f.parentId),
              `${f.id} before its parent`,
            )
        }

        const report = await target.store.transfer.importRecords(replay(batches))
        assert.deepEqual(report, { added: expected, present: zero })
        assert.deepEqual(await view(target.store), await view(source.store))
        assert.equal(await target.store.transfer.isEmpty(), false)

        // Again: nothing is added or changed, nothing doubles.
        const again = await target.store.transfer.importRecords(source.store.transfer.exportRecords())
        assert.deepEqual(again, { added: zero, present: expected })
        assert.deepEqual(await view(target.store), await view(source.store))

        // The imported rows are live: compare-and-set on the kept revision works.
        const f1 = await target.store.files.findById('f-1')
        assert.ok(f1)
        assert.ok(await target.store.files.update('f-1', f1.revision, { title: 'Renamed.docx' }))
      } finally {
        await source.cleanup()
        await target.cleanup()
      }
    })

    test('an import that clashes with other records writes nothing', async () => {
      const source = await open()
      const target = await open()
      try {
        await fill(source.store)
        // Another install's user under the same name, with another id.
        await target.store.users.create(buildUser({ id: 'u-other', userName: 'ALICE' }))
        // SQLite and PostgreSQL both name the unique constraint the clash breaks.
        await assert.rejects(target.store.transfer.importRecords(source.store.transfer.exportRecords()), /unique/i)
        assert.deepEqual(
          (await target.store.users.list()).map((u) => u.id),
          ['u-other'],
        )
        assert.equal(await target.store.settings.get('signing-secret'), undefined)
        assert.equal(await target.store.files.findById('f-1'), undefined)
        assert.equal((await target.store.audit.list({ offset: 0, limit: 10 })).total, 0)
      } finally {
        await source.cleanup()
        await target.cleanup()
      }
    })
  })

  describe(`${name}: file operations`, () => {
    const op = (overrides: Partial<FileOperationRecord> = {}): FileOperationRecord => ({
      id: 'op-1',
      userId: 'u-alice',
      kind: 'move',
      startedAt: T0,
      finishedAt: null,
      error: '',
      files: [],
      folders: [],
      ...overrides,
    })
    const outcome = (at: number) => ({
      finishedAt: at,
      error: '',
      files: [{ id: 'f-1', title: 'Report.docx' }],
      folders: [{ id: 'd-1', title: 'Über "quoted"' }],
    })

    test('a running operation is reported on every take; a finished one once, then it is gone', () =>
      withStore(async (store) => {
        await store.operations.start(op())
        await store.operations.start(op({ id: 'op-2', kind: 'copy', startedAt: T0 + 1 }))
        await store.operations.start(op({ id: 'op-bob', userId: 'u-bob', startedAt: T0 + 2 }))
        assert.deepEqual(
          (await store.operations.take('u-alice')).map((o) => o.id),
          ['op-1', 'op-2'],
        )
        assert.deepEqual(
          (await store.operations.take('u-alice')).map((o) => o.id),
          ['op-1', 'op-2'],
        )
        assert.equal(await store.operations.finish('op-1', outcome(T0 + 5)), true)
        // Finishing twice, or an unknown id, changes nothing.
        assert.equal(await store.operations.finish('op-1', { ...outcome(T0 + 6), error: 'late' }), false)
        assert.equal(await store.operations.finish('op-none', outcome(T0 + 6)), false)
        const taken = await store.operations.take('u-alice')
        assert.deepEqual(taken, [op({ ...outcome(T0 + 5) }), op({ id: 'op-2', kind: 'copy', startedAt: T0 + 1 })])
        assert.deepEqual(
          (await store.operations.take('u-alice')).map((o) => o.id),
          ['op-2'],
        )
        assert.deepEqual(
          (await store.operations.take('u-bob')).map((o) => o.id),
          ['op-bob'],
        )
      }))

    test('a take keeps the finished operations it is told to, for the next take', () =>
      withStore(async (store) => {
        await store.operations.start(op())
        await store.operations.start(op({ id: 'op-2', kind: 'copy', startedAt: T0 + 1 }))
        await store.operations.start(op({ id: 'op-3', kind: 'delete', startedAt: T0 + 2 }))
        await store.operations.finish('op-1', outcome(T0 + 5))
        await store.operations.finish('op-2', outcome(T0 + 6))
        assert.deepEqual(
          (await store.operations.take('u-alice', ['op-2'])).map((o) => o.id),
          ['op-1', 'op-2', 'op-3'],
        )
        assert.deepEqual(
          (await store.operations.take('u-alice')).map((o) => o.id),
          ['op-2', 'op-3'],
        )
        assert.deepEqual(
          (await store.operations.take('u-alice', ['op-2'])).map((o) => o.id),
          ['op-3'],
        )
        assert.deepEqual(await store.operations.take('u-bob', ['op-3']), [])
      }))

    test('every kind is kept as started: move, copy, delete and download', () =>
      withStore(async (store) => {
        const kinds = ['move', 'copy', 'delete', 'download'] as const
        for (const [i, kind] of kinds.entries())
          await store.operations.start(op({ id: `op-${kind}`, kind, startedAt: T0 + i }))
        assert.deepEqual(
          (await store.operations.take('u-alice')).map((o) => o.kind),
          [...kinds],
        )
      }))

    test('two takes at once report a finished operation once between them', () =>
      withStore(async (store) => {
        for (let i = 0; i < 20; i++) {
          await store.operations.start(op({ id: `op-${i}`, startedAt: T0 + i }))
          await store.operations.finish(`op-${i}`, outcome(T0 + 100))
        }
        const [a, b] = await Promise.all([store.operations.take('u-alice'), store.operations.take('u-alice')])
        assert.equal(a.length + b.length, 20)
        assert.equal(new Set([...a, ...b].map((o) => o.id)).size, 20)
      }))

    test('an operation finishing while it is taken is reported, running or finished, never left out', () =>
      withStore(async (store) => {
        for (let i = 0; i < 60; i++) {
          const id = `op-race-${i}`
          await store.operations.start(op({ id, startedAt: T0 + i }))
          const [, seen] = await Promise.all([
            store.operations.finish(id, outcome(T0 + 100 + i)),
            store.operations.take('u-alice'),
          ])
          const reported = seen.find((o) => o.id === id)
          assert.ok(reported !== undefined, `${id} is listed by the take it finished during`)
          // Seen still running, the next take reports it finished.
          if (reported.finishedAt === null) {
            assert.equal((await store.operations.take('u-alice')).find((o) => o.id === id)?.finishedAt, T0 + 100 + i)
          }
        }
      }))

    test('purge drops finished operations by their finish time and abandoned ones by their start', () =>
      withStore(async (store) => {
        await store.operations.start(op({ id: 'old-done', startedAt: T0 }))
        await store.operations.finish('old-done', outcome(T0 + 10))
        await store.operations.start(op({ id: 'new-done', startedAt: T0 + 20 }))
        await store.operations.finish('new-done', { ...outcome(T0 + 30), error: 'no such folder' })
        await store.operations.start(op({ id: 'old-running', startedAt: T0 + 5 }))
        await store.operations.start(op({ id: 'new-running', startedAt: T0 + 50 }))
        assert.equal(await store.operations.purge(T0 + 20, T0 + 40), 2)
        const left = await store.operations.take('u-alice')
        assert.deepEqual(
          left.map((o) => [o.id, o.error]),
          [
            ['new-done', 'no such folder'],
            ['new-running', ''],
          ],
        )
      }))

    test('endSilent ends running operations whose last heartbeat (or start) is too old; beat keeps one alive', () =>
      withStore(async (store) => {
        await store.operations.start(op({ id: 'never-beat', startedAt: T0 }))
        await store.operations.start(op({ id: 'beating', startedAt: T0 }))
        await store.operations.beat('beating', T0 + 50)
        await store.operations.start(op({ id: 'done', startedAt: T0 }))
        await store.operations.finish('done', outcome(T0 + 5))
        await store.operations.beat('done', T0 + 60) // a finished operation stays as it ended
        assert.equal(await store.operations.endSilent(T0 + 40, T0 + 100, 'interrupted'), 1)
        assert.equal(await store.operations.endSilent(T0 + 40, T0 + 101, 'interrupted'), 0)
        const taken = await store.operations.take('u-alice')
        assert.deepEqual(
          taken.map((o) => [o.id, o.finishedAt, o.error]),
          [
            ['beating', null, ''],
            ['done', T0 + 5, ''],
            ['never-beat', T0 + 100, 'interrupted'],
          ],
        )
        // Once it falls silent too, the beating one ends the same way.
        assert.equal(await store.operations.endSilent(T0 + 51, T0 + 200, 'interrupted'), 1)
      }))
  })
}
