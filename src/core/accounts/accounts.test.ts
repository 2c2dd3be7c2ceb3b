import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { generatePassword, hashPassword, passwordProblem, userNameProblem, verifyPassword } from './passwords.js'
import { isThrottleStateStale, lockDuration, releaseAttempt, reserveAttempt, type ThrottleState } from './throttle.js'

describe('passwords', () => {
  test('a hash verifies only the same password and never contains it', async () => {
    const hash = await hashPassword('correct horse')
    assert.match(hash, /^scrypt\$32768\$8\$1\$/)
    assert.ok(!hash.includes('correct horse'))
    assert.equal(await verifyPassword('correct horse', hash), true)
    assert.equal(await verifyPassword('correct horsE', hash), false)
  })

  test('two hashes of one password differ (salted)', async () => {
    assert.notEqual(await hashPassword('same-password'), await hashPassword('same-password'))
  })

  test('a malformed stored hash never verifies', async () => {
    for (const stored of ['', 'plain', 'scrypt$1$2$3', 'bcrypt$a$b$c$d$e']) {
      assert.equal(await verifyPassword('x', stored), false)
    }
  })

  test('generated passwords are long and random', () => {
    const a = generatePassword()
    assert.ok(a.length >= 20)
    assert.notEqual(a, generatePassword())
  })

  test('password and user name rules', () => {
    assert.match(passwordProblem('short') ?? '', /at least 8/)
    assert.equal(passwordProblem('long enough'), undefined)
    assert.equal(userNameProblem('alice.b-c_d@x'), undefined)
    assert.equal(userNameProblem('Алиса'), undefined)
    for (const bad of ['', 'a b', 'a/b', 'x'.repeat(65), '<script>']) {
      assert.ok(userNameProblem(bad), bad)
    }
  })
})

describe('sign-in throttle', () => {
  const policy = { maxFailures: 3, windowMs: 15 * 60_000, baseLockMs: 60_000 }

  /** Counts `n` attempts at `now` and returns the last outcome. */
  function attempts(n: number, start: ThrottleState | undefined, now: number) {
    let state = start
    let last = reserveAttempt(state, policy, now)
    for (let i = 0; i < n; i++) {
      last = reserveAttempt(state, policy, now)
      state = last.next
    }
    return { last, state }
  }

  test('finding 1: attempts are counted when reserved; the limit-th locks, the next is refused', () => {
    const { last, state } = attempts(3, undefined, 0)
    assert.equal(last.allowed, true)
    assert.equal(state?.failures, 3)
    const refused = reserveAttempt(state, policy, 1000)
    assert.equal(refused.allowed, false)
    assert.ok(!refused.allowed && refused.retryAfterSeconds === 59)
    assert.deepEqual(refused.next, state, 'a refused attempt changes nothing')
  })

  test('finding 7: the lock-out grows: 1, 2, 4, 8 minutes, then the window caps it', () => {
    let { state } = attempts(3, undefined, 0)
    const locks: number[] = []
    let now = 0
    for (let i = 0; i < 6; i++) {
      assert.ok(state)
      locks.push(state.blockedUntil - now)
      now = state.blockedUntil
      const next = reserveAttempt(state, policy, now)
      assert.equal(next.allowed, true)
      state = next.next
    }
    assert.deepEqual(
      locks.map((ms) => ms / 60_000),
      [1, 2, 4, 8, 15, 15],
    )
    assert.equal(lockDuration(2, policy), 0)
  })

  test('finding 7: a key quiet for a whole window after its lock starts over', () => {
    const { state } = attempts(3, undefined, 0)
    assert.ok(state)
    const quietAt = state.blockedUntil + policy.windowMs
    const fresh = reserveAttempt(state, policy, quietAt)
    assert.ok(fresh.allowed)
    assert.equal(fresh.next.failures, 1)
    assert.equal(isThrottleStateStale(state, policy, quietAt - 1), false)
    assert.equal(isThrottleStateStale(state, policy, quietAt), true)
    const again = reserveAttempt(state, policy, quietAt - 1)
    assert.ok(again.allowed)
    assert.equal(again.next.failures, 4, 'an attempt right after the lock keeps counting')
  })

  test('finding 1: a right password gives its reservation back and lifts the lock it set', () => {
    const { state } = attempts(3, undefined, 0)
    const back = releaseAttempt(state, policy, 10)
    assert.deepEqual(back, { failures: 2, windowStartedAt: 0, lastAttemptAt: 0, blockedUntil: 0 })
    assert.equal(releaseAttempt(attempts(1, undefined, 0).state, policy, 1), undefined)
    assert.equal(releaseAttempt(undefined, policy, 1), undefined)
  })
})
