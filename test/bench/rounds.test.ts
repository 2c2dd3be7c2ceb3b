import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { LoadResult } from '../../bench/load.js'
import { parseOptions } from '../../bench/options.js'
import { alternateRounds, describeRounds, medianOfRounds, roundLength } from '../../bench/rounds.js'

function load(rps: number, extra: Partial<LoadResult> = {}): LoadResult {
  return { rps, p50Ms: rps / 1000, p99Ms: rps / 100, completed: rps, failedStatus: 0, socketErrors: 0, ...extra }
}

/**
 * Scenarios 1, 8 and 9 compare servers whose throughput drifts on a shared machine: the
 * servers take their load runs in turns, and each figure is the median of its rounds.
 */
describe('bench rounds', () => {
  test('servers run in turns, round after round, and each gets the median of its rounds', async () => {
    const order: string[] = []
    const figures = { bare: [50, 60, 55], folio: [28, 38, 35] }
    const result = await alternateRounds(3, {
      bare: async (round) => {
        order.push(`bare ${round}`)
        return load(figures.bare[round] ?? 0)
      },
      folio: async (round) => {
        order.push(`folio ${round}`)
        return load(figures.folio[round] ?? 0)
      },
    })
    assert.deepEqual(order, ['bare 0', 'folio 0', 'bare 1', 'folio 1', 'bare 2', 'folio 2'])
    assert.equal(result.bare.rps, 55)
    assert.equal(result.folio.rps, 35)
    assert.equal(result.folio.p50Ms, 0.035)
    assert.deepEqual(result.folio.perRound, [28, 38, 35])
    assert.equal(result.folio.completed, 28 + 38 + 35)
    assert.equal(medianOfRounds(result.folio), 'median of 3 rounds, taken in turns')
    const single = await alternateRounds(1, { folio: async () => load(30) })
    assert.equal(medianOfRounds(single.folio), undefined, 'a single run is named as before')
  })

  test('a failed reply in any round is kept, whatever the median', async () => {
    const result = await alternateRounds(3, {
      folio: async (round) => load(30, round === 1 ? { failedStatus: 2, failures: '409 x2: locked' } : {}),
    })
    assert.equal(result.folio.failedStatus, 2)
    assert.equal(result.folio.failures, '409 x2: locked')
    assert.equal(result.folio.socketErrors, 0)
  })

  test('a load run is split into equal rounds; only the first has the full warm-up', () => {
    const full = parseOptions([])
    assert.deepEqual(roundLength(full, 0), { seconds: 5, warmupSeconds: 3 })
    assert.deepEqual(roundLength(full, 2), { seconds: 5, warmupSeconds: 1 })
    const quick = parseOptions(['--quick'])
    assert.deepEqual(roundLength(quick, 0), { seconds: quick.loadSeconds, warmupSeconds: quick.warmupSeconds })
  })

  test('the note lists every round of every server in the order run', async () => {
    const result = await alternateRounds(2, {
      bare: async () => load(61_709),
      folio: async (r) => load(r === 0 ? 28_376.4 : 34_899),
    })
    assert.equal(
      describeRounds('Lock cycle', { 'bare node:http': result.bare, Folio: result.folio }),
      'Lock cycle, requests per second of each round in the order run: bare node:http 61,709, 61,709; Folio 28,376, 34,899.',
    )
  })
})
