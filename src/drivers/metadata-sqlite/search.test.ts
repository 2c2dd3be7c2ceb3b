import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runSearchStoreContract } from '../../../test/contract/search-store.contract.js'
import { openSqliteStore } from './index.js'

runSearchStoreContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'folio-sqlite-search-'))
  const path = join(dir, 'folio.db')
  const store = await openSqliteStore({ path })
  return {
    store,
    openAnother: () => openSqliteStore({ path }),
    cleanup: async () => {
      await store.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
})
