import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { openTestContext } from '../../test/support/app-context.js'
import { isDomainError } from '../core/errors.js'
import type { FileRecord, FolderRecord } from '../core/entities.js'
import { userPrincipal, type Principal } from './access.js'
import { createUser } from './accounts/accounts.js'
import type { AppContext } from './context.js'
import { createApp, type App } from './create-app.js'
import { NO_LOCK_CLAIM } from './lock-policy.js'

/**
 * Every use case of the App, walked by principals who may do nothing with Alice's files and
 * folders: Bob, signed in with no shares, and a guest of a link to Carol's file. Each call
 * aimed at Alice's things is refused (NOT_FOUND, FORBIDDEN...) or returns nothing of hers,
 * and what the store holds for every account, and the stored bytes, stay as they were.
 * The App's services are enumerated at run time: a use case added without an entry
 * here (a walk, or an exemption with its reason) fails this test.
 */

type Walk = (who: Principal) => Promise<unknown>
type Entry = { walks: Walk[] } | { exempt: string }

const REFUSALS = new Set(['NOT_FOUND', 'FORBIDDEN', 'UNAUTHENTICATED', 'NOT_SUPPORTED'])

const body = () => Readable.from([Buffer.from('intruder bytes')])
const page = { offset: 0, limit: 100, sortBy: 'title', descending: false } as const
const listQuery = { ...page, filter: { kind: 'all' } } as const

describe('a powerless principal walks every use case and gets nothing', () => {
  let ctx: AppContext
  let dispose: () => Promise<void>
  let app: App
  let alice: Principal
  let bob: Principal
  let guest: Principal
  let aliceFolder: FolderRecord
  let aliceFile: FileRecord
  let trashedFile: FileRecord
  let aliceRootFile: FileRecord
  let bobToken: string
  let carolKeyHash: string
  let carolKey: string
  let carolFolderKey: string
  const secrets: string[] = []

  before(async () => {
    ;({ ctx, dispose } = await openTestContext('folio-powerless-'))
    app = createApp(ctx)
    alice = userPrincipal(await createUser(ctx, { userName: 'alice', password: 'alice-password-1' }))
    bob = userPrincipal(await createUser(ctx, { userName: 'bob', password: 'bob-password-1' }))
    const carol = userPrincipal(await createUser(ctx, { userName: 'carol', password: 'carol-password-1' }))

    aliceFolder = await app.folders.create(alice, '@my', 'Private')
    const bytes = (text: string) => Readable.from([Buffer.from(text)])
    aliceFile = await app.files.upload(alice, 'secret.docx', bytes('alice secret'), undefined, aliceFolder.id)
    aliceFile = await app.files.storeNewContents(aliceFile.id, { by: alice, body: bytes('second'), source: 'upload' })
    aliceRootFile = await app.files.upload(alice, 'root.docx', Readable.from([Buffer.from('root')]))
    trashedFile = await app.files.upload(alice, 'trashed.docx', Readable.from([Buffer.from('trashed')]))
    await app.folders.delete(alice, { folderIds: [], fileIds: [trashedFile.id] }, false, true)
    await app.sharing.setLink(alice, aliceFile.id, 2)
    await app.sharing.setFolderLink(alice, aliceFolder.id, { access: 2 })
    aliceFile = await app.locks.lock(alice, await app.files.get(alice, aliceFile.id), 'alice-tab')
    secrets.push(aliceFolder.id, aliceFile.id, aliceRootFile.id, trashedFile.id)
    secrets.push('secret.docx', 'Private', 'root.docx', 'trashed.docx')
    // Alice's documents are in the search index, so a search could find them.
    await app.search.runPending()

    const carolFile = await app.files.upload(carol, 'carol.docx', Readable.from([Buffer.from('carol')]))
    const link = await app.sharing.setLink(carol, carolFile.id, 1)
    assert.ok(link)
    carolKey = link.key
    ;({ principal: guest } = await app.sharing.linkPrincipal(carolFile.id, carolKey, { id: 'g1', name: 'Guest' }))
    assert.equal(guest.kind, 'link')
    carolKeyHash = guest.kind === 'link' ? guest.keyHash : ''
    // A guest of Carol's folder link: its key opens Carol's folder, never Alice's.
    const carolFolder = await app.folders.create(carol, '@my', 'Carol shares')
    const folderLink = await app.sharing.setFolderLink(carol, carolFolder.id, { access: 1 })
    assert.ok(folderLink)
    carolFolderKey = folderLink.key

    const bobFile = await app.files.upload(bob, 'bob.docx', Readable.from([Buffer.from('bob')]))
    await app.folders.roots(bob)
    bobToken = (await app.wopi.launch(bob, bobFile.id, 'write')).accessToken
  })
  after(() => dispose())

  const CALLBACK = "ONLYOFFICE callback bookkeeping: no principal; its adapter checks Docs' signed token first"
  const ADMIN = 'account administration: the portal calls it after assertAdmin, the CLI as the operator'
  const AUTH = 'authentication: takes credentials and yields a principal, acts on nothing else'

  /** service.method -> how a powerless principal calls it on Alice's things, or why it is exempt. */
  const table = (): Record<string, Entry> => {
    const record = aliceFile
    const items = { folderIds: [aliceFolder.id], fileIds: [aliceFile.id, trashedFile.id] }
    return {
      'files.get': { walks: [(p) => app.files.get(p, aliceFile.id), (p) => app.files.get(p, trashedFile.id, 'edit')] },
      'files.list': { walks: [(p) => app.files.list(p, page)] },
      'files.createBlank': { walks: [(p) => app.files.createBlank(p, 'x.docx', aliceFolder.id)] },
      'files.upload': { walks: [(p) => app.files.upload(p, 'x.docx', body(), undefined, aliceFolder.id)] },
      'files.rename': {
        walks: [(p) => app.files.rename(aliceFile.id, { by: p, title: 'pwned.docx', onClash: 'refuse' })],
      },
      'files.delete': {
        walks: [(p) => app.files.delete(aliceFile.id, { by: p }), (p) => app.files.delete(trashedFile.id, { by: p })],
      },
      'files.storeNewContents': {
        walks: [(p) => app.files.storeNewContents(aliceFile.id, { by: p, body: body(), source: 'upload' })],
      },
      'files.putRelative': {
        walks: [
          (p) =>
            app.files.putRelative(record, {
              by: p,
              target: () => ({ mode: 'specific', name: 'root.docx', overwrite: true }),
              body: body(),
              claim: { kind: 'wopi', lockId: 'alice-tab' },
              meta: {},
            }),
        ],
      },
      'files.stageUpload': {
        walks: [(p) => app.files.stageUpload(p, 'planted.docx', body(), undefined, aliceFolder.id)],
      },
      'files.settleUpload': { exempt: 'places what stageUpload authorized and stored; it takes no id from a request' },
      'files.settleUploads': { exempt: 'places what stageUpload authorized and stored; it takes no id from a request' },
      'files.discardUpload': { exempt: 'drops what stageUpload stored for the same call' },
      'files.presign': { walks: [(p) => app.files.presign(p, aliceFile.id)] },
      'files.openPresigned': {
        exempt:
          "the presigned token is the capability, issued by presign after authorize; its holder's access is checked again on each use",
      },
      'files.settings': { exempt: "reads the caller's own settings, nothing of anyone else" },
      'files.setUpdateIfExist': { exempt: "writes the caller's own setting, nothing of anyone else" },
      'files.setCultureName': { exempt: "writes the caller's own setting, nothing of anyone else" },
      'files.versions': { walks: [(p) => app.files.versions(p, aliceFile.id)] },
      'files.version': { walks: [(p) => app.files.version(p, aliceFile.id, 1)] },
      'files.restore': { walks: [(p) => app.files.restore(p, aliceFile.id, 1)] },
      'files.openBlob': {
        exempt: 'bytes by blob key: keys come only from records a use case has authorized, never from a request',
      },
      'files.readSmallBlob': { exempt: 'bytes by blob key, as openBlob' },
      'files.forLink': {
        exempt: 'the signed download link is the capability; its adapter verifies it (tokens.verify) first',
      },

      'folders.list': { walks: [(p) => app.folders.list(p, aliceFolder.id, listQuery)] },
      'folders.get': { walks: [(p) => app.folders.get(p, aliceFolder.id)] },
      'folders.create': { walks: [(p) => app.folders.create(p, aliceFolder.id, 'Intruder')] },
      'folders.rename': { walks: [(p) => app.folders.rename(p, aliceFolder.id, 'Renamed')] },
      'folders.isInTrash': {
        exempt: 'a fact about a record the caller already holds (the WOPI and editor gates, after authorize)',
      },
      'folders.roots': { walks: [(p) => app.folders.roots(p)] },
      'folders.move': {
        walks: [
          (p) => app.folders.move(p, items, aliceFolder.id, 'overwrite'),
          (p) => app.folders.move(p, items, '@my', 'overwrite'),
        ],
      },
      'folders.copy': {
        walks: [
          (p) => app.folders.copy(p, items, aliceFolder.id, 'overwrite'),
          (p) => app.folders.copy(p, items, '@my', 'overwrite'),
        ],
      },
      'folders.delete': {
        walks: [(p) => app.folders.delete(p, items, true, true), (p) => app.folders.delete(p, items, false, true)],
      },
      'folders.emptyTrash': { walks: [(p) => app.folders.emptyTrash(p)] },
      'folders.conflicts': { walks: [(p) => app.folders.conflicts(p, items, aliceFolder.id)] },
      'folders.restore': { walks: [(p) => app.folders.restore(p, { folderIds: [], fileIds: [trashedFile.id] })] },
      'folders.takeOperations': { walks: [(p) => app.folders.takeOperations(p)] },
      'folders.download': { walks: [(p) => app.folders.download(p, items)] },
      'folders.planArchive': { walks: [(p) => app.folders.planArchive(p, items)] },
      'folders.openArchiveEntry': { walks: [(p) => app.folders.openArchiveEntry(p, aliceFile)] },

      'locks.lock': { walks: [(p) => app.locks.lock(p, record, 'intruder-tab')] },
      'locks.refresh': { walks: [(p) => app.locks.refresh(p, record, 'alice-tab')] },
      'locks.unlock': { walks: [(p) => app.locks.unlock(p, record, 'alice-tab')] },
      'locks.current': { walks: [(p) => app.locks.current(p, record)] },
      'editing.startLocal': { walks: [(p) => app.editing.startLocal(p, aliceFile.id)] },
      'editing.trackLocal': { walks: [(p) => app.editing.trackLocal(p, aliceFile.id, 'any-key', true)] },
      'editing.saveLocal': { walks: [(p) => app.editing.saveLocal(p, aliceFile.id, body(), undefined)] },
      'search.everywhere': { walks: [(p) => app.search.everywhere(p, { text: 'secret', inContent: true, limit: 50 })] },
      'search.inFolder': {
        walks: [
          (p) => app.search.inFolder(p, aliceFolder.id, { text: 'secret', inContent: true, limit: 50 }),
          (p) => app.search.inFolder(p, '@my', { text: 'secret', inContent: true, limit: 50 }),
        ],
      },
      'search.reindex': { exempt: "the operator's `folio search reindex`; no principal, no request reaches it" },
      'search.backlog': { exempt: 'counts for the metrics endpoint, no document content' },
      'search.runPending': {
        exempt: "the operator's command runs the queued jobs; no principal, no request reaches it",
      },
      'conversion.status': { exempt: 'which converter runs: no document, no principal' },
      'conversion.downloadAs': { walks: [(p) => app.conversion.downloadAs(p, aliceFile.id, '.pdf')] },
      'conversion.thumbnail': { walks: [(p) => app.conversion.thumbnail(p, aliceFile.id)] },
      'locks.setUserInfo': { exempt: "writes the caller's own WOPI user info, nothing of anyone else" },
      'locks.info': { walks: [(p) => app.locks.info(p, aliceFile.id)] },
      'locks.release': { walks: [(p) => app.locks.release(p, aliceFile.id)] },
      'locks.held': { exempt: 'a count for the metrics, no principal' },

      'editing.recordEditors': { exempt: CALLBACK },
      'editing.endSession': { exempt: CALLBACK },
      'editing.recordSaveError': { exempt: CALLBACK },
      'conversion.startToOoxml': { walks: [(p) => app.conversion.startToOoxml(p, aliceFile.id, { sync: true })] },
      'conversion.toOoxmlStatus': { walks: [(p) => app.conversion.toOoxmlStatus(p, aliceFile.id)] },
      'conversion.thumbnailStatuses': {
        exempt: 'thumbnail states of files the portal presenter has already authorized',
      },
      'editing.states': { exempt: 'editing states of files the portal presenter has already authorized' },
      'editing.resolveAuthor': { exempt: CALLBACK },
      'editing.saveFromEditor': { exempt: CALLBACK },
      'editing.saveCopy': {
        walks: [
          (p) =>
            app.editing.saveCopy(
              p,
              { sourceFileId: aliceFile.id, title: 'copy.docx', fileType: 'docx', url: 'http://docs/x' },
              () => {
                throw new Error('no fetch may happen')
              },
            ),
        ],
      },
      'editing.changesOf': { exempt: 'a pure reading of a version record' },

      'accounts.createUser': { exempt: ADMIN },
      'accounts.ensureAdmin': { exempt: 'start-up: makes the first admin' },
      'accounts.signIn': { exempt: AUTH },
      'accounts.authenticateToken': { exempt: AUTH },
      'accounts.signOut': { exempt: AUTH },
      'accounts.requireUser': { exempt: ADMIN },
      'accounts.changePassword': { exempt: ADMIN },
      'accounts.setAdmin': { exempt: ADMIN },
      'accounts.removeUser': { exempt: ADMIN },
      'accounts.requireUserById': { exempt: ADMIN },
      'accounts.listUsers': { exempt: ADMIN },
      'accounts.assertAdmin': { walks: [async (p) => app.accounts.assertAdmin(p.user)] },
      'accounts.setPassword': { exempt: ADMIN },
      'accounts.changeOwnPassword': {
        walks: [
          (p) => app.accounts.changeOwnPassword(p, 'a-session-token', 'not-the-current-password', 'a-new-password-1'),
        ],
      },
      'accounts.signOutOtherSessions': {
        exempt: "ends the caller's own other sessions only; touches no one else's account",
      },
      'accounts.updateUser': { exempt: ADMIN },
      'accounts.removeUserById': { exempt: ADMIN },
      'accounts.unlockUser': { exempt: ADMIN },
      'accounts.setUserDisabled': { exempt: ADMIN },
      'accounts.setUsersDisabled': { exempt: ADMIN },
      'accounts.storageUsage': { walks: [(p) => app.accounts.storageUsage(p, [alice.user.id])] },
      'accounts.setQuotas': {
        walks: [(p) => app.accounts.setQuotas(p, [alice.user.id], 0), (p) => app.accounts.setQuotas(p, [p.user.id], 0)],
      },
      'accounts.setUserQuota': { exempt: ADMIN },
      'accounts.everyonesUsage': { exempt: ADMIN },
      'accounts.displayNames': {
        exempt: 'display names of user ids the caller already holds (anyone may find people)',
      },

      'wopi.launch': {
        walks: [(p) => app.wopi.launch(p, aliceFile.id, 'write'), (p) => app.wopi.launch(p, aliceFile.id, 'read')],
      },
      'wopi.launchByLink': {
        walks: [() => app.wopi.launchByLink(aliceFile.id, carolKey, { id: 'g1', name: 'Guest' }, 'read')],
      },
      'wopi.issueToken': {
        exempt: 'a token only: every WOPI call with it decides access from the stored shares (wopi.access)',
      },
      'wopi.access': { walks: [() => app.wopi.access(bobToken, aliceFile.id)] },

      'sharing.list': { walks: [(p) => app.sharing.list(p, aliceFile.id)] },
      'sharing.set': { walks: [(p) => app.sharing.set(p, aliceFile.id, [{ userId: p.user.id, access: 1 }])] },
      'sharing.listFolder': { walks: [(p) => app.sharing.listFolder(p, aliceFolder.id)] },
      'sharing.setFolder': {
        walks: [(p) => app.sharing.setFolder(p, aliceFolder.id, [{ userId: p.user.id, access: 1 }])],
      },
      'sharing.sharedWith': { walks: [(p) => app.sharing.sharedWith(p)] },
      'sharing.sharedPage': { walks: [(p) => app.sharing.sharedPage(p, listQuery)] },
      'sharing.getLink': { walks: [(p) => app.sharing.getLink(p, aliceFile.id)] },
      'sharing.setLink': {
        walks: [(p) => app.sharing.setLink(p, aliceFile.id, 1), (p) => app.sharing.setLink(p, aliceFile.id, 0)],
      },
      'sharing.linkPrincipal': {
        walks: [() => app.sharing.linkPrincipal(aliceFile.id, carolKey, { id: 'g1', name: 'Guest' })],
      },
      'sharing.getFolderLink': { walks: [(p) => app.sharing.getFolderLink(p, aliceFolder.id)] },
      'sharing.setFolderLink': {
        walks: [
          (p) => app.sharing.setFolderLink(p, aliceFolder.id, { access: 1 }),
          (p) => app.sharing.setFolderLink(p, aliceFolder.id, { access: 0 }),
        ],
      },
      'sharing.openFolderLink': {
        walks: [
          () => app.sharing.openFolderLink(aliceFolder.id, carolFolderKey),
          () => app.sharing.openFolderLink(aliceFolder.id, carolKey),
          () => app.sharing.linkPrincipal(aliceFile.id, carolFolderKey, { id: 'g1', name: 'Guest' }),
        ],
      },
      'sharing.sharingOf': {
        exempt: "reads the sharing of the caller's own items only (others' items are left out); writes nothing",
      },
      'conversion.preview': { walks: [(p) => app.conversion.preview(p, aliceFile.id)] },
      'sharing.findPeople': { exempt: 'people search: any signed-in user may find people (names only), by design' },
      'sharing.linkAccess': {
        walks: [async () => assert.equal(await app.sharing.linkAccess(aliceFile.id, carolKeyHash), 'none')],
      },

      'tokens.sign': { exempt: 'signs claims; no principal, no storage' },
      'tokens.verify': { exempt: "checks a token's signature; no storage" },
      'tokens.verifyWopi': { exempt: "checks a token's signature; no storage" },
      authorize: {
        walks: [(p) => app.authorize(p, 'read', aliceFile), (p) => app.authorize(p, 'edit', aliceRootFile)],
      },
      'audit.list': { walks: [(p) => app.audit.list(p.user, { offset: 0, limit: 10 })] },
      'maintenance.runHousekeeping': { exempt: 'operator housekeeping (folio gc): no principal' },
      drain: { exempt: 'waits for running operations: acts on nothing' },
    }
  }

  /** Every method of the App, as 'service.method' (or 'method' for one at the top). */
  function useCases(): string[] {
    const names: string[] = []
    for (const [service, value] of Object.entries(app)) {
      if (typeof value === 'function') names.push(service)
      else if (typeof value === 'object' && value !== null) {
        for (const [method, f] of Object.entries(value)) if (typeof f === 'function') names.push(`${service}.${method}`)
      }
    }
    return names.sort()
  }

  /**
   * What the store holds for every account (Alice's, Bob's and Carol's records, folders,
   * files, versions, shares, links and locks) and every stored blob. Left out: the
   * operations the walk itself ran (each caller's own record of a refused operation).
   */
  async function snapshot(): Promise<string> {
    const out: unknown[] = []
    const walkFolder = async (folder: FolderRecord): Promise<void> => {
      out.push(
        folder,
        await ctx.store.shares.listForItem('folder', folder.id),
        await ctx.store.folderLinks.find(folder.id),
      )
      const files = await ctx.store.files.list({ ...page, limit: 1000, folderId: folder.id })
      for (const file of files.items) {
        out.push(file, await ctx.store.files.listVersions(file.id))
        out.push(await ctx.store.shares.listForItem('file', file.id), await ctx.store.shareLinks.find(file.id))
      }
      const children = await ctx.store.folders.list({ ...page, limit: 1000, parentId: folder.id })
      for (const child of children.items) await walkFolder(child)
    }
    for (const user of await ctx.store.users.list()) {
      out.push(user)
      for (const rootType of ['my', 'trash'] as const) {
        const root = await ctx.store.folders.findRoot(user.id, rootType)
        out.push(root?.id ?? null)
        if (root) await walkFolder(root)
      }
    }
    const blobs: unknown[] = []
    for await (const blob of ctx.blobs.list()) blobs.push(blob)
    out.push(blobs.map((blob) => JSON.stringify(blob)).sort())
    return JSON.stringify(out)
  }

  test('every use case has an entry: a walk, or an exemption with its reason', () => {
    const entries = table()
    const missing = useCases().filter((name) => !(name in entries))
    assert.deepEqual(missing, [], 'use cases without a walk entry')
    const stale = Object.keys(entries).filter((name) => !useCases().includes(name))
    assert.deepEqual(stale, [], 'walk entries for use cases that no longer exist')
  })

  const walkers = [
    ['a signed-in user with no shares', () => bob],
    ['a guest of an unrelated link', () => guest],
  ] as const
  for (const [label, who] of walkers) {
    test(`${label}: every call on Alice's things is refused or returns nothing of hers, and nothing changes`, async () => {
      const before = await snapshot()
      for (const [name, entry] of Object.entries(table())) {
        if (!('walks' in entry)) continue
        for (const [i, walk] of entry.walks.entries()) {
          let value: unknown
          try {
            value = await walk(who())
          } catch (error) {
            assert.ok(isDomainError(error) && REFUSALS.has(error.code), `${name} #${i}: ${String(error)}`)
            continue
          }
          const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof Map ? [...v] : v)) ?? ''
          for (const secret of secrets) assert.equal(text.includes(secret), false, `${name} #${i} returned ${secret}`)
        }
      }
      await app.drain()
      assert.equal(await snapshot(), before, 'nothing stored changed')
      // A link guest has no folders of his own: none is made for him on the way.
      for (const rootType of ['my', 'trash'] as const) {
        const root = await ctx.store.folders.findRoot(guest.user.id, rootType)
        assert.equal(root, undefined, `a ${rootType} root for the guest`)
      }
    })
  }
})
