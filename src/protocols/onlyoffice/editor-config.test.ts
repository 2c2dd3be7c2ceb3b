import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { decodeJwt } from 'jose'
import { isDomainError } from '../../core/errors.js'
import { buildEditorConfig, effectiveMode, signEditorConfig, type EditorConfigInput } from './editor-config.js'

const FILE_ID = 'AbCdEfGhIjKlMnOpQrStUv'

function input(overrides: Partial<EditorConfigInput> = {}): EditorConfigInput {
  return {
    file: { id: FILE_ID, title: 'Report.docx', keyVersion: 3 },
    user: { id: 'u-1', name: 'Ann' },
    requestedMode: 'edit',
    access: 'owner',
    downloadUrl: 'http://folio/onlyoffice/download/x?token=d',
    callbackUrl: 'http://folio/onlyoffice/callback/x?token=c',
    lang: 'en',
    ...overrides,
  }
}

describe('buildEditorConfig', () => {
  test('an editor gets edit mode, a callbackUrl, the key of the key version and forcesave', () => {
    const config = buildEditorConfig(input())
    assert.deepEqual(config, {
      documentType: 'word',
      document: {
        fileType: 'docx',
        key: `${FILE_ID}.3`,
        title: 'Report.docx',
        url: 'http://folio/onlyoffice/download/x?token=d',
        permissions: {
          edit: true,
          review: true,
          comment: true,
          fillForms: true,
          download: true,
          print: true,
          copy: true,
        },
      },
      editorConfig: {
        mode: 'edit',
        user: { id: 'u-1', name: 'Ann' },
        lang: 'en',
        customization: { forcesave: true },
        callbackUrl: 'http://folio/onlyoffice/callback/x?token=c',
      },
    })
  })

  test('a viewer gets view mode, no edit permissions and no callbackUrl', () => {
    for (const config of [
      buildEditorConfig(input({ requestedMode: 'view' })),
      buildEditorConfig(input({ access: 'read' })),
      buildEditorConfig(input({ file: { id: FILE_ID, title: 'Old.doc', keyVersion: 1 } })),
    ]) {
      assert.equal(config.editorConfig.mode, 'view')
      assert.equal(config.editorConfig.callbackUrl, undefined)
      assert.equal('callbackUrl' in config.editorConfig, false)
      assert.equal(config.document.permissions.edit, false)
      assert.equal(config.document.permissions.download, true)
    }
  })

  test('documentType and fileType follow the extension, in lower case', () => {
    const sheet = buildEditorConfig(input({ file: { id: FILE_ID, title: 'Q1.XLSX', keyVersion: 1 } }))
    assert.equal(sheet.documentType, 'cell')
    assert.equal(sheet.document.fileType, 'xlsx')
    const slides = buildEditorConfig(input({ file: { id: FILE_ID, title: 'Deck.pptx', keyVersion: 1 } }))
    assert.equal(slides.documentType, 'slide')
  })

  test('a format Docs cannot open is NOT_SUPPORTED', () => {
    for (const title of ['archive.zip', 'README']) {
      assert.throws(
        () => buildEditorConfig(input({ file: { id: FILE_ID, title, keyVersion: 1 } })),
        (error) => isDomainError(error) && error.code === 'NOT_SUPPORTED',
      )
    }
  })

  test('a long title is cut to 128 characters, keeping the extension', () => {
    const title = `${'é'.repeat(200)}.docx`
    const config = buildEditorConfig(input({ file: { id: FILE_ID, title, keyVersion: 1 } }))
    assert.equal([...config.document.title].length, 128)
    assert.ok(config.document.title.endsWith('.docx'))
  })

  test('effectiveMode grants edit only when asked for, allowed and saveable', () => {
    assert.equal(effectiveMode('docx', 'edit', 'owner'), 'edit')
    assert.equal(effectiveMode('docx', 'edit', 'read'), 'view')
    assert.equal(effectiveMode('docx', 'edit', 'comment'), 'edit')
    assert.equal(effectiveMode('docx', 'view', 'owner'), 'view')
    assert.equal(effectiveMode('pdf', 'edit', 'owner'), 'view')
  })

  test('document.permissions follow the access: edit for ReadWrite, comment or review or fillForms only', () => {
    const perms = (access: Parameters<typeof effectiveMode>[2]) => {
      const config = buildEditorConfig(input({ access }))
      const p = config.document.permissions
      return {
        mode: config.editorConfig.mode,
        edit: p.edit,
        review: p.review,
        comment: p.comment,
        fillForms: p.fillForms,
      }
    }
    assert.deepEqual(perms('readwrite'), { mode: 'edit', edit: true, review: true, comment: true, fillForms: true })
    assert.deepEqual(perms('review'), { mode: 'edit', edit: false, review: true, comment: true, fillForms: false })
    assert.deepEqual(perms('comment'), { mode: 'edit', edit: false, review: false, comment: true, fillForms: false })
    assert.deepEqual(perms('fillForms'), { mode: 'edit', edit: false, review: false, comment: false, fillForms: true })
    assert.deepEqual(perms('read'), { mode: 'view', edit: false, review: false, comment: false, fillForms: false })
  })
})

describe('signEditorConfig', () => {
  test('the token holds the whole config and nothing Docs refuses at the top level', async () => {
    const config = buildEditorConfig(input())
    const signed = await signEditorConfig(config, 'secret', Date.UTC(2024, 0, 1))
    const claims = decodeJwt(signed.token ?? '')
    assert.deepEqual(claims.document, config.document)
    assert.deepEqual(claims.editorConfig, config.editorConfig)
    assert.equal(claims.documentType, 'word')
    for (const forbidden of ['url', 'key', 'payload']) assert.equal(claims[forbidden], undefined)
    assert.equal(claims.iat, Date.UTC(2024, 0, 1) / 1000)
    assert.equal(claims.exp, undefined)
    // The plain config is unchanged beside the token.
    assert.deepEqual({ ...signed, token: undefined }, { ...config, token: undefined })
  })
})
