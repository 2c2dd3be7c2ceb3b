import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { checkFileInfoJson, type CheckFileInfo } from './presenters.js'

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

describe('CheckFileInfo serializer', () => {
  test('the hand-written serializer writes exactly what JSON.stringify writes', () => {
    const bodies = [
      checkFileInfo({}),
      checkFileInfo({
        BaseFileName: 'Q3 "final" \\ draft\t\u0001 \u00e9t\u00e9 \u{1F600} \ud800.docx',
        UserFriendlyName: '',
        UserInfo: '\u2028\u2029</script>',
        UserCanWrite: true,
        Size: 0,
      }),
      checkFileInfo({ DisablePrint: true, HidePrintOption: true, DisableExport: true, HideExportOption: true }),
    ]
    for (const body of bodies) assert.equal(checkFileInfoJson(body), JSON.stringify(body))
  })
})
