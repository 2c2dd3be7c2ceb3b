import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { hashSessionToken, newSessionToken, tokenFromAuthorization } from './session-token.js'

describe('portal session tokens', () => {
  test('tokens carry 256 random bits and differ every time', () => {
    const a = newSessionToken()
    assert.equal(Buffer.from(a, 'base64url').length, 32)
    assert.notEqual(a, newSessionToken())
  })

  test('the stored hash is SHA-256 hex and does not contain the token', () => {
    const token = newSessionToken()
    const hash = hashSessionToken(token)
    assert.match(hash, /^[0-9a-f]{64}$/)
    assert.ok(!hash.includes(token))
  })

  test('Authorization: the token alone (as ONLYOFFICE clients send it) or Bearer <token>', () => {
    assert.equal(tokenFromAuthorization('abc123'), 'abc123')
    assert.equal(tokenFromAuthorization('Bearer abc123'), 'abc123')
    assert.equal(tokenFromAuthorization('bearer   abc123 '), 'abc123')
  })

  test('absent or malformed headers give no token', () => {
    for (const header of [undefined, '', '   ', 'Bearer', 'a b', 'Bearer a b', 'x'.repeat(600)]) {
      assert.equal(tokenFromAuthorization(header), undefined, String(header))
    }
  })
})
