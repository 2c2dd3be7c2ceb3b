import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { SignJWT } from 'jose'
import { authenticateCallback, bearerToken, signDocsToken, verifyDocsToken } from './jwt.js'

const SECRET = 'unit-secret'
const NOW = Date.UTC(2024, 5, 1, 12, 0, 0)

/** Signs as Docs does: with an expiry (5 minutes unless given; null leaves `exp` out). */
function sign(claims: Record<string, unknown>, options: { secret?: string; iat?: number; exp?: number | null } = {}) {
  const iat = options.iat ?? Math.floor(NOW / 1000)
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(iat)
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? iat + 300)
  return jwt.sign(new TextEncoder().encode(options.secret ?? SECRET))
}

describe('verifyDocsToken', () => {
  test('round-trips claims without iat/exp and allows 60 s of clock skew', async () => {
    const token = await signDocsToken({ a: 1 }, SECRET, NOW, 300)
    assert.deepEqual(await verifyDocsToken(token, SECRET, NOW), { a: 1 })
    const justExpired = await sign({ a: 1 }, { exp: Math.floor(NOW / 1000) - 30 })
    assert.deepEqual(await verifyDocsToken(justExpired, SECRET, NOW), { a: 1 })
    const expired = await sign({ a: 1 }, { exp: Math.floor(NOW / 1000) - 120 })
    assert.equal(await verifyDocsToken(expired, SECRET, NOW), undefined)
    assert.equal(await verifyDocsToken(token, 'other', NOW), undefined)
    assert.equal(await verifyDocsToken('garbage', SECRET, NOW), undefined)
  })

  test('a token without exp is refused: it would never expire', async () => {
    assert.equal(await verifyDocsToken(await sign({ a: 1 }, { exp: null }), SECRET, NOW), undefined)
    const forever = await signDocsToken({ a: 1 }, SECRET, NOW)
    assert.equal(await verifyDocsToken(forever, SECRET, NOW), undefined)
  })
})

describe('bearerToken', () => {
  test('reads the token after Bearer, in any case', () => {
    assert.equal(bearerToken('Bearer abc.def.ghi'), 'abc.def.ghi')
    assert.equal(bearerToken('bearer x'), 'x')
    assert.equal(bearerToken(['Bearer y']), 'y')
    assert.equal(bearerToken('abc'), undefined)
    assert.equal(bearerToken(undefined), undefined)
  })
})

describe('authenticateCallback', () => {
  const plain = { key: 'k', status: 2, url: 'http://evil/x' }

  test('without a secret the plain body is taken', async () => {
    assert.deepEqual(await authenticateCallback(plain, undefined, undefined, NOW), {
      ok: true,
      claims: plain,
      via: 'none',
    })
  })

  test('the body token comes first and its flat claims are the callback', async () => {
    const token = await sign({ key: 'k', status: 4 })
    const header = `Bearer ${await sign({ payload: { key: 'k', status: 1 } })}`
    const auth = await authenticateCallback({ ...plain, token }, header, SECRET, NOW)
    assert.deepEqual(auth, { ok: true, claims: { key: 'k', status: 4 }, via: 'body' })
  })

  test("without a body token, the header token's payload is the callback", async () => {
    const header = `Bearer ${await sign({ payload: { key: 'k', status: 1 } })}`
    const auth = await authenticateCallback(plain, header, SECRET, NOW)
    assert.deepEqual(auth, { ok: true, claims: { key: 'k', status: 1 }, via: 'header' })
  })

  test('missing, bad or payload-less tokens are refused; a bad body token is not skipped', async () => {
    const goodHeader = `Bearer ${await sign({ payload: { key: 'k', status: 1 } })}`
    const cases: [Record<string, unknown>, string | undefined][] = [
      [plain, undefined],
      [plain, 'Bearer nonsense'],
      [plain, `Bearer ${await sign({ key: 'k', status: 1 })}`],
      [plain, `Bearer ${await sign({ payload: { key: 'k' } }, { secret: 'wrong' })}`],
      [{ ...plain, token: await sign({ key: 'k' }, { secret: 'wrong' }) }, goodHeader],
      [{ ...plain, token: 'not.a.jwt' }, goodHeader],
      [{ ...plain, token: await sign({ key: 'k', status: 4 }, { exp: null }) }, goodHeader],
      [plain, `Bearer ${await sign({ payload: { key: 'k', status: 1 } }, { exp: null })}`],
    ]
    for (const [body, header] of cases) {
      const auth = await authenticateCallback(body, header, SECRET, NOW)
      assert.equal(auth.ok, false)
    }
  })
})
