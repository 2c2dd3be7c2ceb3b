import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, test } from 'node:test'
import { changePassword, createUser } from '../../src/app/accounts/accounts.js'
import { FOLIO_BIN } from '../support/folio-command.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { testMetadata, type TestMetadata } from '../support/postgres.js'
import { call } from '../support/portal-client.js'

const LIMIT = 5
const run = promisify(execFile)

/** Sends `count` sign-ins for `userName` at once, spread over `servers`; returns the statuses. */
async function burst(
  servers: TestServer[],
  userName: string,
  count: number,
  password = 'wrong-password',
): Promise<number[]> {
  const replies = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      call(servers[i % servers.length]?.url ?? '', 'POST', '/api/2.0/authentication.json', {
        body: { userName, password },
        // Spread over addresses so only the per-user budget is in play.
        headers: { 'X-Forwarded-For': `10.1.${Math.floor(i / 250)}.${i % 250}` },
      }),
    ),
  )
  return replies.map((reply) => reply.status)
}

function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1
  return counts
}

describe('sign-in throttle under parallel attempts', () => {
  let first: TestServer
  let second: TestServer
  // SQLite in the data folder, or one PostgreSQL schema (npm run test:postgres): both
  // instances and the CLI use the same store.
  let metadata: TestMetadata
  const cliEnv = (): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    FOLIO_DATA_DIR: first.dataDir,
    FOLIO_LOG_LEVEL: 'warn',
    ...metadata.settings,
  })

  before(async () => {
    const settings = { FOLIO_LOGIN_MAX_FAILURES: String(LIMIT), FOLIO_TRUST_PROXY: 'true' }
    metadata = testMetadata()
    first = await startTestServer(settings, { metadata })
    // A second instance on the same data folder and metadata: the throttle lives in the shared store.
    second = await startTestServer(settings, { dataDir: first.dataDir, metadata })
    for (const userName of ['burst50', 'burst200', 'locked-admin']) {
      await createUser(first.ctx, { userName, password: 'the-right-password', isAdmin: true })
    }
  })
  after(async () => {
    await second.stop()
    await first.dispose()
  })

  // Each attempt is counted in one atomic step before its password is checked, and every
  // attempt comes from an address of its own: exactly the limit's worth get to be wrong
  // (fewer would mean an attempt refused before the user's budget was spent).
  test('finding 1: 50 parallel wrong attempts for one user get exactly the limit of 401s, the rest 429', async () => {
    const counts = tally(await burst([first], 'burst50', 50))
    assert.equal(counts[401] ?? 0, LIMIT, JSON.stringify(counts))
    assert.equal((counts[401] ?? 0) + (counts[429] ?? 0), 50, JSON.stringify(counts))
  })

  test('finding 1: 200 parallel attempts over two instances sharing the store: exactly the limit of 401s', async () => {
    const counts = tally(await burst([first, second], 'burst200', 200))
    console.log(`finding 1 figure: 200-attempt burst over 2 instances -> ${JSON.stringify(counts)}`)
    assert.equal(counts[401] ?? 0, LIMIT, JSON.stringify(counts))
    assert.equal((counts[401] ?? 0) + (counts[429] ?? 0), 200, JSON.stringify(counts))
    // Even the right password waits out the lock-out.
    const right = await burst([first], 'burst200', 1, 'the-right-password')
    assert.deepEqual(right, [429])
  })

  test('finding 7: a password change lifts the lock-out of that user', async () => {
    await burst([first], 'locked-admin', LIMIT + 1)
    assert.deepEqual(await burst([first], 'locked-admin', 1, 'the-right-password'), [429])
    await changePassword(first.ctx, 'locked-admin', 'a-new-password')
    assert.deepEqual(await burst([first], 'locked-admin', 1, 'a-new-password'), [201])
  })

  test('finding 7: `folio user unlock NAME` lifts the lock-out', async () => {
    await burst([first], 'burst50', 1)
    assert.deepEqual(await burst([first], 'burst50', 1, 'the-right-password'), [429])
    const { stdout } = await run(process.execPath, [FOLIO_BIN, 'user', 'unlock', 'BURST50'], {
      env: cliEnv(),
    })
    assert.match(stdout, /unlocked/)
    assert.deepEqual(await burst([first], 'burst50', 1, 'the-right-password'), [201])
    await assert.rejects(
      run(process.execPath, [FOLIO_BIN, 'user', 'unlock', 'nobody'], { env: cliEnv() }),
      /no user named nobody/,
    )
  })
})
