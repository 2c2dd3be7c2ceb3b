import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { DomainError } from '../../core/errors.js'
import {
  buildProofBuffer,
  buildProofUrl,
  msToProofTicks,
  parseDiscovery,
  proofTimestampToMs,
  publicKeyFromModulus,
  verifyProof,
  wopiActionUrl,
  type ProofInput,
} from './proof-keys.js'

const newPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 })
const keyA = newPair()
const keyB = newPair()

const WOPI_SRC = 'http://127.0.0.1:8080/wopi/files/AbCdEfGhIjKlMnOpQr'
const TOKEN = 'tok+en/with=odd&chars ü'
const NOW = Date.UTC(2025, 5, 1, 12, 0, 0)
const MINUTE = 60_000

// Signs the way ONLYOFFICE's wopiUtils.js does, written out by hand here so a
// mistake in buildProofBuffer cannot cancel itself out.
function signLikeClient(privateKey: KeyObject, token: string, url: string, ticks: string): string {
  const tokenBytes = Buffer.from(token, 'utf8')
  const urlBytes = Buffer.from(url.toUpperCase(), 'utf8')
  const parts = [u32(tokenBytes.length), tokenBytes, u32(urlBytes.length), urlBytes, u32(8), u64(BigInt(ticks))]
  return sign('RSA-SHA256', Buffer.concat(parts), privateKey).toString('base64')
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4)
  out.writeUInt32BE(value)
  return out
}

function u64(value: bigint): Buffer {
  const out = Buffer.alloc(8)
  out.writeBigUInt64BE(value)
  return out
}

function modulusAndExponent(key: KeyObject): { modulus: string; exponent: string } {
  const jwk = createPublicKey(key).export({ format: 'jwk' })
  assert.ok(typeof jwk.n === 'string' && typeof jwk.e === 'string')
  return {
    modulus: Buffer.from(jwk.n, 'base64url').toString('base64'),
    exponent: Buffer.from(jwk.e, 'base64url').toString('base64'),
  }
}

/** A CryptoAPI PUBLICKEYBLOB, the form of discovery's `value` attribute. */
function cspBlob(key: KeyObject): string {
  const { modulus } = modulusAndExponent(key)
  const n = Buffer.from(modulus, 'base64')
  const head = Buffer.alloc(20)
  head.writeUInt8(0x06, 0)
  head.writeUInt8(0x02, 1)
  head.writeUInt32LE(0xa400, 4)
  head.write('RSA1', 8, 'latin1')
  head.writeUInt32LE(n.length * 8, 12)
  head.writeUInt32LE(65537, 16)
  return Buffer.concat([head, Buffer.from(n).reverse()]).toString('base64')
}

function sameKey(a: KeyObject | undefined, b: KeyObject): boolean {
  if (a === undefined) return false
  return a.equals(createPublicKey(b))
}

describe('proof timestamps', () => {
  test('the Unix epoch and a known date convert to .NET ticks', () => {
    assert.equal(msToProofTicks(0), '621355968000000000')
    // DateTime(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc).Ticks
    assert.equal(msToProofTicks(Date.UTC(2024, 0, 1)), '638396640000000000')
  })

  test('ticks convert back to the same millisecond', () => {
    assert.equal(proofTimestampToMs(msToProofTicks(NOW)), NOW)
    assert.equal(proofTimestampToMs('638396640000000000'), Date.UTC(2024, 0, 1))
  })

  test('a timestamp that is not a tick count is refused', () => {
    const malformed = ['', 'abc', '-1', '1.5', '0x10', ' 638396640000000000', '99999999999999999999']
    for (const bad of malformed) {
      assert.throws(() => proofTimestampToMs(bad), DomainError, bad)
    }
  })
})

describe('buildProofBuffer', () => {
  test('lays out lengths, token, upper-cased URL, 8 and ticks big-endian', () => {
    const bytes = buildProofBuffer('ab', 'http://h/x?a=b', '621355968000000001')
    const expected = Buffer.concat([
      Buffer.from('00000002', 'hex'),
      Buffer.from('ab'),
      Buffer.from('0000000e', 'hex'),
      Buffer.from('HTTP://H/X?A=B'),
      Buffer.from('00000008', 'hex'),
      Buffer.from('089f7ff5f7b58001', 'hex'),
    ])
    assert.deepEqual(bytes, expected)
  })

  test('counts UTF-8 bytes, not characters', () => {
    const bytes = buildProofBuffer('ü', 'é', '0')
    assert.equal(bytes.readUInt32BE(0), 2)
    assert.equal(bytes.readUInt32BE(6), 2)
    assert.equal(bytes.length, 4 + 2 + 4 + 2 + 4 + 8)
  })
})

describe('buildProofUrl', () => {
  test('appends the path and the encoded token to WOPISrc', () => {
    assert.equal(buildProofUrl(WOPI_SRC, 'a b&c', 'contents'), `${WOPI_SRC}/contents?access_token=a%20b%26c`)
    assert.equal(buildProofUrl(WOPI_SRC, 'x', 'file'), `${WOPI_SRC}?access_token=x`)
  })
})

describe('verifyProof', () => {
  const url = buildProofUrl(WOPI_SRC, TOKEN, 'file')
  const ticks = msToProofTicks(NOW - 2 * MINUTE)
  const keysA = { current: createPublicKey(keyA.privateKey) }
  const signA = (at = ticks, target = url) => signLikeClient(keyA.privateKey, TOKEN, target, at)
  const signB = (at = ticks) => signLikeClient(keyB.privateKey, TOKEN, url, at)
  const check = (fields: Partial<ProofInput>) =>
    verifyProof({ accessToken: TOKEN, url, timestamp: ticks, keys: keysA, now: NOW, ...fields })

  test('accepts X-WOPI-Proof made with the current key', () => {
    assert.deepEqual(check({ proof: signA() }), { ok: true, matched: 'proof-current' })
  })

  test('compares the URL without regard to case', () => {
    assert.equal(check({ proof: signA(), url: url.toLowerCase() }).ok, true)
  })

  test('accepts X-WOPI-ProofOld with the current key once the client has rotated', () => {
    // The client now signs with B and keeps A as its old key; the host still knows only A.
    const result = check({ proof: signB(), proofOld: signA() })
    assert.deepEqual(result, { ok: true, matched: 'proofold-current' })
  })

  test('accepts X-WOPI-Proof with the old key while the client has not rotated yet', () => {
    // The host already learnt B as current and A as old; the client still signs with A.
    const keys = {
      current: createPublicKey(keyB.privateKey),
      old: createPublicKey(keyA.privateKey),
    }
    assert.deepEqual(check({ proof: signA(), keys }), { ok: true, matched: 'proof-old' })
  })

  test('rejects ProofOld checked against the old key (not one of the three combinations)', () => {
    const keys = {
      current: createPublicKey(newPair().privateKey),
      old: createPublicKey(keyA.privateKey),
    }
    const result = check({ proof: signB(), proofOld: signA(), keys })
    assert.deepEqual(result, { ok: false, reason: 'mismatch' })
  })

  test('rejects a timestamp older than 20 minutes and accepts one just inside', () => {
    const staleTicks = msToProofTicks(NOW - 21 * MINUTE)
    const stale = check({ timestamp: staleTicks, proof: signA(staleTicks) })
    assert.deepEqual(stale, { ok: false, reason: 'stale' })
    const freshTicks = msToProofTicks(NOW - 19 * MINUTE)
    assert.equal(check({ timestamp: freshTicks, proof: signA(freshTicks) }).ok, true)
  })

  test('honours a custom maxAgeMs', () => {
    const result = check({ proof: signA(), maxAgeMs: MINUTE })
    assert.deepEqual(result, { ok: false, reason: 'stale' })
  })

  test('rejects a timestamp far in the future', () => {
    const futureTicks = msToProofTicks(NOW + 30 * MINUTE)
    const result = check({ timestamp: futureTicks, proof: signA(futureTicks) })
    assert.deepEqual(result, { ok: false, reason: 'bad-timestamp' })
  })

  test('rejects a proof made for another URL', () => {
    const other = buildProofUrl(WOPI_SRC, TOKEN, 'contents')
    assert.deepEqual(check({ proof: signA(), url: other }), { ok: false, reason: 'mismatch' })
  })

  test('rejects a proof made for another token', () => {
    const result = check({ proof: signA(), accessToken: `${TOKEN}x` })
    assert.deepEqual(result, { ok: false, reason: 'mismatch' })
  })

  test('rejects a proof made for another timestamp', () => {
    const later = msToProofTicks(NOW - MINUTE)
    assert.deepEqual(check({ proof: signA(), timestamp: later }), { ok: false, reason: 'mismatch' })
  })

  test('rejects a signature that is not base64 of anything sensible', () => {
    assert.deepEqual(check({ proof: '%%%' }), { ok: false, reason: 'mismatch' })
  })

  test('reports missing proof or timestamp headers', () => {
    const missing = { ok: false, reason: 'missing' }
    assert.deepEqual(check({}), missing)
    assert.deepEqual(check({ proof: '' }), missing)
    assert.deepEqual(check({ proof: signA(), timestamp: undefined }), missing)
    assert.deepEqual(check({ proof: signA(), timestamp: '' }), missing)
  })

  test('reports a malformed timestamp', () => {
    for (const timestamp of ['yesterday', '-5', '6.3e17', '123 ']) {
      const result = check({ timestamp, proof: signA() })
      assert.deepEqual(result, { ok: false, reason: 'bad-timestamp' }, timestamp)
    }
  })
})

function onlyofficeDiscovery(base: string, proofKeyElement: string): string {
  const tail =
    '&lt;rs=DC_LLCC&amp;&gt;&lt;dchat=DISABLE_CHAT&amp;&gt;&lt;embed=EMBEDDED&amp;&gt;' +
    '&lt;fs=FULLSCREEN&amp;&gt;&lt;hid=HOST_SESSION_ID&amp;&gt;&lt;rec=RECORDING&amp;&gt;' +
    '&lt;sc=SESSION_CONTEXT&amp;&gt;&lt;thm=THEME_ID&amp;&gt;&lt;ui=UI_LLCC&amp;&gt;' +
    '&lt;wopisrc=WOPI_SOURCE&amp;&gt;&amp;'
  const wopi = `${base}/hosting/wopi`
  const locks = 'requires="locks,update"'
  const app = (name: string, type: string, exts: string[]) => {
    const view = `${wopi}/${type}/view?${tail}`
    const embed = `${wopi}/${type}/view?embed=1&amp;${tail}`
    const edit = `${wopi}/${type}/edit?${tail}`
    const actions = exts.map(
      (ext) =>
        `<action name="view" ext="${ext}" urlsrc="${view}"/>` +
        `<action name="embedview" ext="${ext}" urlsrc="${embed}"/>` +
        `<action name="edit" ext="${ext}" default="true" ${locks} urlsrc="${edit}"/>`,
    )
    return `<app name="${name}" favIconUrl="${base}/favicon.ico">${actions.join('')}</app>`
  }
  const convert = `${wopi}/convert-and-edit/doc/docx?${tail}`
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<wopi-discovery><net-zone name="external-http">' +
    app('Word', 'word', ['docx', 'odt']) +
    app('Excel', 'cell', ['xlsx']) +
    app('PowerPoint', 'slide', ['pptx']) +
    '<app name="Word">' +
    `<action name="view" ext="doc" default="true" urlsrc="${wopi}/word/view?${tail}"/>` +
    `<action name="convert" ext="doc" targetext="docx" requires="update" urlsrc="${convert}"/>` +
    '</app>' +
    '<app name="application/vnd.openxmlformats-officedocument.wordprocessingml.document">' +
    `<action name="edit" ext="" default="true" ${locks} urlsrc="${wopi}/word/edit?${tail}"/>` +
    '</app>' +
    '<!-- <app name="Ghost"><action name="view" ext="x" urlsrc="http://no"/></app> -->' +
    '<app name="Capabilities">' +
    `<action ext="" name="getinfo" ${locks} urlsrc="${base}/hosting/capabilities"/>` +
    '</app>' +
    '</net-zone>' +
    proofKeyElement +
    '</wopi-discovery>'
  )
}

describe('parseDiscovery', () => {
  const base = 'https://docs.example.com'
  const a = modulusAndExponent(keyA.privateKey)
  const b = modulusAndExponent(keyB.privateKey)
  const proofKeyElement =
    `<proof-key oldvalue="${cspBlob(keyA.privateKey)}" ` +
    `oldmodulus="${a.modulus}" oldexponent="${a.exponent}" ` +
    `value="${cspBlob(keyB.privateKey)}" modulus="${b.modulus}" exponent="${b.exponent}"/>`

  test('reads every action with its app, zone and decoded urlsrc', () => {
    const { actions } = parseDiscovery(onlyofficeDiscovery(base, proofKeyElement))
    // 4 editable extensions x 3 actions + doc view/convert + 1 MIME edit + getinfo
    assert.equal(actions.length, 12 + 2 + 1 + 1)
    const edit = actions.find((x) => x.app === 'Excel' && x.name === 'edit' && x.ext === 'xlsx')
    assert.deepEqual(edit, {
      app: 'Excel',
      name: 'edit',
      ext: 'xlsx',
      urlsrc:
        `${base}/hosting/wopi/cell/edit?<rs=DC_LLCC&><dchat=DISABLE_CHAT&><embed=EMBEDDED&>` +
        '<fs=FULLSCREEN&><hid=HOST_SESSION_ID&><rec=RECORDING&><sc=SESSION_CONTEXT&>' +
        '<thm=THEME_ID&><ui=UI_LLCC&><wopisrc=WOPI_SOURCE&>&',
      requires: 'locks,update',
      isDefault: true,
      zone: 'external-http',
    })
    const view = actions.find((x) => x.app === 'Word' && x.name === 'view' && x.ext === 'docx')
    assert.equal(view?.isDefault, false)
    assert.equal(view?.requires, undefined)
    const convert = actions.find((x) => x.name === 'convert')
    assert.equal(convert?.targetExt, 'docx')
    assert.equal(convert?.requires, 'update')
    assert.ok(actions.some((x) => x.app.startsWith('application/') && x.ext === ''))
    assert.ok(!actions.some((x) => x.app === 'Ghost'), 'commented-out markup is ignored')
  })

  test('builds current and old public keys from modulus and exponent', () => {
    const { proofKey } = parseDiscovery(onlyofficeDiscovery(base, proofKeyElement))
    assert.ok(proofKey)
    assert.ok(sameKey(proofKey.current, keyB.privateKey))
    assert.ok(sameKey(proofKey.old, keyA.privateKey))
  })

  test('the parsed keys verify proofs signed by the matching private keys', () => {
    const { proofKey } = parseDiscovery(onlyofficeDiscovery(base, proofKeyElement))
    assert.ok(proofKey)
    const url = buildProofUrl(WOPI_SRC, TOKEN, 'contents')
    const ticks = msToProofTicks(NOW)
    const proof = signLikeClient(keyB.privateKey, TOKEN, url, ticks)
    const proofOld = signLikeClient(keyA.privateKey, TOKEN, url, ticks)
    const check = verifyProof({
      accessToken: TOKEN,
      url,
      timestamp: ticks,
      proof,
      proofOld,
      keys: proofKey,
      now: NOW,
    })
    assert.deepEqual(check, { ok: true, matched: 'proof-current' })
  })

  test('falls back to the CryptoAPI blob in value when modulus is absent', () => {
    const element = `<proof-key value="${cspBlob(keyB.privateKey)}" ` + `oldvalue="${cspBlob(keyA.privateKey)}"/>`
    const { proofKey } = parseDiscovery(onlyofficeDiscovery(base, element))
    assert.ok(sameKey(proofKey?.current, keyB.privateKey))
    assert.ok(sameKey(proofKey?.old, keyA.privateKey))
  })

  test('has no proof key when the client publishes none', () => {
    const discovery = parseDiscovery(onlyofficeDiscovery(base, ''))
    assert.equal(discovery.proofKey, undefined)
    assert.ok(discovery.actions.length > 0)
  })

  test('accepts single quotes, whitespace and a namespace prefix', () => {
    const xml =
      "<wopi:wopi-discovery xmlns:wopi='urn:x'>\n  <net-zone name = 'internal-https' >\n" +
      "    <app name='Word'>\n" +
      "      <action name='view' ext='docx' urlsrc='https://x/v?a=1&amp;b=&#50;' />\n" +
      '    </app>\n  </net-zone>\n</wopi:wopi-discovery>'
    const { actions } = parseDiscovery(xml)
    assert.deepEqual(actions, [
      {
        app: 'Word',
        name: 'view',
        ext: 'docx',
        urlsrc: 'https://x/v?a=1&b=2',
        isDefault: false,
        zone: 'internal-https',
      },
    ])
  })

  test('refuses text that is not a discovery document', () => {
    assert.throws(() => parseDiscovery('<html><body>502 Bad Gateway</body></html>'), DomainError)
    assert.throws(() => parseDiscovery('{"error":1}'), DomainError)
  })

  test('refuses malformed markup', () => {
    const cutOff = '<wopi-discovery><app name="Word"><action name="view'
    assert.throws(() => parseDiscovery(cutOff), DomainError)
    assert.throws(() => parseDiscovery('<wopi-discovery><!-- never closed'), DomainError)
  })

  test('refuses a proof-key whose modulus is not base64', () => {
    const element = '<proof-key modulus="not base64!" exponent="AQAB"/>'
    assert.throws(() => parseDiscovery(onlyofficeDiscovery(base, element)), DomainError)
  })
})

describe('publicKeyFromModulus', () => {
  test('tolerates a leading zero byte on the modulus', () => {
    const { modulus, exponent } = modulusAndExponent(keyA.privateKey)
    const bytes = Buffer.concat([Buffer.from([0]), Buffer.from(modulus, 'base64')])
    const padded = bytes.toString('base64')
    assert.ok(sameKey(publicKeyFromModulus(padded, exponent), keyA.privateKey))
  })
})

describe('wopiActionUrl', () => {
  const tail =
    '<rs=DC_LLCC&><dchat=DISABLE_CHAT&><embed=EMBEDDED&><fs=FULLSCREEN&><hid=HOST_SESSION_ID&>' +
    '<rec=RECORDING&><sc=SESSION_CONTEXT&><thm=THEME_ID&><ui=UI_LLCC&><wopisrc=WOPI_SOURCE&>&'

  test('fills WOPISrc and language and drops the other placeholders', () => {
    const url = wopiActionUrl(`https://docs.example.com/hosting/wopi/word/edit?${tail}`, {
      wopiSrc: WOPI_SRC,
      lang: 'de-DE',
    })
    assert.equal(
      url,
      'https://docs.example.com/hosting/wopi/word/edit?rs=de-DE&ui=de-DE&wopisrc=' + encodeURIComponent(WOPI_SRC),
    )
  })

  test('keeps fixed parameters and fills extra placeholders by name', () => {
    const url = wopiActionUrl(`https://d/hosting/wopi/word/view?embed=1&${tail}`, {
      wopiSrc: WOPI_SRC,
      values: { THEME_ID: '2' },
    })
    const wopisrc = encodeURIComponent(WOPI_SRC)
    assert.equal(url, `https://d/hosting/wopi/word/view?embed=1&thm=2&wopisrc=${wopisrc}`)
  })

  test('appends WOPISrc to a Microsoft-style template that has no WOPI_SOURCE placeholder', () => {
    const template = 'https://w/we/wordeditorframe.aspx?<ui=UI_LLCC&><rs=DC_LLCC&><dchat=DISABLE_CHAT>'
    const wopisrc = encodeURIComponent(WOPI_SRC)
    assert.equal(wopiActionUrl(template, { wopiSrc: WOPI_SRC }), `https://w/we/wordeditorframe.aspx?WOPISrc=${wopisrc}`)
    assert.equal(
      wopiActionUrl(template, { wopiSrc: WOPI_SRC, lang: 'fr-FR' }),
      `https://w/we/wordeditorframe.aspx?ui=fr-FR&rs=fr-FR&WOPISrc=${wopisrc}`,
    )
  })

  test('fills the WOPI_SOURCE placeholder without appending a second WOPISrc', () => {
    const url = wopiActionUrl('https://d/v?<wopisrc=WOPI_SOURCE&>&', { wopiSrc: 'a/b' })
    assert.equal(url, 'https://d/v?wopisrc=a%2Fb')
  })

  test('ignores placeholder names that are Object.prototype members', () => {
    const url = wopiActionUrl('https://d/v?<x=toString&><wopisrc=WOPI_SOURCE&>', { wopiSrc: 'w' })
    assert.equal(url, 'https://d/v?wopisrc=w')
  })
})
