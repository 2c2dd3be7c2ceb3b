/**
 * Measures WOPI GetFile latency (16 KiB file) while idle and during bursts of 200
 * parallel sign-ins, against a real Folio process (the compiled bin; run `npm run build`
 * first). Prints p50/p99/max per phase and the sign-in statuses.
 *
 *   node --import tsx scripts/sign-in-burst-latency.ts
 *
 * Phase "one user": 200 wrong passwords for one name (the throttle refuses all but the
 * limit before hashing). Phase "200 names": one attempt for each of 200 names from 200
 * addresses, so every attempt is hashed (the hashing queue is what protects file I/O).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

const BIN = join(import.meta.dirname, '..', 'bin', 'folio.js')
const PASSWORD = 'burst-admin-password'

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

function summary(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b)
  const f = (ms: number) => `${ms.toFixed(1)} ms`
  return `${name}: n=${sorted.length} p50=${f(percentile(sorted, 50))} p99=${f(percentile(sorted, 99))} max=${f(sorted.at(-1) ?? 0)}`
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'folio-burst-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      FOLIO_PORT: String(port),
      FOLIO_HOST: '127.0.0.1',
      FOLIO_DATA_DIR: dataDir,
      FOLIO_ADMIN_PASSWORD: PASSWORD,
      FOLIO_TRUST_PROXY: 'true',
      FOLIO_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  try {
    for (let i = 0; ; i++) {
      const up = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
      if (up) break
      if (i > 200) throw new Error('Folio did not start')
      await sleep(50)
    }
    const auth = await fetch(`${base}/api/2.0/authentication.json`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '192.0.2.250' },
      body: JSON.stringify({ userName: 'admin', password: PASSWORD }),
    }).then((r) => r.json())
    const token: string = auth.response.token
    const upload = await fetch(`${base}/api/2.0/files/@my/upload?title=Sixteen.docx`, {
      method: 'POST',
      headers: { Authorization: token, 'Content-Type': 'application/octet-stream' },
      body: new Uint8Array(16 * 1024).fill(7),
    }).then((r) => r.json())
    const fileId: string = upload.response.id
    const wopi = await fetch(`${base}/api/2.0/files/file/${fileId}/wopi`, {
      method: 'POST',
      headers: { Authorization: token },
    }).then((r) => r.json())
    const getFileUrl = `${base}/wopi/files/${fileId}/contents?access_token=${encodeURIComponent(wopi.response.accessToken)}`

    const getFile = async (): Promise<number> => {
      const started = performance.now()
      const response = await fetch(getFileUrl)
      const bytes = await response.arrayBuffer()
      if (response.status !== 200 || bytes.byteLength !== 16 * 1024) throw new Error(`GetFile ${response.status}`)
      return performance.now() - started
    }

    // Warm up, then idle.
    for (let i = 0; i < 50; i++) await getFile()
    const idle: number[] = []
    for (let i = 0; i < 300; i++) idle.push(await getFile())
    console.log(summary('GetFile idle', idle))

    const signIn = (userName: string, address: string) =>
      fetch(`${base}/api/2.0/authentication.json`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address },
        body: JSON.stringify({ userName, password: 'wrong-password' }),
      }).then((r) => r.status)

    for (const phase of ['one user', '200 names'] as const) {
      const started = performance.now()
      let done = false
      const burst = Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          signIn(phase === 'one user' ? 'admin' : `name-${i}`, `10.9.${Math.floor(i / 200)}.${i % 200}`),
        ),
      ).finally(() => {
        done = true
      })
      const during: number[] = []
      while (!done) during.push(await getFile())
      const statuses = await burst
      const counts: Record<number, number> = {}
      for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      console.log(
        `${summary(`GetFile during a 200 sign-in burst (${phase})`, during)}; burst took ${seconds} s, statuses ${JSON.stringify(counts)}`,
      )
    }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
    await rm(dataDir, { recursive: true, force: true })
  }
}

await main()
