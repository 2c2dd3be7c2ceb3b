import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { parse } from 'node:querystring'
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
    assert.equal(request.queryParam('access_token'), 'x+y')
    assert.deepEqual(request.queryParam('t'), ['1', '2'])
    assert.equal(new RawRequest(message('/x', {}), false).queryParam('t'), undefined)
  })

  test('a query parameter reads exactly as querystring.parse reads it', () => {
    const pieces = ['t', 'a', '=', '&', '+', '%74', '%', '%zz', '%C3%A9', 'é', ' ', '=t', 't=']
    const queries = ['t', 't=', '=', '&&t=1', 't=1=2', 't&t', '%74=1', 't+=1', 't=%zz', 't=1&&', '+t=1']
    queries.push(`${'&'.repeat(999)}t=1`, `${'&'.repeat(1000)}t=1`, `${'a=1&'.repeat(999)}t=2&t=3`)
    // A fixed pseudo-random sequence, so a failure is the same on every run.
    let seed = 7
    const next = () => (seed = (seed * 48271) % 2147483647)
    for (let i = 0; i < 3000; i++) {
      let query = ''
      for (let n = next() % 8; n > 0; n--) query += pieces[next() % pieces.length]
      queries.push(query)
    }
    for (const query of queries) {
      const request = new RawRequest(message(`/p?${query}`, {}), false)
      for (const name of ['t', 'a', 'é', 't ', '']) {
        assert.deepEqual(request.queryParam(name), parse(query)[name], `${name} in ${JSON.stringify(query)}`)
      }
    }
  })

  test('without FOLIO_TRUST_PROXY, forwarded headers describe nothing', () => {
    const headers = {
      'x-forwarded-for': '1.2.3.4',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.test',
      host: 'folio.test',
    }
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
