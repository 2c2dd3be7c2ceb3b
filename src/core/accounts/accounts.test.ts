import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  generatePassword,
  hashPassword,
  passwordProblem,
  userNameProblem,
  verifyPassword,
} from './passwords.js'
import { throttleWait } from './throttle.js'

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
  const policy = { maxFailures: 3, windowMs: 60_000 }

  test('no window or few failures: no wait', () => {
    assert.equal(throttleWait(undefined, policy, 0), 0)
    assert.equal(throttleWait({ failures: 2, windowStartedAt: 0 }, policy, 1000), 0)
  })

  test('at the limit: wait until the window ends (rounded up, at least 1 s)', () => {
    assert.equal(throttleWait({ failures: 3, windowStartedAt: 0 }, policy, 1000), 59)
    assert.equal(throttleWait({ failures: 3, windowStartedAt: 0 }, policy, 59_999), 1)
    assert.equal(throttleWait({ failures: 3, windowStartedAt: 0 }, policy, 60_000), 0)
  })
})
