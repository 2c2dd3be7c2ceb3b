import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { describe, test } from 'node:test'
import { buildLogger } from './create-logger.js'
import { redactText } from './redact.js'

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdGF0dXMiOjJ9.c2lnbmF0dXJlLXZhbHVl'

function capture(): { lines: string[]; sink: Writable } {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString())
      done()
    },
  })
  return { lines, sink }
}

describe('logger redaction', () => {
  test('query parameters, bearer credentials and JWTs in any text', () => {
    assert.equal(redactText('/wopi/files/abc?access_token=s3cr3t&x=1'), '/wopi/files/abc?access_token=[redacted]&x=1')
    assert.equal(redactText('GET /dl/1?token=t0k&doc=d0c'), 'GET /dl/1?token=[redacted]&doc=[redacted]')
    assert.equal(redactText('Authorization: Bearer abc.def'), 'Authorization: Bearer [redacted]')
    assert.equal(redactText(`jwt ${JWT} end`), 'jwt [redacted] end')
    assert.equal(redactText('nothing to hide'), 'nothing to hide')
  })

  test('headers, fields, request URLs, errors and messages never carry the secret', () => {
    const { lines, sink } = capture()
    const logger = buildLogger({ level: 'debug', format: 'json', destination: sink })
    logger.info({ req: { method: 'GET', url: '/wopi/files/1?access_token=AT-1234567' } }, 'incoming')
    logger.info({ headers: { authorization: 'Bearer PT-1234567', cookie: 'folio_session=CK-1234567' } }, 'h')
    logger.info({ password: 'PW-1234567', nested: { token: 'TK-1234567' } }, 'fields')
    logger.warn({ url: 'http://docs/cache/x?token=LT-1234567', body: { note: JWT } }, 'url field')
    logger.error({ err: new Error('fetch http://f/onlyoffice/download/1?token=ET-1234567 failed') }, 'err')
    logger.info('message with ?access_token=MT-1234567 inside')
    logger.info({ deep: { a: { b: { c: 'x?doc=DT-1234567' } } } }, 'deep')
    const text = lines.join('')
    for (const secret of ['AT-', 'PT-', 'CK-', 'PW-', 'TK-', 'LT-', 'ET-', 'MT-', 'DT-', JWT]) {
      assert.ok(!text.includes(secret), `${secret} in ${text}`)
    }
    assert.equal(lines.length, 7)
    assert.match(text, /\/wopi\/files\/1\?access_token=\[redacted\]/)
    assert.match(text, /failed/)
  })
})
