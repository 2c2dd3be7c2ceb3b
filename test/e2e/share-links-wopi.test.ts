import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestServer, type TestServer } from '../support/folio-server.js'
import { call, signIn, type ApiReply } from '../support/portal-client.js'

/**
 * A file's share link over WOPI: a guest without an account gets a WOPI access token from
 * the link's key, works within the link's access, and the link's next change (lowered,
 * turned off) holds for the very next WOPI call made with the token already issued.
 */
describe('share links over WOPI', () => {
  let server: TestServer
  let owner: string

  before(async () => {
    server = await startTestServer()
    owner = await signIn(server.url)
  })
  after(() => server.dispose())

  async function upload(title: string, text: string): Promise<string> {
    const reply = await call(server.url, 'POST', `/api/2.0/files/@my/upload?title=${encodeURIComponent(title)}`, {
      token: owner,
      raw: text,
      headers: { 'Content-Type': 'application/octet-stream' },
    })
    assert.equal(reply.status, 201, reply.text)
    return reply.json.response.id
  }

  async function setLink(fileId: string, share: number): Promise<string> {
    const reply = await call(server.url, 'PUT', `/api/2.0/files/${fileId}/sharedlink`, {
      token: owner,
      body: { share },
    })
    assert.equal(reply.status, 200, reply.text)
    return share === 0 ? '' : (new URL(reply.json.response.sharedTo.shareLink).searchParams.get('doc') ?? '')
  }

  const launch = (fileId: string, query: string, headers: Record<string, string> = {}) =>
    call(server.url, 'POST', `/api/2.0/files/file/${fileId}/wopi?${query}`, { headers })

  const wopi = (fileId: string, token: string, override?: string, lock?: string, body?: string): Promise<ApiReply> => {
    const contents = override === 'PUT' || (override === undefined && body === 'contents')
    const path = `/wopi/files/${fileId}${contents ? '/contents' : ''}?access_token=${encodeURIComponent(token)}`
    const headers: Record<string, string> = {}
    if (override !== undefined) headers['X-WOPI-Override'] = override
    if (lock !== undefined) headers['X-WOPI-Lock'] = lock
    if (override === 'PUT_RELATIVE') headers['X-WOPI-SuggestedTarget'] = '.docx'
    return call(server.url, override === undefined ? 'GET' : 'POST', path, {
      headers,
      ...(override === 'PUT' || override === 'PUT_RELATIVE' ? { raw: body ?? '' } : {}),
    })
  }

  test('a ReadWrite link gives a guest an edit token: their own name, writes within the lock, no copies', async () => {
    const fileId = await upload('Linked.docx', 'original')
    const key = await setLink(fileId, 1)
    const launched = await launch(fileId, `doc=${encodeURIComponent(key)}&name=Gina`)
    assert.equal(launched.status, 200, launched.text)
    assert.equal(launched.json.response.permission, 'write')
    assert.match(launched.headers.get('set-cookie') ?? '', /^folio_guest=/)
    const token: string = launched.json.response.accessToken

    const info = (await wopi(fileId, token)).json
    assert.match(info.UserId, /^guest-/)
    assert.deepEqual(
      [info.UserFriendlyName, info.IsAnonymousUser, info.UserCanWrite, info.ReadOnly, info.UserCanNotWriteRelative],
      ['Gina', true, true, false, true],
    )
    assert.equal((await wopi(fileId, token, 'LOCK', 'guest-lock')).status, 200)
    assert.equal((await wopi(fileId, token, 'PUT', 'guest-lock', 'written by a guest')).status, 200)
    const download = await call(server.url, 'GET', `/api/2.0/files/file/${fileId}/download`, { token: owner })
    assert.equal(download.text, 'written by a guest')
    const history = await call(server.url, 'GET', `/api/2.0/files/file/${fileId}/history`, { token: owner })
    assert.equal(history.json.response[0].author.id, info.UserId)
    // Save a copy would make a file beside the one the link opens: refused.
    assert.equal((await wopi(fileId, token, 'PUT_RELATIVE', 'guest-lock', 'copy')).status, 401)
    assert.equal((await wopi(fileId, token, 'UNLOCK', 'guest-lock')).status, 200)

    // The token is for this file only.
    const other = await upload('Other.docx', 'other')
    assert.equal((await wopi(other, token)).status, 401)
  })

  test('lowering the link to Read stops writes with the token already issued; turning it off refuses the next call', async () => {
    const fileId = await upload('Revoked.docx', 'before')
    const key = await setLink(fileId, 1)
    const token: string = (await launch(fileId, `doc=${encodeURIComponent(key)}`)).json.response.accessToken
    assert.equal((await wopi(fileId, token)).json.UserCanWrite, true)

    await setLink(fileId, 2)
    const info = (await wopi(fileId, token)).json
    assert.deepEqual([info.UserCanWrite, info.ReadOnly], [false, true])
    assert.equal((await wopi(fileId, token, 'LOCK', 'L')).status, 401)
    assert.equal((await wopi(fileId, token, 'PUT', 'L', 'after')).status, 401)

    await setLink(fileId, 0)
    assert.equal((await wopi(fileId, token)).status, 404)
    assert.equal((await wopi(fileId, token, undefined, undefined, 'contents')).status, 404)
    // A new link has a new key: the old token stays refused, and so does the old key.
    const fresh = await setLink(fileId, 1)
    assert.notEqual(fresh, key)
    assert.equal((await wopi(fileId, token)).status, 404)
    assert.equal((await launch(fileId, `doc=${encodeURIComponent(key)}`)).status, 404)
    const download = await call(server.url, 'GET', `/api/2.0/files/file/${fileId}/download`, { token: owner })
    assert.equal(download.text, 'before')
  })

  test('a Read link gives view tokens only; a wrong key, no key and a trashed file give none', async () => {
    const fileId = await upload('Read only.docx', 'read')
    const key = await setLink(fileId, 2)
    assert.equal((await launch(fileId, `doc=${encodeURIComponent(key)}&mode=edit`)).status, 403)
    const view = await launch(fileId, `doc=${encodeURIComponent(key)}&mode=view`)
    assert.equal(view.status, 200, view.text)
    const token: string = view.json.response.accessToken
    assert.equal((await wopi(fileId, token, undefined, undefined, 'contents')).text, 'read')
    assert.equal((await wopi(fileId, token)).json.UserCanWrite, false)

    assert.equal((await launch(fileId, `doc=${encodeURIComponent(`${key}x`)}&mode=view`)).status, 404)
    assert.equal((await launch(fileId, 'mode=view')).status, 401)
    const deleted = await call(server.url, 'DELETE', `/api/2.0/files/file/${fileId}`, { token: owner })
    assert.equal(deleted.status, 200, deleted.text)
    assert.equal((await launch(fileId, `doc=${encodeURIComponent(key)}&mode=view`)).status, 404)
    assert.equal((await wopi(fileId, token)).status, 404)
  })
})
