import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { parseCallbackBody } from './callback-body.js'

// A status 2 body as ONLYOFFICE Docs sends it, shortened.
const STATUS_2 = {
  key: '-990938696',
  status: 2,
  url: 'http://ds/cache/files/data/-990938696_2421/output.docxf/output.docxf?md5=x&expires=1&filename=output.docxf',
  changesurl: 'http://ds/cache/files/data/-990938696_2421/changes.zip/changes.zip?md5=y&expires=1',
  history: {
    changes: [{ created: '2023-08-09 08:44:29', user: { id: 'uid-1', name: 'guest' } }],
    serverVersion: '7.4.1',
  },
  users: ['uid-1'],
  actions: [{ type: 0, userid: 'uid-1' }],
  lastsave: '2023-08-09T08:44:29.000Z',
  notmodified: false,
  token: 'ignored.here.x',
  filetype: 'docxf',
}

describe('parseCallbackBody', () => {
  test('reads every field of a status 2 body', () => {
    const parsed = parseCallbackBody(STATUS_2)
    assert.ok(parsed.ok)
    assert.deepEqual(parsed.body, {
      key: '-990938696',
      status: 2,
      url: STATUS_2.url,
      changesurl: STATUS_2.changesurl,
      history: STATUS_2.history,
      users: ['uid-1'],
      actions: [{ type: 0, userid: 'uid-1' }],
      lastsave: '2023-08-09T08:44:29.000Z',
      notmodified: false,
      filetype: 'docxf',
    })
  })

  test('status 4 has no users: the list is empty', () => {
    const parsed = parseCallbackBody({ key: 'k', status: 4, actions: [{ type: 0, userid: 'u' }] })
    assert.ok(parsed.ok)
    assert.deepEqual(parsed.body.users, [])
    assert.deepEqual(parsed.body.actions, [{ type: 0, userid: 'u' }])
  })

  test('unknown fields and optional fields of the wrong type are ignored', () => {
    const parsed = parseCallbackBody({
      key: 'k',
      status: 6,
      forcesavetype: 'button',
      users: 'not a list',
      history: [],
      encrypted: false,
      formsdataurl: 'x',
      filetype: '../../x',
    })
    assert.ok(parsed.ok)
    assert.deepEqual(parsed.body, { key: 'k', status: 6, users: [], actions: [] })
  })

  test('numeric user ids and a numeric string status are accepted', () => {
    const parsed = parseCallbackBody({ key: 'k', status: '1', users: [7, 'u'], actions: [{ type: 1, userid: 7 }] })
    assert.ok(parsed.ok)
    assert.equal(parsed.body.status, 1)
    assert.deepEqual(parsed.body.users, ['7', 'u'])
    assert.deepEqual(parsed.body.actions, [{ type: 1, userid: '7' }])
  })

  test('a body without key or status, or with a bad one, is a problem', () => {
    for (const body of [
      {},
      { status: 1 },
      { key: 'k' },
      { key: '', status: 1 },
      { key: 'k'.repeat(129), status: 1 },
      { key: 'k', status: 1.5 },
      { key: 7, status: 1 },
      null,
      [],
      'text',
    ]) {
      const parsed = parseCallbackBody(body)
      assert.equal(parsed.ok, false, JSON.stringify(body))
    }
  })
})
