import { startBaseline } from '../baselines/launch.js'
import { bodyChunks, bodySha256 } from '../body.js'
import type { ChildServer } from '../child.js'
import { currentLock, uploadFile, wopiAccess, wopiPost, type WopiAccess } from '../folio-api.js'
import { startFolioProcess, type FolioProcess } from '../folio-process.js'
import { downloadHash, jsonCall, send } from '../http.js'
import { describeLoad, runLoad, type LoadStep } from '../load.js'
import { MiB } from '../options.js'
import { ratioFigure, type Recorder } from '../results.js'
import { postgresBackendsOf } from '../postgres-backends.js'
import type { RoundsResult } from '../rounds.js'
import { median, SkipScenario, type Scenario, type ScenarioContext } from '../scenario.js'
import { compareAtEachCount, recordComparison, type Comparison } from '../server-comparison.js'
import { dropSchema, postgresSkipReason, TEST_DATABASE_URL, uniqueSchemaName } from '../../test/support/postgres.js'
import {
  findS3TestServer,
  folioS3Env,
  removeBucket,
  s3TestClient,
  uniqueBucketName,
  type S3TestSettings,
} from '../../test/support/s3-test-server.js'

const PUT_SIZE = 100 * MiB

/** The lock cycle one connection runs on its own file, with its own lock id. */
function lockCycle(access: WopiAccess, index: number): LoadStep[] {
  const headers = (override: string) => ({ 'X-WOPI-Override': override, 'X-WOPI-Lock': `scale-lock-${index}` })
  return ['LOCK', 'REFRESH_LOCK', 'UNLOCK'].map((override) => ({
    method: 'POST',
    path: access.filePath,
    headers: headers(override),
  }))
}

/**
 * Scenario 8: the lock cycle, CheckFileInfo and a 100 MiB PutFile with the metadata in
 * PostgreSQL and the contents in S3, each against the same run's SQLite + disk figure and
 * the bare baselines; then the lock cycle over two instances against one. Needs the test
 * PostgreSQL and S3 servers (skipped without them, failed under CI=true).
 */
export const scale: Scenario = {
  id: 8,
  title: 'PostgreSQL + S3 against SQLite + disk; two instances against one',
  async run(ctx: ScenarioContext, record: Recorder) {
    const pgSkip = await postgresSkipReason()
    if (pgSkip !== undefined) throw new SkipScenario(pgSkip)
    const found = await findS3TestServer()
    if ('unreachable' in found) {
      if (process.env.CI === 'true') throw new Error(found.unreachable)
      throw new SkipScenario(found.unreachable)
    }
    const schema = uniqueSchemaName('folio_bench')
    const bucket = uniqueBucketName()
    const env = sharedEnv(found.settings, schema, bucket)
    const servers: ChildServer[] = []
    const started = <T extends ChildServer>(server: T): T => {
      servers.push(server)
      return server
    }
    try {
      const bare = started(await startBaseline('bare-server'))
      const raw = started(await startBaseline('raw-save', { SAVE_DIR: await ctx.workDir('scale-raw') }))
      const local = started(
        await startFolioProcess({ dataDir: await ctx.workDir('scale-local'), label: 'Folio SQLite' }),
      )
      const a = started(await startFolioProcess({ dataDir: await ctx.workDir('scale-a'), env, label: 'Folio A' }))

      const fileCount = Math.max(...ctx.options.connectionCounts)
      const localFiles = await prepare(local, fileCount)
      const sharedFiles = await prepare(a, fileCount)
      const lockSpec = (files: WopiAccess[]) => ({ connections: files.length, sequences: files.map(lockCycle) })
      const lockOf = (files: WopiAccess[]) => (connections: number) => files.slice(0, connections).map(lockCycle)
      const infoOf = (files: WopiAccess[]) => (): LoadStep[][] => [[{ method: 'GET', path: files[0]?.filePath ?? '/' }]]
      // On PostgreSQL a request's CPU is Folio's and that of the backends serving its pool.
      const sharedPids = async () => [a.pid, ...(await postgresBackendsOf([a.pid]))]
      // The bare server takes the SQLite files' requests (it answers any path alike).
      const inTurns = (what: string, sequencesOf: (files: WopiAccess[]) => (connections: number) => LoadStep[][]) =>
        compareAtEachCount(ctx, what, {
          bare: { server: { url: bare.url, pids: [bare.pid] }, sequences: sequencesOf(localFiles) },
          local: { server: { url: local.url, pids: [local.pid] }, sequences: sequencesOf(localFiles) },
          shared: { server: { url: a.url, pids: sharedPids }, sequences: sequencesOf(sharedFiles) },
        })
      const lock = await inTurns('lock cycle', lockOf)
      const info = await inTurns('CheckFileInfo', infoOf)
      const putMs = {
        local: await measurePuts(ctx, local, localFiles),
        shared: await measurePuts(ctx, a, sharedFiles),
        raw: [] as number[],
      }
      for (let rep = 0; rep < repetitions(ctx); rep++) {
        const saved = await send(raw.url + '/', 'POST', lengthHeader(), bodyChunks(PUT_SIZE))
        putMs.raw.push(saved.ms)
        await jsonCall(raw.url, 'DELETE', '/')
      }

      for (const [what, comparisons] of [
        ['lock cycle', lock],
        ['CheckFileInfo', info],
      ] as const) {
        for (const { connections, loads } of comparisons) {
          for (const [name, load] of [
            ['SQLite + disk', loads.local],
            ['PostgreSQL + S3', loads.shared],
          ] as const) {
            record.check(
              `${name}: every ${what} request of the load runs at ${connections} connections answered 200`,
              load.failedStatus === 0 && load.socketErrors === 0 && load.completed > 0,
              describeLoad(load),
            )
          }
        }
      }

      ctx.log('lock cycle over two instances (PostgreSQL + S3)')
      const wholeLoad = { seconds: ctx.options.loadSeconds, warmupSeconds: ctx.options.warmupSeconds }
      const b = started(await startFolioProcess({ dataDir: await ctx.workDir('scale-b'), env, label: 'Folio B' }))
      const half = Math.ceil(sharedFiles.length / 2)
      const [onA, onB] = await Promise.all([
        runLoad({ ...lockSpec(sharedFiles.slice(0, half)), ...wholeLoad, url: a.url }),
        runLoad({
          ...lockSpec(sharedFiles.slice(half)),
          ...wholeLoad,
          sequences: sharedFiles.slice(half).map((file, i) => lockCycle(file, half + i)),
          url: b.url,
        }),
      ])
      record.check(
        'two instances: every lock-cycle request answered 200',
        [onA, onB].every((load) => load.failedStatus === 0 && load.socketErrors === 0 && load.completed > 0),
        `A: ${describeLoad(onA)}; B: ${describeLoad(onB)}`,
      )
      const strays: string[] = []
      for (const [index, file] of sharedFiles.entries()) {
        // Asked of the instance that did not run this file's cycle.
        const lock = await currentLock(index < half ? b : a, file)
        if (lock !== '' && lock !== `scale-lock-${index}`) strays.push(`file ${index}: "${lock}"`)
      }
      record.check(
        'two instances: every file is unlocked or locked by its own connection, seen from the other instance',
        strays.length === 0,
        strays.length === 0 ? `${sharedFiles.length} files checked` : strays.slice(0, 5).join(', '),
      )
      await checkPutAcross(a, b, sharedFiles, record)

      const oneInstance = lock.find((c) => c.connections === fileCount)?.loads.shared
      addFigures(record, { lock, info }, putMs, { rps: onA.rps + onB.rps, oneInstance, connections: fileCount })
    } finally {
      for (const server of servers.reverse()) await server.stop().catch(() => undefined)
      await dropSchema(schema).catch(() => undefined)
      const client = s3TestClient(found.settings)
      await removeBucket(client, bucket).catch(() => undefined)
      client.destroy()
    }
  },
}

/** The settings of a Folio on the test PostgreSQL `schema` and S3 `bucket`. */
export function sharedEnv(s3: S3TestSettings, schema: string, bucket: string): Record<string, string> {
  return {
    FOLIO_DATABASE_URL: TEST_DATABASE_URL,
    FOLIO_DATABASE_SCHEMA: schema,
    ...folioS3Env(s3, bucket),
  }
}

async function prepare(folio: FolioProcess, count: number): Promise<WopiAccess[]> {
  const token = await folio.signIn()
  const files: WopiAccess[] = []
  for (let i = 0; i < count; i++) {
    const { id } = await uploadFile(folio, token, `scale-${i}.docx`, 1024)
    files.push(await wopiAccess(folio, token, id))
  }
  return files
}

function repetitions(ctx: ScenarioContext): number {
  return ctx.options.quick ? 1 : 3
}

function lengthHeader(): Record<string, string> {
  return { 'content-type': 'application/octet-stream', 'content-length': String(PUT_SIZE) }
}

/** 100 MiB PutFiles on one instance, after its load runs: the milliseconds of each. */
async function measurePuts(ctx: ScenarioContext, folio: FolioProcess, files: WopiAccess[]): Promise<number[]> {
  ctx.log(`${folio.label}: PutFile of 100 MiB`)
  const target = files[files.length - 1]
  const putMs: number[] = []
  if (target) {
    // The load run may have stopped with this file locked by its own connection.
    await wopiPost(folio, target, 'UNLOCK', `scale-lock-${files.length - 1}`)
    const locked = await wopiPost(folio, target, 'LOCK', 'scale-put')
    if (locked.status !== 200) throw new Error(`${folio.label}: Lock before PutFile answered ${locked.status}`)
    for (let rep = 0; rep < repetitions(ctx); rep++) {
      const put = await send(
        folio.url + target.contentsPath,
        'POST',
        { ...lengthHeader(), 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'scale-put' },
        bodyChunks(PUT_SIZE),
      )
      if (put.status !== 200) throw new Error(`${folio.label}: PutFile answered ${put.status} ${put.text}`)
      putMs.push(put.ms)
    }
    await wopiPost(folio, target, 'UNLOCK', 'scale-put')
  }
  return putMs
}

/** A 100 MiB PutFile through A is what B's GetFile returns (SHA-256). */
async function checkPutAcross(a: FolioProcess, b: FolioProcess, files: WopiAccess[], record: Recorder) {
  const target = files[0]
  if (!target) return
  await wopiPost(a, target, 'UNLOCK', 'scale-lock-0')
  const locked = await wopiPost(a, target, 'LOCK', 'scale-across')
  const put = await send(
    a.url + target.contentsPath,
    'POST',
    { ...lengthHeader(), 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'scale-across' },
    bodyChunks(PUT_SIZE),
  )
  const content = await downloadHash(b.url + target.contentsPath)
  record.check(
    'a 100 MiB PutFile through instance A is what instance B returns (SHA-256)',
    locked.status === 200 &&
      put.status === 200 &&
      content.status === 200 &&
      content.sha256 === bodySha256(PUT_SIZE) &&
      content.bytes === PUT_SIZE,
    `Lock ${locked.status}, PutFile ${put.status}, GetFile on B ${content.status} with ${content.bytes} bytes`,
  )
}

type Setups = 'bare' | 'local' | 'shared'

function addFigures(
  record: Recorder,
  loads: Record<'lock' | 'info', Comparison<Setups>[]>,
  putMs: Record<'local' | 'shared' | 'raw', number[]>,
  twoInstances: { rps: number; oneInstance: RoundsResult | undefined; connections: number },
): void {
  for (const [name, comparisons] of [
    ['PG + S3 lock cycle', loads.lock],
    ['PG + S3 CheckFileInfo', loads.info],
  ] as const) {
    const shared = { comparisons, folio: 'shared', folioName: 'PostgreSQL + S3' } as const
    // On PostgreSQL + S3 the lock cycle and CheckFileInfo cost at most twice the SQLite figures.
    recordComparison(record, {
      ...shared,
      name: `${name} (vs SQLite + disk)`,
      baseline: 'local',
      baselineName: 'SQLite + disk, same run',
      cpuTarget: { min: 0.5 },
    })
    recordComparison(record, {
      ...shared,
      name: `${name} (vs bare)`,
      baseline: 'bare',
      baselineName: 'bare node:http',
      latencies: false,
    })
  }
  const throughput = (ms: number[]) => PUT_SIZE / MiB / (median(ms) / 1000)
  const put = { metric: 'PG + S3 PutFile 100 MiB throughput', value: throughput(putMs.shared), unit: 'MiB/s' }
  record.figure(
    ratioFigure({
      ...put,
      metric: `${put.metric} (vs SQLite + disk)`,
      baseline: throughput(putMs.local),
      baselineName: 'SQLite + disk, same run',
    }),
  )
  record.figure(
    ratioFigure({
      ...put,
      metric: `${put.metric} (vs raw stream to disk + fsync)`,
      baseline: throughput(putMs.raw),
      baselineName: 'raw stream to disk + fsync',
    }),
  )
  record.figure(
    ratioFigure({
      metric: `PG + S3 lock-cycle requests/s, two instances (${twoInstances.connections} connections in all)`,
      value: twoInstances.rps,
      baseline: twoInstances.oneInstance?.rps ?? Number.NaN,
      baselineName: `one instance, ${twoInstances.connections} connections, same run`,
      unit: 'req/s',
    }),
  )
}
