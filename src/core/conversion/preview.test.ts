import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { previewFormatOf, previewKinds } from './preview.js'

describe('how a file previews', () => {
  test('PDFs, raster images and text as they are; office documents converted; nothing else', () => {
    assert.deepEqual(previewFormatOf('pdf'), { kind: 'pdf', contentType: 'application/pdf' })
    assert.deepEqual(previewFormatOf('.JPG'), { kind: 'image', contentType: 'image/jpeg' })
    assert.deepEqual(previewFormatOf('md'), { kind: 'text', contentType: 'text/plain; charset=utf-8' })
    // Text formats are sent as text/plain, never as what a browser would run.
    assert.equal(previewFormatOf('csv')?.contentType, 'text/plain; charset=utf-8')
    for (const office of ['docx', 'doc', 'xlsx', 'odp', 'rtf'])
      assert.equal(previewFormatOf(office)?.kind, 'converted', office)
    // An SVG can carry script: it has no preview, like an archive or no extension.
    for (const none of ['svg', 'zip', 'exe', '', '../x']) assert.equal(previewFormatOf(none), undefined, none)
  })

  test('the table clients read agrees with the rule', () => {
    const kinds = previewKinds()
    for (const [extension, kind] of Object.entries(kinds))
      assert.equal(previewFormatOf(extension)?.kind, kind, extension)
    assert.equal(kinds.svg, undefined)
    assert.equal(kinds.png, 'image')
  })
})
