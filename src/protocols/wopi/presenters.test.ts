import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Fastify from 'fastify'
import { CHECK_FILE_INFO_SCHEMA, type CheckFileInfo } from './presenters.js'

function checkFileInfo(overrides: Partial<CheckFileInfo>): CheckFileInfo {
  return {
    BaseFileName: 'Report.docx',
    FileExtension: '.docx',
    OwnerId: 'owner-1',
    Size: 16384,
    UserId: 'user-1',
    UserFriendlyName: 'Ann',
    IsAnonymousUser: false,
    Version: 'v3',
    LastModifiedTime: '2026-01-02T03:04:05.678Z',
    SHA256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    SupportsLocks: true,
    SupportsGetLock: true,
    SupportsExtendedLockLength: true,
    SupportsUpdate: true,
    SupportsRename: true,
    SupportsDeleteFile: true,
    SupportsUserInfo: true,
    UserCanWrite: false,
    UserCanRename: false,
    UserCanNotWriteRelative: true,
    ReadOnly: true,
    FileNameMaxLength: 250,
    HostEditUrl: 'https://folio.example/wopi-host/f1?action=edit',
    HostViewUrl: 'https://folio.example/wopi-host/f1?action=view',
    UserInfo: '{"theme":"dark"}',
    BreadcrumbBrandName: 'Folio',
    ...overrides,
  }
}

describe('CheckFileInfo response schema', () => {
  test('the compiled serializer writes exactly what JSON.stringify writes', async () => {
    const bodies = [
      checkFileInfo({}),
      checkFileInfo({
        BaseFileName: 'Q3 "final" \\ draft\t\u0001 \u00e9t\u00e9 \u{1F600} \ud800.docx',
        UserFriendlyName: '',
        UserInfo: '\u2028\u2029</script>',
        UserCanWrite: true,
        Size: 0,
      }),
    ]
    const app = Fastify()
    let next = 0
    app.get('/info', { schema: { response: { 200: CHECK_FILE_INFO_SCHEMA } } }, async () =>
      bodies[next++],
    )
    try {
      for (const body of bodies) {
        const reply = await app.inject({ method: 'GET', url: '/info' })
        assert.equal(reply.statusCode, 200)
        assert.equal(reply.body, JSON.stringify(body))
      }
    } finally {
      await app.close()
    }
  })
})
