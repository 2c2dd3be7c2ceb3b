import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { describe, test } from 'node:test'
import { RawRequest } from './raw-request.js'

function message(url: string, headers: Record<string, string>, remoteAddress = '10.0.0.9'): IncomingMessage {
  // Only what RawRequest reads of a message.
  const fake: unknown = { method: 'GET', url, headers, socket: { remoteAddress } }
  return fake as IncomingMessage
}

describe('RawRequest', () => {
  test('path and query: a repeated parameter is an array, percent-encoding decoded', () => {
    const request = new RawRequest(message('/wopi/files/a?access_token=x%2By&t=1&t=2', {}), false)
    assert.equal(request.path, '/wopi/files/a')
    assert.equal(request.url, '/wopi/files/a?access_token=x%2By&t=1&t=2')
    assert.equal(request.query.access_token, 'x+y')
    assert.deepEqual(request.query.t, ['1', '2'])
    assert.deepEqual({ ...new RawRequest(message('/x', {}), false).query }, {})
  })

  test('without FOLIO_TRUST_PROXY, forwarded headers describe nothing', () => {
    const headers = { 'x-forwarded-for': '1.2.3.4', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.test', host: 'folio.test' }
    const request = new RawRequest(message('/', headers), false)
    assert.equal(request.ip, '10.0.0.9')
    assert.equal(request.protocol, 'http')
    assert.equal(request.host, 'folio.test')
  })

  test('with FOLIO_TRUST_PROXY, the client is the first X-Forwarded-For address, scheme and host the last entries', () => {
    const headers = {
      'x-forwarded-for': ' 1.2.3.4 , 10.0.0.1',
      'x-forwarded-proto': 'http, https',
      'x-forwarded-host': 'a.test, folio.example',
      host: 'internal:8080',
    }
    const request = new RawRequest(message('/', headers), true)
    assert.equal(request.ip, '1.2.3.4')
    assert.equal(request.protocol, 'https')
    assert.equal(request.host, 'folio.example')
    assert.equal(new RawRequest(message('/', {}), true).ip, '10.0.0.9')
  })
})
