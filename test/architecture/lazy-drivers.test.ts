import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'

const ROOT = join(import.meta.dirname, '..', '..')

// Module hooks that append every module URL the process resolves to FOLIO_TRACE_FILE.
const TRACE_HOOKS = `
import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(process.env.FOLIO_TRACE_FILE, result.url + '\\n')
  return result
}`
const REGISTER = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(TRACE_HOOKS)}`)})`,
)}`

// Starts Folio with the given settings and stops it; a start that fails is fine too, the
// question is only which modules it loaded on the way.
const CHILD = `
import { buildConfig } from './src/config/load.ts'
import { startFolio } from './src/main.ts'
import { pino } from 'pino'
const settings = JSON.parse(process.env.FOLIO_TEST_SETTINGS)
try {
  const folio = await startFolio(buildConfig(settings), { logger: pino({ level: 'silent' }) })
  await folio.close()
  console.log('started')
} catch (error) {
  console.log('failed: ' + error.message)
}`

/** The module URLs a Folio start with these settings resolved, and what it printed. */
async function modulesLoadedBy(settings: Record<string, string>): Promise<{ urls: string[]; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'folio-lazy-'))
  dirs.push(dir)
  const traceFile = join(dir, 'trace.txt')
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', REGISTER, '--input-type=module', '-e', CHILD], {
    cwd: ROOT,
    env: {
      ...process.env,
      FOLIO_TRACE_FILE: traceFile,
      FOLIO_TEST_SETTINGS: JSON.stringify({
        FOLIO_DATA_DIR: join(dir, 'data'),
        FOLIO_PORT: '0',
        FOLIO_HOST: '127.0.0.1',
        FOLIO_ADMIN_PASSWORD: 'lazy-loading-check',
        ...settings,
      }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  assert.equal(code, 0, output)
  return { urls: (await readFile(traceFile, 'utf8')).split('\n'), output }
}

const dirs: string[] = []
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('drivers load lazily', () => {
  test('a default start never loads the AWS SDK or the S3 driver', async () => {
    const { urls, output } = await modulesLoadedBy({})
    assert.match(output, /^started/m)
    assert.ok(
      urls.some((url) => url.includes('/drivers/blob-fs/')),
      'the fs driver is traced',
    )
    assert.deepEqual(
      urls.filter((url) => url.includes('@aws-sdk') || url.includes('/drivers/blob-s3/')),
      [],
    )
  })

  test('a start with FOLIO_S3_BUCKET does load them (the check above can fail)', async () => {
    const { urls } = await modulesLoadedBy({
      FOLIO_S3_BUCKET: 'lazy-check',
      // Nothing listens on port 9 here: the start fails after loading the driver.
      FOLIO_S3_ENDPOINT: 'http://127.0.0.1:9',
      FOLIO_S3_FORCE_PATH_STYLE: 'true',
      FOLIO_S3_ACCESS_KEY_ID: 'id',
      FOLIO_S3_SECRET_ACCESS_KEY: 'secret',
    })
    assert.ok(urls.some((url) => url.includes('/node_modules/@aws-sdk/client-s3/')))
  })

  test('a default start loads none of undici, jose (no Docs, no WOPI client) and prom-client (metrics off)', async () => {
    const { urls, output } = await modulesLoadedBy({})
    assert.match(output, /^started/m)
    const lazy = ['/node_modules/undici/', '/node_modules/prom-client/', '/node_modules/jose/']
    assert.deepEqual(
      urls.filter((url) => lazy.some((path) => url.includes(path))),
      [],
    )
    const withMetrics = await modulesLoadedBy({ FOLIO_METRICS_TOKEN: 'a-metrics-token-of-16+' })
    assert.ok(withMetrics.urls.some((url) => url.includes('/node_modules/prom-client/')))
  })
})
