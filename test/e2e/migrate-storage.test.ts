/**
 * `folio migrate-storage` (the real command, `node bin/folio.js`) moving a single-machine
 * install (SQLite + blob folder) into PostgreSQL + S3, then Folio serving it from there
 * with the same ids, versions, authors, bytes, lock, shares, link, passwords and tokens;
 * an interrupted run continues when run again; a busy source and a foreign target are refused.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { paginateListObjectsV2 } from '@aws-sdk/client-s3'
import Database from 'better-sqlite3'
import { runFolio } from '../support/folio-command.js'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'
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

const BOB_PASSWORD = 'bob-password-for-migration'

const pgSkip = await postgresSkipReason()
const s3 = await findS3TestServer()
const skip = pgSkip ?? ('unreachable' in s3 ? s3SkipReason(s3.unreachable) : false)

/** The source stays on SQLite and the blob folder whatever FOLIO_TEST_METADATA says. */
const singleMachine = { settings: {}, dispose: async () => undefined }

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/**
 * Runs the real `folio` command. `killWhen` sees each line of standard output as it
 * comes; when it returns true the process is killed with SIGKILL at once.
 */
const folio = (args: string[], env: Record<string, string>, killWhen?: (line: string) => boolean) =>
  runFolio(args, env, { killWhen })

describe('folio migrate-storage: SQLite + blob folder to PostgreSQL + S3', { skip }, () => {
  const settings = 'settings' in s3 ? s3.settings : undefined
  const schemas: string[] = []
  const buckets: string[] = []
  const dirs: string[] = []
  let source: TestServer
  let sourceDir = ''
  let adminToken = ''
  let bobToken = ''
  let reportId = ''
  let linkedId = ''
  let trashedId = ''
  let projectsId = ''
  let wopiToken = ''
  /** SHA-256 of each version of the report, by version number. */
  const reportBytes = new Map<number, string>()
  const LOCK = 'lock-held-across-the-move'

  /** Settings of a fresh target: a schema and a bucket of their own. */
  const newTarget = (): Record<string, string> => {
    const schema = uniqueSchemaName('folio_move')
    const bucket = uniqueBucketName()
    schemas.push(schema)
    buckets.push(bucket)
    return {
      FOLIO_DATABASE_URL: TEST_DATABASE_URL,
      FOLIO_DATABASE_SCHEMA: schema,
      FOLIO_S3_BUCKET: bucket,
      FOLIO_S3_ENDPOINT: settings?.endpoint ?? '',
      FOLIO_S3_REGION: settings?.region ?? 'us-east-1',
      FOLIO_S3_ACCESS_KEY_ID: settings?.accessKeyId ?? '',
      FOLIO_S3_SECRET_ACCESS_KEY: settings?.secretAccessKey ?? '',
      FOLIO_S3_FORCE_PATH_STYLE: 'true',
    }
  }

  const objectCount = async (bucket: string): Promise<number> => {
    if (!settings) return 0
    const client = s3TestClient(settings)
    let count = 0
    try {
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket }))
        count += page.Contents?.length ?? 0
    } finally {
      client.destroy()
    }
    return count
  }

  const rowCount = async (schema: string, table: string): Promise<number> => {
    const rows = await queryTestDatabase<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".${table}`)
    return rows[0]?.n ?? -1
  }

  /** What the source's database holds, read straight from the file once Folio stopped. */
  const sourceFacts = (): { blobs: number; files: number; versions: number; audit: number } => {
    const db = new Database(join(sourceDir, 'folio.db'), { readonly: true })
    try {
      const one = (sql: string): number => Number(db.prepare(sql).pluck().get())
      return {
        blobs: one('SELECT count(DISTINCT blob_key) FROM versions'),
        files: one('SELECT count(*) FROM files'),
        versions: one('SELECT count(*) FROM versions'),
        audit: one('SELECT count(*) FROM audit_events'),
      }
    } finally {
      db.close()
    }
  }

  const upload = async (folder: string, title: string, bytes: Uint8Array, token = adminToken): Promise<string> => {
    const reply = await call(source.url, 'POST', `/api/2.0/files/${folder}/upload?title=${encodeURIComponent(title)}`, {
      token,
      raw: Buffer.from(bytes),
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  const wopi = (
    base: string,
    fileId: string,
    accessToken: string,
    headers: Record<string, string>,
    body?: Uint8Array,
  ) =>
    call(
      base,
      'POST',
      `/wopi/files/${fileId}${body ? '/contents' : ''}?access_token=${encodeURIComponent(accessToken)}`,
      {
        headers,
        ...(body ? { raw: Buffer.from(body) } : {}),
      },
    )

  const accessTokenFor = async (base: string, token: string, fileId: string): Promise<string> => {
    const reply = await call(base, 'POST', `/api/2.0/files/file/${fileId}/wopi?mode=edit`, { token })
    assert.equal(reply.status, 200, reply.text)
    return reply.json.response.accessToken
  }

  /** The file record, its history and each version's bytes as an API client sees them. */
  const describeFile = async (base: string, token: string, fileId: string) => {
    const file = await call(base, 'GET', `/api/2.0/files/file/${fileId}`, { token })
    assert.equal(file.status, 200, file.text)
    const history = await call(base, 'GET', `/api/2.0/files/file/${fileId}/history`, { token })
    assert.equal(history.status, 200, history.text)
    const versions = []
    for (const v of history.json.response) {
      const download = await fetch(`${base}/api/2.0/files/file/${fileId}/version/${v.version}/download`, {
        headers: { Authorization: token },
      })
      assert.equal(download.status, 200)
      versions.push({
        version: v.version,
        created: v.created,
        author: v.author.id,
        size: v.size,
        sha256: v.sha256,
        source: v.source,
        bytes: sha256(new Uint8Array(await download.arrayBuffer())),
      })
    }
    const { id, title, version, created, updated, createdBy, updatedBy, folderId, contentLength } = file.json.response
    return { id, title, version, created, updated, createdBy, updatedBy, folderId, contentLength, versions }
  }

  /** A file's link without the server's address (the key and access must survive the move). */
  const linkOf = (reply: ApiReply) => {
    const { shareLink, ...rest } = reply.json.response.sharedTo
    const url = new URL(shareLink)
    return { ...reply.json.response, sharedTo: { ...rest, shareLink: url.pathname + url.search } }
  }

  before(async () => {
    source = await startTestServer({}, { metadata: singleMachine })
    sourceDir = source.dataDir
    adminToken = await signIn(source.url)
    const { createUser } = await import('../../src/app/accounts/accounts.js')
    await createUser(source.ctx, { userName: 'bob', password: BOB_PASSWORD })
    bobToken = await signIn(source.url, 'bob', BOB_PASSWORD)

    const folder = await call(source.url, 'POST', '/api/2.0/files/folder/@my', {
      token: adminToken,
      body: { title: 'Projects' },
    })
    assert.equal(folder.status, 201, folder.text)
    projectsId = folder.json.response.id

    // The report: v1 uploaded by admin, v2 and v3 by admin over WOPI, v4 by bob over WOPI, lock kept.
    const v1 = randomBytes(40_000)
    reportId = await upload(projectsId, 'Report.docx', v1)
    reportBytes.set(1, sha256(v1))
    wopiToken = await accessTokenFor(source.url, adminToken, reportId)
    const lock = { 'X-WOPI-Lock': LOCK }
    assert.equal((await wopi(source.url, reportId, wopiToken, { ...lock, 'X-WOPI-Override': 'LOCK' })).status, 200)
    for (const version of [2, 3]) {
      const bytes = randomBytes(30_000 + version)
      const put = await wopi(source.url, reportId, wopiToken, { ...lock, 'X-WOPI-Override': 'PUT' }, bytes)
      assert.equal(put.status, 200, put.text)
      reportBytes.set(version, sha256(bytes))
    }
    const share = await call(source.url, 'PUT', `/api/2.0/files/file/${reportId}/share`, {
      token: adminToken,
      body: {
        share: [
          {
            shareTo: (await call(source.url, 'GET', '/api/2.0/people/@self.json', { token: bobToken })).json.response
              .id,
            access: 1,
          },
        ],
        notify: false,
      },
    })
    assert.equal(share.status, 200, share.text)
    const bobWopi = await accessTokenFor(source.url, bobToken, reportId)
    const bobBytes = randomBytes(33_333)
    const bobPut = await wopi(source.url, reportId, bobWopi, { ...lock, 'X-WOPI-Override': 'PUT' }, bobBytes)
    assert.equal(bobPut.status, 200, bobPut.text)
    reportBytes.set(4, sha256(bobBytes))

    linkedId = await upload('@my', 'Linked.xlsx', randomBytes(5000))
    const link = await call(source.url, 'PUT', `/api/2.0/files/${linkedId}/sharedlink`, {
      token: adminToken,
      body: { share: 2 },
    })
    assert.equal(link.status, 200, link.text)
    trashedId = await upload('@my', 'Trashed.txt', randomBytes(700))
    assert.equal(
      (await call(source.url, 'DELETE', `/api/2.0/files/file/${trashedId}`, { token: adminToken })).status,
      200,
    )
    // Enough blobs that an interrupted run is caught part way.
    for (let i = 0; i < 48; i++) await upload('@my', `Bulk ${i}.bin`, randomBytes(256 * 1024 + i))
  })

  after(async () => {
    await source?.dispose().catch(() => undefined)
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
    for (const schema of schemas) await dropSchema(schema).catch(() => undefined)
    if (settings) {
      const client = s3TestClient(settings)
      for (const bucket of buckets) await removeBucket(client, bucket).catch(() => undefined)
      client.destroy()
    }
  })

  test('--help says what moves, that ids stay, that it can be re-run and what to set', async () => {
    const help = await folio(['migrate-storage', '--help'], {})
    assert.equal(help.code, 0, help.stderr)
    for (const words of [
      /FOLIO_DATABASE_URL/,
      /FOLIO_S3_BUCKET/,
      /FOLIO_DATA_DIR/,
      /Ids and blob keys stay/,
      /Run it again after an interruption/,
      /SHA-256/,
      /Stop Folio first/,
      /account/,
      /version/,
      /lock/,
    ]) {
      assert.match(help.stdout, words)
    }
  })

  test('refuses while Folio runs on the source, and without a target', async () => {
    const busy = await folio(['migrate-storage'], { FOLIO_DATA_DIR: sourceDir, ...newTarget() })
    assert.equal(busy.code, 1, busy.stdout)
    assert.match(busy.stderr, /open in another process .*stop it first/)
    const nowhere = await folio(['migrate-storage'], { FOLIO_DATA_DIR: sourceDir })
    assert.equal(nowhere.code, 1)
    assert.match(nowhere.stderr, /nothing to move to/)
  })

  test('the moved install serves the same files, versions, authors, bytes, lock, shares and sign-ins', async () => {
    const before = {
      report: await describeFile(source.url, adminToken, reportId),
      linked: await describeFile(source.url, adminToken, linkedId),
      link: linkOf(await call(source.url, 'GET', `/api/2.0/files/${linkedId}/sharedlink`, { token: adminToken })),
      bobShared: (await call(source.url, 'GET', '/api/2.0/files/@share', { token: bobToken })).json.response.files.map(
        (f: { id: string }) => f.id,
      ),
    }
    assert.deepEqual(
      before.report.versions.map((v) => [v.version, v.bytes]),
      [...reportBytes.entries()].reverse(),
    )
    await source.stop()
    const facts = sourceFacts()

    const target = newTarget()
    const run = await folio(['migrate-storage'], { FOLIO_DATA_DIR: sourceDir, ...target })
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`)
    assert.match(run.stdout, /target database: empty/)
    assert.match(run.stdout, new RegExp(`blobs: ${facts.blobs}/${facts.blobs} \\(${facts.blobs} copied`))
    assert.match(run.stdout, new RegExp(`files ${facts.files} added`))
    assert.match(run.stdout, /^done: /m)
    assert.equal(await objectCount(target.FOLIO_S3_BUCKET ?? ''), facts.blobs)
    assert.equal(await rowCount(target.FOLIO_DATABASE_SCHEMA ?? '', 'versions'), facts.versions)

    const dataDir = await mkdtemp(join(tmpdir(), 'folio-moved-'))
    dirs.push(dataDir)
    const moved = await startTestServer(target, { dataDir, metadata: singleMachine })
    try {
      // Sessions and the signing secret moved: tokens issued before the move still work.
      assert.equal((await call(moved.url, 'GET', '/api/2.0/people/@self.json', { token: adminToken })).status, 200)
      const lock = await wopi(moved.url, reportId, wopiToken, { 'X-WOPI-Override': 'GET_LOCK' })
      assert.equal(lock.status, 200, lock.text)
      assert.equal(lock.headers.get('x-wopi-lock'), LOCK)
      // Passwords moved as hashes: the old ones sign in.
      const admin = await signIn(moved.url)
      const bob = await signIn(moved.url, 'bob', BOB_PASSWORD)

      assert.deepEqual(await describeFile(moved.url, admin, reportId), before.report)
      assert.deepEqual(await describeFile(moved.url, admin, linkedId), before.linked)
      const authors = before.report.versions.map((v) => v.author)
      assert.equal(new Set(authors).size, 2, 'versions by two authors')
      const link = await call(moved.url, 'GET', `/api/2.0/files/${linkedId}/sharedlink`, { token: admin })
      assert.deepEqual(linkOf(link), before.link)
      const shared = await call(moved.url, 'GET', '/api/2.0/files/@share', { token: bob })
      assert.deepEqual(
        shared.json.response.files.map((f: { id: string }) => f.id),
        before.bobShared,
      )
      const trash = await call(moved.url, 'GET', '/api/2.0/files/@trash', { token: admin })
      assert.deepEqual(
        trash.json.response.files.map((f: { id: string }) => f.id),
        [trashedId],
      )
      const folders = await call(moved.url, 'GET', '/api/2.0/files/@my', { token: admin })
      assert.ok(folders.json.response.folders.some((f: { id: string }) => f.id === projectsId))

      // The lock is enforced on the target: a PutFile under another lock is refused.
      const refused = await wopi(
        moved.url,
        reportId,
        wopiToken,
        { 'X-WOPI-Lock': 'other', 'X-WOPI-Override': 'PUT' },
        randomBytes(10),
      )
      assert.equal(refused.status, 409)
      assert.equal(refused.headers.get('x-wopi-lock'), LOCK)
      // And a save under the held lock lands as the next version.
      const next = await wopi(
        moved.url,
        reportId,
        wopiToken,
        { 'X-WOPI-Lock': LOCK, 'X-WOPI-Override': 'PUT' },
        randomBytes(99),
      )
      assert.equal(next.status, 200, next.text)
      assert.equal(next.headers.get('x-wopi-itemversion'), 'v5')
    } finally {
      await moved.dispose()
    }
  })

  test('an interrupted run continues when run again; nothing is copied or imported twice', async () => {
    const facts = sourceFacts()
    const target = newTarget()
    const env = { FOLIO_DATA_DIR: sourceDir, ...target }
    const killed = await folio(['migrate-storage'], env, (line) => /^blobs: [1-9]/.test(line))
    assert.equal(killed.signal, 'SIGKILL', `the run finished before it was killed:\n${killed.stdout}`)
    assert.doesNotMatch(killed.stdout, /^records:/m)
    // The records go in one transaction after the last blob: none are there yet.
    assert.equal(await rowCount(target.FOLIO_DATABASE_SCHEMA ?? '', 'files'), 0)
    const copiedBefore = await objectCount(target.FOLIO_S3_BUCKET ?? '')
    assert.ok(copiedBefore >= 1 && copiedBefore < facts.blobs, `${copiedBefore} of ${facts.blobs} blobs copied`)

    const resumed = await folio(['migrate-storage'], env)
    assert.equal(resumed.code, 0, `${resumed.stdout}\n${resumed.stderr}`)
    const done = /blobs: (\d+)\/(\d+) \((\d+) copied, (\d+) already there/.exec(
      resumed.stdout
        .split('\n')
        .filter((line) => line.startsWith('blobs: '))
        .at(-1) ?? '',
    )
    assert.ok(done, resumed.stdout)
    assert.equal(Number(done[2]), facts.blobs)
    assert.ok(Number(done[4]) >= copiedBefore, resumed.stdout)
    assert.equal(Number(done[3]) + Number(done[4]), facts.blobs)
    assert.equal(await objectCount(target.FOLIO_S3_BUCKET ?? ''), facts.blobs)
    assert.equal(await rowCount(target.FOLIO_DATABASE_SCHEMA ?? '', 'files'), facts.files)
    assert.equal(await rowCount(target.FOLIO_DATABASE_SCHEMA ?? '', 'versions'), facts.versions)

    // Once more, after it completed: everything is found, nothing added.
    const again = await folio(['migrate-storage'], env)
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stdout, /holds this install from an earlier run/)
    assert.match(again.stdout, new RegExp(`\\(0 copied, ${facts.blobs} already there`))
    assert.match(again.stdout, /records: 0 added/)
    assert.equal(await rowCount(target.FOLIO_DATABASE_SCHEMA ?? '', 'versions'), facts.versions)
    assert.equal(await rowCount(target.FOLIO_DATABASE_SCHEMA ?? '', 'audit_events'), facts.audit)
  })

  test('refuses a target database that holds another install, and changes nothing there', async () => {
    const target = newTarget()
    // Another install: an account made on the empty target gives it a signing secret of its own.
    const other = await folio(['user', 'add', 'someone-else'], { FOLIO_DATA_DIR: sourceDir, ...target })
    assert.equal(other.code, 0, other.stderr)
    const refused = await folio(['migrate-storage'], { FOLIO_DATA_DIR: sourceDir, ...target })
    assert.equal(refused.code, 1, refused.stdout)
    assert.match(refused.stderr, /another Folio install/)
    assert.equal(await rowCount(target.FOLIO_DATABASE_SCHEMA ?? '', 'files'), 0)
    assert.equal(await rowCount(target.FOLIO_DATABASE_SCHEMA ?? '', 'users'), 1)
    assert.equal(await objectCount(target.FOLIO_S3_BUCKET ?? ''), 0)
  })

  // Last: Folio then runs on the source's database, which changes it.
  test('with only an S3 bucket set, the contents move and the SQLite database stays', async () => {
    const facts = sourceFacts()
    const { FOLIO_DATABASE_URL: _url, FOLIO_DATABASE_SCHEMA: _schema, ...bucketOnly } = newTarget()
    const run = await folio(['migrate-storage'], { FOLIO_DATA_DIR: sourceDir, ...bucketOnly })
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`)
    assert.match(run.stdout, /to the same SQLite database and S3 bucket/)
    assert.doesNotMatch(run.stdout, /^records:/m)
    assert.equal(await objectCount(bucketOnly.FOLIO_S3_BUCKET ?? ''), facts.blobs)

    const onS3 = await startTestServer(bucketOnly, { dataDir: sourceDir, metadata: singleMachine })
    try {
      const admin = await signIn(onS3.url)
      const report = await describeFile(onS3.url, admin, reportId)
      assert.deepEqual(
        report.versions.map((v) => [v.version, v.bytes]),
        [...reportBytes.entries()].reverse(),
      )
    } finally {
      await onS3.stop()
    }
  })
})
