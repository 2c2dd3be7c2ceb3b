import { describe } from 'node:test'
import { runSearchStoreContract } from '../../../test/contract/search-store.contract.js'
import { dropSchema, postgresSkipReason, TEST_DATABASE_URL, uniqueSchemaName } from '../../../test/support/postgres.js'
import { openPostgresStore } from './index.js'

const skip = await postgresSkipReason()

describe('postgres search store', { skip }, () => {
  runSearchStoreContract('postgres', async () => {
    const schema = uniqueSchemaName()
    const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema })
    return {
      store,
      openAnother: () => openPostgresStore({ url: TEST_DATABASE_URL, schema }),
      cleanup: async () => {
        await store.close()
        await dropSchema(schema)
      },
    }
  })
})
