import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, test } from 'node:test'
import type { LoadResult } from '../../bench/load.js'
import { alternateRounds } from '../../bench/rounds.js'
import { ratioFigure } from '../../bench/results.js'
import { cpuPerRequest } from '../../bench/server-comparison.js'
import { cpuMicrosPerRequest, parseStatTicks, processFamily, readCpuTicks } from '../../bench/server-cpu.js'

/** A /proc/<pid>/stat line with the given command name, utime and stime (fields 14 and 15). */
function statLine(name: string, utime: number, stime: number): string {
  const after = [
    'S',
    '1',
    '2',
    '3',
    '0',
    '-1',
    '4194560',
    '100',
    '0',
    '0',
    '0',
    String(utime),
    String(stime),
    '5',
    '6',
    '20',
    '0',
    '11',
  ]
  return `4242 (${name}) ${after.join(' ')}\n`
}

function load(completed: number, ticks: number): LoadResult {
  return {
    rps: completed / 5,
    p50Ms: 1,
    p99Ms: 2,
    completed,
    failedStatus: 0,
    socketErrors: 0,
    serverCpu: { ticks, requests: completed },
  }
}

/** The server CPU per request is the load runs' figure of record: it must be computed right. */
describe('bench server CPU per request', () => {
  test('user and system ticks are read after the command name, whatever it holds', () => {
    assert.equal(parseStatTicks(statLine('node', 1234, 56)), 1290)
    // A name may hold spaces and ')': fields are counted from the last ')'.
    assert.equal(parseStatTicks(statLine('we ird) 1 2', 7, 3)), 10)
  })

  test('a line without utime and stime is refused', () => {
    assert.throws(() => parseStatTicks('4242 (node) S 1'), /no utime\/stime/)
    assert.throws(() => parseStatTicks('garbage'), /not a \/proc\/<pid>\/stat line/)
  })

  test("this process's own ticks are read and never go back", () => {
    const before = readCpuTicks([process.pid])
    let spin = 0
    for (let i = 0; i < 5_000_000; i++) spin += i % 7
    assert.ok(spin > 0)
    assert.ok(readCpuTicks([process.pid]) >= before)
    assert.equal(readCpuTicks([2 ** 22 + 12345]), 0, 'a process that does not exist counts 0')
  })

  test('a process family is the process and its children (FOLIO_WORKERS forks its workers)', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    try {
      await once(child, 'spawn')
      const family = processFamily(process.pid)
      assert.equal(family[0], process.pid)
      assert.ok(child.pid !== undefined && family.includes(child.pid), `${child.pid} in ${family.join(' ')}`)
    } finally {
      child.kill()
      await once(child, 'exit')
    }
  })

  test('CPU per request is all ticks over all requests, in microseconds', () => {
    // 150 ticks of 10 ms = 1.5 s of CPU for 50,000 requests: 30 µs each.
    assert.equal(cpuMicrosPerRequest([{ ticks: 150, requests: 50_000 }]), 30)
    // Runs weigh by their requests: (100 + 20) ticks over (40,000 + 20,000) requests.
    assert.equal(
      cpuMicrosPerRequest([
        { ticks: 100, requests: 40_000 },
        { ticks: 20, requests: 20_000 },
      ]),
      20,
    )
    assert.ok(Number.isNaN(cpuMicrosPerRequest([{ ticks: 3, requests: 0 }])), 'nothing served, no figure')
  })

  test('rounds sum their CPU and requests, and a round without a reading gives no figure', async () => {
    const rounds = [load(40_000, 100), load(20_000, 20), load(60_000, 300)]
    const summed = await alternateRounds(3, { folio: async (round) => rounds[round] ?? load(0, 0) })
    assert.deepEqual(summed.folio.serverCpu, { ticks: 420, requests: 120_000 })
    assert.equal(cpuPerRequest(summed.folio), 35)
    const { serverCpu, ...unread } = load(10, 1)
    assert.equal(serverCpu?.ticks, 1)
    const partial = await alternateRounds(2, { folio: async (round) => (round === 0 ? load(10, 1) : unread) })
    assert.equal(partial.folio.serverCpu, undefined)
    assert.ok(Number.isNaN(cpuPerRequest(partial.folio)))
  })

  test('the CPU ratio is the baseline over Folio, and its target reads that way', () => {
    const figure = ratioFigure({
      metric: 'CPU',
      value: 40,
      baseline: 15,
      baselineName: 'bare',
      unit: 'µs',
      target: { min: 0.5 },
      baselineOverValue: true,
    })
    assert.equal(figure.ratio, 15 / 40)
    assert.equal(figure.pass, false)
    const met = ratioFigure({
      metric: 'CPU',
      value: 28,
      baseline: 15,
      baselineName: 'bare',
      unit: 'µs',
      target: { min: 0.5 },
      baselineOverValue: true,
    })
    assert.equal(met.pass, true)
  })
})
