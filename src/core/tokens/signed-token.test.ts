import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, test } from 'node:test'
import { signToken, verifyToken, type TokenClaims } from './signed-token.js'

const secret = randomBytes(32)
const now = 1_800_000_000_000
const claims: TokenClaims = {
  scope: 'wopi',
  fileId: 'AAAAAAAAAAAAAAAAAAAAAA',
  userId: 'BBBBBBBBBBBBBBBBBBBBBB',
  permission: 'write',
  expiresAt: now + 60_000,
}

describe('signed tokens', () => {
  test('a token verifies with its claims intact', () => {
    const check = verifyToken(secret, signToken(secret, claims), 'wopi', now)
    assert.deepEqual(check, { ok: true, claims })
  })

  test('the version claim round-trips', () => {
    const token = signToken(secret, { ...claims, scope: 'download', version: 7 })
    const check = verifyToken(secret, token, 'download', now)
    assert.equal(check.ok && check.claims.version, 7)
  })

  test("a link guest's claims (the link's key hash and the guest's name) round-trip", () => {
    const guest = { ...claims, userId: 'guest-abc', link: 'c'.repeat(64), name: 'Gina "G" <x>' }
    assert.deepEqual(verifyToken(secret, signToken(secret, guest), 'wopi', now), { ok: true, claims: guest })
  })

  test("a presigned link's token passes as nothing else, and nothing else passes as one", () => {
    const presigned = signToken(secret, { ...claims, scope: 'presigned', version: 3 })
    assert.equal(verifyToken(secret, presigned, 'presigned', now).ok, true)
    for (const scope of ['wopi', 'download', 'callback'] as const) {
      assert.deepEqual(verifyToken(secret, presigned, scope, now), { ok: false, reason: 'wrong-scope' })
      const other = signToken(secret, { ...claims, scope })
      assert.deepEqual(verifyToken(secret, other, 'presigned', now), { ok: false, reason: 'wrong-scope' })
    }
  })

  test('tokens are URL-safe', () => {
    assert.match(signToken(secret, claims), /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
  })

  test('expired at exactly expiresAt', () => {
    const token = signToken(secret, claims)
    assert.deepEqual(verifyToken(secret, token, 'wopi', claims.expiresAt), { ok: false, reason: 'expired' })
    assert.equal(verifyToken(secret, token, 'wopi', claims.expiresAt - 1).ok, true)
  })

  test('another secret, a changed payload or a changed signature is refused', () => {
    const token = signToken(secret, claims)
    assert.deepEqual(verifyToken(randomBytes(32), token, 'wopi', now), { ok: false, reason: 'bad-signature' })
    const [payload, mac] = token.split('.')
    const forged = Buffer.from(JSON.stringify({ s: 'wopi', f: 'other', u: 'x', p: 'w', e: now + 1e9 })).toString(
      'base64url',
    )
    assert.equal(verifyToken(secret, `${forged}.${mac}`, 'wopi', now).ok, false)
    const flipped = `${payload}.${mac?.slice(0, -2)}AA`
    assert.equal(verifyToken(secret, flipped, 'wopi', now).ok, false)
  })

  test('a token of one scope never passes as another', () => {
    const token = signToken(secret, { ...claims, scope: 'download' })
    assert.deepEqual(verifyToken(secret, token, 'wopi', now), { ok: false, reason: 'wrong-scope' })
  })

  test('malformed input is refused without throwing', () => {
    for (const bad of ['', '.', 'abc', 'a.b.c', '.abc', 'x'.repeat(5000), 'e30.e30']) {
      assert.equal(verifyToken(secret, bad, 'wopi', now).ok, false, bad.slice(0, 20))
    }
  })

  test('read permission is kept', () => {
    const token = signToken(secret, { ...claims, permission: 'read' })
    const check = verifyToken(secret, token, 'wopi', now)
    assert.equal(check.ok && check.claims.permission, 'read')
  })

  test('finding 11: one encoding only: padding, stray characters or a twin last character are refused', () => {
    const token = signToken(secret, claims)
    assert.equal(verifyToken(secret, token, 'wopi', now).ok, true)
    const variants = [`${token}=`, `${token}==`, `${token}!`, `${token} `, `${token}%3D`, ` ${token}`]
    // The MAC's last character carries 2 unused bits: its twins decode to the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const last = token.at(-1) ?? ''
    const base = alphabet.indexOf(last) & ~3
    for (let low = 0; low < 4; low++) {
      const twin = alphabet[base + low] ?? ''
      if (twin !== last) variants.push(token.slice(0, -1) + twin)
    }
    const [payload, signature] = token.split('.')
    variants.push(`${payload}=.${signature}`)
    for (const variant of variants) {
      assert.equal(verifyToken(secret, variant, 'wopi', now).ok, false, JSON.stringify(variant))
    }
  })
})
