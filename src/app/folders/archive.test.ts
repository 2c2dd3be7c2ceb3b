import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { isDomainError } from '../../core/errors.js'
import { openTestContext } from '../../../test/support/app-context.js'
import { userPrincipal, type Principal } from '../access.js'
import { MAX_ARCHIVE_ENTRIES } from './archive.js'
import type { AppContext } from '../context.js'
import { createApp, type App } from '../create-app.js'

const body = (text: string) => Readable.from([Buffer.from(text)])

// The plan of a download of several items, over a real SQLite file, without HTTP.
describe('downloads of several items (app/folders/archive.ts)', () => {
  let ctx: AppContext
  let app: App
  let dispose: () => Promise<void>
  let owner: Principal

  before(async () => {
    ;({ ctx, dispose } = await openTestContext('folio-archive-'))
    app = createApp(ctx)
    owner = userPrincipal(await app.accounts.createUser({ userName: 'ann', password: 'ann-password-1' }))
  })
  after(() => dispose())

  test('paths are the titles joined by "/", folders first in each folder, empty folders kept', async () => {
    const top = await app.folders.create(owner, '@my', 'Top')
    const sub = await app.folders.create(owner, top.id, 'Sub')
    await app.folders.create(owner, sub.id, 'Empty')
    await app.files.upload(owner, 'b.txt', body('b'), undefined, top.id)
    await app.files.upload(owner, 'a.txt', body('a'), undefined, sub.id)
    const plan = await app.folders.planArchive(owner, { folderIds: [top.id], fileIds: [] })
    assert.equal(plan.name, 'Top.zip')
    assert.deepEqual(
      plan.entries.map((entry) => `${entry.kind} ${entry.path}`),
      ['folder Top', 'file Top/b.txt', 'folder Top/Sub', 'file Top/Sub/a.txt', 'folder Top/Sub/Empty'],
    )
  })

  test(`a download of more than ${MAX_ARCHIVE_ENTRIES} items is refused before anything is sent`, async () => {
    const many = await app.folders.create(owner, '@my', 'Many')
    const now = ctx.clock.now()
    // Rows straight into the store: ten thousand uploads through the app would only be slower.
    const template = await app.files.upload(owner, 'template.txt', body('t'), undefined, many.id)
    // A hundred at a time, so SQLite commits each hundred together and a PostgreSQL pool
    // is not asked for more connections than it has.
    for (let start = 0; start < MAX_ARCHIVE_ENTRIES; start += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, k) => {
          const i = start + k
          return ctx.store.files.create(
            { ...template, id: `many-${i}`, title: `file-${i}.txt`, createdAt: now, updatedAt: now },
            {
              fileId: `many-${i}`,
              version: 1,
              size: template.size,
              sha256: template.sha256,
              blobKey: template.blobKey,
              createdAt: now,
              createdBy: owner.user.id,
              source: 'upload',
              meta: {},
            },
          )
        }),
      )
    }
    await assert.rejects(
      app.folders.planArchive(owner, { folderIds: [many.id], fileIds: [] }),
      (error: unknown) =>
        isDomainError(error) && error.code === 'INVALID_INPUT' && /at most 10,000/.test(error.message),
    )
  })
})
