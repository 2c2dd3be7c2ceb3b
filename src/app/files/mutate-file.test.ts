import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { DomainError, isDomainError } from '../../core/errors.js'
import type { FileRecord } from '../../core/entities.js'
import type { FilePatch } from '../../ports/metadata-store.js'
import { openTestContext } from '../../../test/support/app-context.js'
import type { AppContext } from '../context.js'
import { commitNewVersion, createFileFromBlob, getFile, mutateFile, type NewVersionInput } from './files.js'

const HOUR = 60 * 60 * 1000

/** A Lock decision: refuses while anyone holds the file, else takes it for `lockId`. */
function takeLock(lockId: string) {
  return (file: FileRecord): FilePatch => {
    if (file.lock !== null) {
      throw new DomainError('LOCK_MISMATCH', 'locked', { currentLock: file.lock.lockId })
    }
    return { lock: { lockId, expiresAt: Date.now() + HOUR } }
  }
}

describe('mutateFile and commitNewVersion starting from a record the caller read', () => {
  let ctx: AppContext
  let dispose: () => Promise<void>

  before(async () => {
    ;({ ctx, dispose } = await openTestContext('folio-app-mutate-'))
  })
  after(() => dispose())

  const storeText = (text: string) => ctx.blobs.put(Readable.from([Buffer.from(text)]), { maxBytes: 1024 })

  const create = async (title: string) => {
    const blob = await storeText(title)
    return createFileFromBlob(ctx, { ownerId: 'u-owner', title, blob, source: 'upload' })
  }

  test('a write decided on a stale record is refused by the CAS and decided again', async () => {
    const file = await create('stale-write.docx')
    const stale = await getFile(ctx, file.id)
    await mutateFile(ctx, file.id, takeLock('first'))
    await assert.rejects(
      mutateFile(ctx, file.id, takeLock('second'), stale),
      (error) => isDomainError(error) && error.details.currentLock === 'first',
    )
    assert.equal((await getFile(ctx, file.id)).lock?.lockId, 'first')
  })

  test('a refusal on the given record is taken again on the fresh row', async () => {
    const file = await create('stale-refusal.docx')
    await mutateFile(ctx, file.id, takeLock('gone'))
    const stale = await getFile(ctx, file.id)
    await mutateFile(ctx, file.id, () => ({ lock: null }))
    const locked = await mutateFile(ctx, file.id, takeLock('mine'), stale)
    assert.equal(locked.lock?.lockId, 'mine')
  })

  test('a no-op on the given record is taken again on the fresh row', async () => {
    const file = await create('Before.docx')
    const stale = await getFile(ctx, file.id)
    await mutateFile(ctx, file.id, () => ({ title: 'Renamed.docx' }))
    const back = await mutateFile(
      ctx,
      file.id,
      (fresh) => (fresh.title === 'Before.docx' ? undefined : { title: 'Before.docx' }),
      stale,
    )
    assert.equal(back.title, 'Before.docx')
    assert.equal((await getFile(ctx, file.id)).title, 'Before.docx')
  })

  test('a record of another file is refused', async () => {
    const one = await create('one.docx')
    const other = await create('other.docx')
    const rename = () => ({ title: 'x.docx' })
    await assert.rejects(mutateFile(ctx, one.id, rename, other), /given for/)
    assert.equal((await getFile(ctx, one.id)).title, 'one.docx')
  })

  test('a new version from a stale record lands on top of versions added meanwhile', async () => {
    const file = await create('versions.docx')
    const stale = await getFile(ctx, file.id)
    const save = async (): Promise<NewVersionInput> => ({
      blob: await storeText('v'),
      userId: 'u-owner',
      source: 'wopi',
    })
    await commitNewVersion(ctx, file.id, await save())
    const saved = await commitNewVersion(ctx, file.id, { ...(await save()), current: stale })
    assert.equal(saved.version, 3)
    assert.deepEqual(
      (await ctx.store.files.listVersions(file.id)).map((v) => v.version),
      [1, 2, 3],
    )
  })

  test('a precondition refusing the given record is asked again on the fresh row', async () => {
    const file = await create('precondition.docx')
    await mutateFile(ctx, file.id, takeLock('someone'))
    const stale = await getFile(ctx, file.id)
    await mutateFile(ctx, file.id, () => ({ lock: null }))
    const saved = await commitNewVersion(ctx, file.id, {
      blob: await storeText('new'),
      userId: 'u-owner',
      source: 'wopi',
      current: stale,
      precondition: (fresh) => {
        if (fresh.lock !== null) throw new DomainError('LOCK_MISMATCH', 'locked')
      },
    })
    assert.equal(saved.version, 2)
  })
})
