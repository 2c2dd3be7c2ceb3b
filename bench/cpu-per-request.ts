// `node --import tsx bench/cpu-per-request.ts [lock|info|get] [workers] [seconds] [pg]`: CPU
// time Folio spends per request (user + system, from /proc, all of its processes) against
// the bare server's, under the same wrk load. CPU time per request hardly moves with other
// load on the machine, unlike requests per second, so it is the figure to compare changes
// with. With `pg` Folio runs on the test PostgreSQL and S3 (the S3 env of the tests), and
// the CPU of the PostgreSQL backends serving Folio is reported beside Folio's own.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBaseline } from './baselines/launch.js'
import { uploadFile, wopiAccess, type WopiAccess } from './folio-api.js'
import { startFolioProcess } from './folio-process.js'
import { runLoad, type LoadStep } from './load.js'
import { postgresBackendsOf } from './postgres-backends.js'
import { sharedEnv } from './scenarios/scale.js'
import { processFamily, readCpuTicks, TICKS_PER_SECOND } from './server-cpu.js'
import { dropSchema, uniqueSchemaName } from '../test/support/postgres.js'
import { removeBucket, s3TestClient, s3TestSettings, uniqueBucketName } from '../test/support/s3-test-server.js'

/** CPU seconds used so far by the processes `pids` (bench/server-cpu.ts). */
function cpuSeconds(pids: number[]): number {
  return readCpuTicks(pids) / TICKS_PER_SECOND
}

const kind = process.argv[2] ?? 'lock'
const workers = process.argv[3] ?? '1'
const seconds = Number(process.argv[4] ?? 10)
const onPostgres = process.argv[5] === 'pg'
const connections = 50

const schema = uniqueSchemaName('folio_cpu')
const bucket = uniqueBucketName()
const s3 = onPostgres ? s3TestSettings() : undefined
const pgEnv: Record<string, string> = s3 === undefined ? {} : sharedEnv(s3, schema, bucket)
const root = await mkdtemp(join(tmpdir(), 'folio-cpu-'))
const folio = await startFolioProcess({ dataDir: root, env: { FOLIO_WORKERS: workers, ...pgEnv } })
try {
  const token = await folio.signIn()
  const files: WopiAccess[] = []
  for (let i = 0; i < (kind === 'lock' ? connections : 1); i++) {
    const { id } = await uploadFile(folio, token, `f-${i}.docx`, kind === 'get' ? 16384 : 1024)
    files.push(await wopiAccess(folio, token, id))
  }
  const sequences: LoadStep[][] =
    kind === 'lock'
      ? files.map((f, i) =>
          ['LOCK', 'REFRESH_LOCK', 'UNLOCK'].map((o) => ({
            method: 'POST',
            path: f.filePath,
            headers: { 'X-WOPI-Override': o, 'X-WOPI-Lock': `l-${i}` },
          })),
        )
      : [[{ method: 'GET', path: kind === 'get' ? (files[0]?.contentsPath ?? '/') : (files[0]?.filePath ?? '/') }]]
  const spec = { connections, seconds, warmupSeconds: 2, sequences }
  const pids = processFamily(folio.pid)
  // The pool opens connections on demand: a short run first, so they all exist.
  if (onPostgres) await runLoad({ ...spec, seconds: 1, warmupSeconds: 0, url: folio.url })
  const backends = onPostgres ? await postgresBackendsOf(pids) : []
  const before = cpuSeconds(pids)
  const backendsBefore = cpuSeconds(backends)
  const measured = await runLoad({ ...spec, url: folio.url })
  const used = cpuSeconds(pids) - before
  const backendsUsed = cpuSeconds(backends) - backendsBefore
  const bare = await startBaseline('bare-server')
  const bareFamily = [bare.pid]
  const bareBefore = cpuSeconds(bareFamily)
  const bytes = kind === 'get' ? '&bytes=16384' : kind === 'info' ? '&bytes=700' : ''
  const bareRun = await runLoad({
    ...spec,
    url: bare.url,
    sequences: [[{ method: kind === 'lock' ? 'POST' : 'GET', path: `/x?a=b${bytes}` }]],
  })
  const bareUsed = cpuSeconds(bareFamily) - bareBefore
  await bare.stop()
  // The warm-up requests are in the CPU time too; count them by scaling with the run's rate.
  const total = (r: { completed: number }) => (r.completed * (seconds + 2)) / seconds
  const per = (used / total(measured)) * 1e6
  const barePer = (bareUsed / total(bareRun)) * 1e6
  const backendPer = (backendsUsed / total(measured)) * 1e6
  const postgres = onPostgres ? `, PostgreSQL ${backendPer.toFixed(1)} µs in ${backends.length} backends` : ''
  console.log(
    `${kind} workers=${workers}: Folio ${per.toFixed(1)} µs CPU/request${postgres} (${measured.rps.toFixed(0)} req/s, failed ${measured.failedStatus}), bare ${barePer.toFixed(1)} µs (${bareRun.rps.toFixed(0)} req/s); CPU ratio bare/Folio ${(barePer / per).toFixed(2)}`,
  )
} finally {
  await folio.stop()
  await rm(root, { recursive: true, force: true })
  if (s3 !== undefined) {
    await dropSchema(schema).catch(() => undefined)
    const client = s3TestClient(s3)
    await removeBucket(client, bucket).catch(() => undefined)
    client.destroy()
  }
}
