import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { describeLoad, runLoad } from '../../bench/load.js'

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
    return true
  } catch (error) {
    // wrk --version exits 1 after printing its banner; only a missing binary throws ENOENT.
    return !(error instanceof Error && 'code' in error && error.code === 'ENOENT')
  }
}

/**
 * The bench's load runs (wrk) count failed replies without their statuses; when some
 * failed, a short second run says which statuses they were and what one of each said, so
 * a failed load check in BENCHMARKS.md or CI tells why.
 */
describe('bench load runs', { skip: !hasWrk() && process.env.CI !== 'true' ? 'wrk is not installed' : false }, () => {
  let server: Server
  let url: string

  before(async () => {
    server = createServer((req, res) => {
      const locked = req.url?.startsWith('/locked') === true
      const body = locked ? 'the file is locked by\n  someone else' : 'ok'
      res.writeHead(locked ? 409 : 200, { 'content-type': 'text/plain', 'content-length': String(body.length) })
      res.end(body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  test('a run with failed replies says which statuses they were, with the start of one body each', async () => {
    const result = await runLoad({
      url,
      connections: 2,
      seconds: 1,
      warmupSeconds: 0,
      sequences: [[{ method: 'GET', path: '/locked' }], [{ method: 'GET', path: '/fine' }]],
    })
    assert.ok(result.failedStatus > 0)
    assert.match(result.failures ?? '', /^200 x\d+; 409 x\d+: the file is locked by someone else$/)
    assert.match(
      describeLoad(result),
      /with status ≥ 400 \(a second run of 2 s answered 200 x\d+; 409 x\d+: the file is locked/,
    )
  })

  test('a run without failures makes no second run', async () => {
    const result = await runLoad({
      url,
      connections: 1,
      seconds: 1,
      warmupSeconds: 0,
      sequences: [[{ method: 'GET', path: '/fine' }]],
    })
    assert.equal(result.failedStatus, 0)
    assert.equal(result.failures, undefined)
    assert.doesNotMatch(describeLoad(result), /second run/)
  })
})
