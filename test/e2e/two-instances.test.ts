/**
 * Two Folio processes (`node bin/folio.js serve`, as in production) on one PostgreSQL
 * schema and one S3 bucket, with no sticky sessions: whatever one instance decides or
 * stores, the other sees at once, and killing one mid-upload tears nothing.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { paginateListObjectsV2 } from '@aws-sdk/client-s3'
import { startFolioProcess, type FolioProcess } from '../../bench/folio-process.js'
import { startDocsSimulator, type DocsSimulator } from '../support/docs-server-simulator.js'
import { call, type ApiReply } from '../support/portal-client.js'
import {
  dropSchema,
  postgresSkipReason,
  queryTestDatabase,
  TEST_DATABASE_URL,
  uniqueSchemaName,
} from '../support/postgres.js'
import {
  findS3TestServer,
  removeBucket,
  s3SkipReason,
  s3TestClient,
  uniqueBucketName,
} from '../support/s3-test-server.js'

const JWT_SECRET = 'folio-two-instances-docs-secret'
const LOGIN_LIMIT = 5

const pgSkip = await postgresSkipReason()
const s3 = await findS3TestServer()
const skip = pgSkip ?? ('unreachable' in s3 ? s3SkipReason(s3.unreachable) : false)

describe('two Folio instances on one PostgreSQL schema and one S3 bucket', { skip }, () => {
  const schema = uniqueSchemaName('folio_two')
  const bucket = uniqueBucketName()
  const settings = 'settings' in s3 ? s3.settings : undefined
  let a: FolioProcess
  let b: FolioProcess
  let sim: DocsSimulator
  let dataDirs: string[] = []
  let token = ''

  const env = (): Record<string, string> => ({
    FOLIO_DATABASE_URL: TEST_DATABASE_URL,
    FOLIO_DATABASE_SCHEMA: schema,
    FOLIO_S3_BUCKET: bucket,
    FOLIO_S3_ENDPOINT: settings?.endpoint ?? '',
    FOLIO_S3_REGION: settings?.region ?? 'us-east-1',
    FOLIO_S3_ACCESS_KEY_ID: settings?.accessKeyId ?? '',
    FOLIO_S3_SECRET_ACCESS_KEY: settings?.secretAccessKey ?? '',
    FOLIO_S3_FORCE_PATH_STYLE: 'true',
    FOLIO_DOCS_URL: sim.publicUrl,
    FOLIO_DOCS_INTERNAL_URL: sim.url,
    FOLIO_DOCS_JWT_SECRET: JWT_SECRET,
    FOLIO_LOGIN_MAX_FAILURES: String(LOGIN_LIMIT),
    FOLIO_TRUST_PROXY: 'true',
  })

  const start = async (label: string): Promise<FolioProcess> => {
    // Each instance gets a data folder of its own: nothing may be shared through it.
    const dataDir = await mkdtemp(join(tmpdir(), `folio-two-${label}-`))
    dataDirs.push(dataDir)
    return startFolioProcess({ dataDir, env: env(), label: `Folio ${label}` })
  }

  const upload = async (on: FolioProcess, title: string, content: string): Promise<string> => {
    const reply = await call(on.url, 'POST', `/api/2.0/files/@my/upload?title=${encodeURIComponent(title)}`, {
      token,
      raw: content,
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }
  const wopiToken = async (on: FolioProcess, fileId: string): Promise<string> => {
    const reply = await call(on.url, 'POST', `/api/2.0/files/file/${fileId}/wopi?mode=edit`, { token })
    assert.equal(reply.status, 200, reply.text)
    return reply.json.response.accessToken
  }
  const wopi = (
    on: FolioProcess,
    fileId: string,
    accessToken: string,
    input: { contents?: boolean; method?: string; override?: string; lock?: string; body?: string } = {},
  ): Promise<ApiReply> => {
    const headers: Record<string, string> = {}
    if (input.override) headers['X-WOPI-Override'] = input.override
    if (input.lock !== undefined) headers['X-WOPI-Lock'] = input.lock
    const path = `/wopi/files/${fileId}${input.contents ? '/contents' : ''}?access_token=${encodeURIComponent(accessToken)}`
    return call(on.url, input.method ?? 'POST', path, {
      headers,
      ...(input.body === undefined ? {} : { raw: input.body }),
    })
  }
  const objectKeys = async (): Promise<string[]> => {
    if (!settings) return []
    const client = s3TestClient(settings)
    const keys: string[] = []
    for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket })) {
      for (const object of page.Contents ?? []) keys.push(object.Key ?? '')
    }
    client.destroy()
    return keys.sort()
  }

  before(async () => {
    sim = await startDocsSimulator({ saveDelayMs: 20, retryBaseMs: 100, downloadRetryMs: 50, jwtSecret: JWT_SECRET })
  })
  after(async () => {
    await a?.stop('SIGKILL').catch(() => undefined)
    await b?.stop('SIGKILL').catch(() => undefined)
    await sim?.close()
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true })
    await dropSchema(schema)
    if (settings) {
      const client = s3TestClient(settings)
      await removeBucket(client, bucket).catch(() => undefined)
      client.destroy()
    }
  })

  test('both started at the same moment on an empty schema migrate once and both serve', async () => {
    ;[a, b] = await Promise.all([start('A'), start('B')])
    const rows = await queryTestDatabase<{ version: number; n: number }>(
      `SELECT version, count(*)::int AS n FROM "${schema}".schema_migrations GROUP BY version ORDER BY version`,
    )
    assert.ok(rows.length >= 4, JSON.stringify(rows))
    assert.ok(
      rows.every((row) => row.n === 1),
      JSON.stringify(rows),
    )
    const admins = await queryTestDatabase<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}".users WHERE user_name_key = 'admin'`,
    )
    assert.equal(admins[0]?.n, 1)
    token = await a.signIn()
    assert.equal((await call(b.url, 'GET', '/readyz')).status, 200)
  })

  test('a portal session and a WOPI token minted by A work on B; a session revoked on A is refused on B', async () => {
    const id = await upload(a, 'minted-on-a.txt', 'made on A')
    const accessToken = await wopiToken(a, id)
    const got = await wopi(b, id, accessToken, { contents: true, method: 'GET' })
    assert.equal(got.status, 200)
    assert.equal(got.text, 'made on A')

    const session = await a.signIn()
    const self = () => call(b.url, 'GET', '/api/2.0/people/@self.json', { token: session })
    assert.equal((await self()).status, 200)
    assert.equal((await call(a.url, 'POST', '/api/2.0/authentication/logout', { token: session })).status, 200)
    assert.equal((await self()).status, 401)
  })

  test('1,000 concurrent Locks with different lock ids, spread over both instances, give exactly one 200', async () => {
    const id = await upload(a, 'contended.docx', 'contended')
    const tokens = [await wopiToken(a, id), await wopiToken(b, id)]
    const replies = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => {
        const on = i % 2 === 0 ? a : b
        return wopi(on, id, tokens[i % 2] ?? '', { override: 'LOCK', lock: `lock-${i}` })
      }),
    )
    const statuses: Record<number, number> = {}
    for (const reply of replies) statuses[reply.status] = (statuses[reply.status] ?? 0) + 1
    assert.deepEqual(statuses, { 200: 1, 409: 999 })
    const winner = replies.findIndex((reply) => reply.status === 200)
    // Every loser was told the winner's lock id, on whichever instance it asked.
    for (const reply of replies) {
      if (reply.status === 409) assert.equal(reply.headers.get('x-wopi-lock'), `lock-${winner}`)
    }
    for (const on of [a, b]) {
      const lock = await wopi(on, id, tokens[0] ?? '', { override: 'GET_LOCK', lock: '' })
      assert.equal(lock.headers.get('x-wopi-lock'), `lock-${winner}`)
    }
  })

  test('a PutFile through A is what B serves next, though B had read the file before', async () => {
    const id = await upload(a, 'put-on-a.docx', 'first')
    const accessToken = await wopiToken(a, id)
    const before = await wopi(b, id, accessToken, { contents: true, method: 'GET' })
    assert.equal(before.text, 'first')
    assert.equal((await wopi(a, id, accessToken, { override: 'LOCK', lock: 'L-A' })).status, 200)
    const put = await wopi(a, id, accessToken, {
      contents: true,
      override: 'PUT',
      lock: 'L-A',
      body: 'second, through A',
    })
    assert.equal(put.status, 200, put.text)
    const after = await wopi(b, id, accessToken, { contents: true, method: 'GET' })
    assert.equal(after.text, 'second, through A')
    assert.equal(after.headers.get('x-wopi-itemversion'), put.headers.get('x-wopi-itemversion'))
    // The lock taken on A is released on B.
    assert.equal((await wopi(b, id, accessToken, { override: 'UNLOCK', lock: 'L-A' })).status, 200)
  })

  test("a status-2 save through A is what B's CheckFileInfo and GetFile return at once", async () => {
    const id = await upload(a, 'saved-through-a.docx', 'before the editor')
    const opened = await call(a.url, 'GET', `/api/2.0/files/file/${id}/openedit`, { token })
    assert.equal(opened.status, 200, opened.text)
    const config = opened.json.response
    assert.ok(String(config.editorConfig.callbackUrl).startsWith(a.url), 'the callback goes to A')
    const session = await sim.openEditor(config)
    const saved = 'written in the editor, saved through A'
    session.edit(new TextEncoder().encode(saved))
    await session.disconnect()
    const callback = [...sim.callbacks].reverse().find((sent) => sent.body.status === 2)
    assert.equal(callback?.ok, true, callback?.reply)

    const accessToken = await wopiToken(b, id)
    const info = await wopi(b, id, accessToken, { method: 'GET' })
    assert.equal(info.status, 200)
    assert.equal(info.json.Size, Buffer.byteLength(saved))
    assert.equal(info.json.SHA256, createHash('sha256').update(saved).digest('base64'))
    const got = await wopi(b, id, accessToken, { contents: true, method: 'GET' })
    assert.equal(got.text, saved)
    assert.equal(got.headers.get('x-wopi-itemversion'), info.json.Version)
  })

  test('the sign-in throttle counts failures made on both instances', async () => {
    const create = await call(a.url, 'POST', '/api/2.0/people', {
      token,
      body: { userName: 'throttled', password: 'the-right-password' },
    })
    assert.ok(create.status < 300, create.text)
    const attempt = (on: FolioProcess, i: number, password: string) =>
      call(on.url, 'POST', '/api/2.0/authentication.json', {
        body: { userName: 'throttled', password },
        // A different address each time, so only the per-user budget is in play.
        headers: { 'X-Forwarded-For': `10.9.0.${i + 1}` },
      })
    const statuses: number[] = []
    for (let i = 0; i < LOGIN_LIMIT; i++) statuses.push((await attempt(i % 2 === 0 ? a : b, i, 'wrong')).status)
    assert.deepEqual(
      statuses,
      Array.from({ length: LOGIN_LIMIT }, () => 401),
    )
    // Neither instance alone saw the limit, yet both now refuse even the right password.
    assert.equal((await attempt(a, 50, 'the-right-password')).status, 429)
    assert.equal((await attempt(b, 51, 'the-right-password')).status, 429)
  })

  test('storage usage and a quota set on A hold on B at once: both refuse the upload past it and report the same usedSpace', async () => {
    const self = async (on: FolioProcess) =>
      (await call(on.url, 'GET', '/api/2.0/people/@self', { token })).json.response
    const adminId: string = (await self(a)).id
    const used: number = (await self(a)).usedSpace
    assert.equal((await self(b)).usedSpace, used)
    const set = await call(a.url, 'PUT', '/api/2.0/people/userquota', {
      token,
      body: { userIds: [adminId], quota: used + 12 },
    })
    assert.equal(set.status, 200, set.text)
    assert.equal((await self(b)).quotaLimit, used + 12)
    await upload(b, 'quota-b.bin', '1234567890')
    assert.equal((await self(a)).usedSpace, used + 10, 'A sees what B stored')
    for (const on of [a, b]) {
      const refused = await call(on.url, 'POST', '/api/2.0/files/@my/upload?title=quota-over.bin', {
        token,
        raw: 'abc',
        headers: { 'Content-Type': 'application/octet-stream' },
      })
      assert.equal(refused.status, 413, refused.text)
      assert.equal(refused.json.error.type, 'QUOTA_EXCEEDED')
    }
    assert.deepEqual([(await self(a)).usedSpace, (await self(b)).usedSpace], [used + 10, used + 10])
    await upload(a, 'quota-a.bin', '12')
    assert.deepEqual([(await self(a)).usedSpace, (await self(b)).usedSpace], [used + 12, used + 12])
    const removed = await call(b.url, 'PUT', '/api/2.0/people/userquota', {
      token,
      body: { userIds: [adminId], quota: -1 },
    })
    assert.equal(removed.status, 200, removed.text)
    assert.equal((await self(a)).quotaLimit, -1)
  })

  test('kill -9 of A in the middle of a 200 MiB PutFile: B serves the old contents and nothing is torn', async () => {
    const id = await upload(a, 'big.bin', 'the old contents')
    const accessToken = await wopiToken(a, id)
    assert.equal((await wopi(a, id, accessToken, { override: 'LOCK', lock: 'big' })).status, 200)
    const infoBefore = await wopi(b, id, accessToken, { method: 'GET' })
    const keysBefore = await objectKeys()

    const total = 200 * 1024 * 1024
    const chunk = Buffer.alloc(1024 * 1024, 7)
    const url = new URL(`${a.url}/wopi/files/${id}/contents?access_token=${encodeURIComponent(accessToken)}`)
    const outcome = await new Promise<string>((resolve) => {
      const req = request(url, {
        method: 'POST',
        headers: {
          'X-WOPI-Override': 'PUT',
          'X-WOPI-Lock': 'big',
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(total),
        },
      })
      req.on('response', (response) => {
        response.resume()
        resolve(`answered ${response.statusCode}`)
      })
      req.on('error', () => resolve('cut off'))
      let sent = 0
      const pump = (): void => {
        while (sent < total) {
          if (sent === 64 * chunk.length) {
            // A quarter of the body is on its way: the process dies without any clean-up.
            sent += chunk.length
            void a.stop('SIGKILL')
            return
          }
          sent += chunk.length
          if (!req.write(chunk)) {
            req.once('drain', pump)
            return
          }
        }
        req.end()
      }
      pump()
    })
    assert.equal(outcome, 'cut off')

    const infoAfter = await wopi(b, id, accessToken, { method: 'GET' })
    assert.equal(infoAfter.status, 200)
    assert.equal(infoAfter.json.Version, infoBefore.json.Version, 'no version was committed')
    assert.equal(infoAfter.json.Size, infoBefore.json.Size)
    const got = await wopi(b, id, accessToken, { contents: true, method: 'GET' })
    assert.equal(got.text, 'the old contents')
    assert.deepEqual(await objectKeys(), keysBefore, 'the half-sent object never appeared')
    // The lock taken on A outlives A: it is in the database.
    const lock = await wopi(b, id, accessToken, { override: 'GET_LOCK', lock: '' })
    assert.equal(lock.headers.get('x-wopi-lock'), 'big')
  })
})
