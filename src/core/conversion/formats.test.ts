import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  canConvert,
  conversionTargets,
  convertedName,
  familyOf,
  isConversionTarget,
  normalizeExtension,
  ooxmlTwinOf,
} from './formats.js'

describe('conversion format table', () => {
  test('a text document becomes pdf, docx, odt, txt, rtf or a thumbnail, never itself', () => {
    assert.deepEqual([...conversionTargets('docx')], ['pdf', 'odt', 'txt', 'rtf', 'png'])
    assert.deepEqual([...conversionTargets('.DOC')], ['pdf', 'docx', 'odt', 'txt', 'rtf', 'png'])
  })

  test('spreadsheets and presentations keep to their own kind', () => {
    assert.ok(canConvert('xls', 'xlsx'))
    assert.ok(canConvert('csv', '.pdf'))
    assert.ok(!canConvert('xlsx', 'docx'))
    assert.ok(!canConvert('pptx', 'csv'))
    assert.ok(canConvert('odp', 'pptx'))
  })

  test('a PDF only gives a thumbnail; unknown sources give nothing', () => {
    assert.deepEqual([...conversionTargets('pdf')], ['png'])
    assert.deepEqual([...conversionTargets('exe')], [])
    assert.equal(familyOf('../docx'), undefined)
    assert.ok(!canConvert('docx', 'exe'))
  })

  test('legacy and open formats have an OOXML twin, OOXML and PDF none', () => {
    assert.equal(ooxmlTwinOf('doc'), 'docx')
    assert.equal(ooxmlTwinOf('ods'), 'xlsx')
    assert.equal(ooxmlTwinOf('ppt'), 'pptx')
    assert.equal(ooxmlTwinOf('docx'), undefined)
    assert.equal(ooxmlTwinOf('pdf'), undefined)
  })

  test('extensions are normalised and checked', () => {
    assert.equal(normalizeExtension(' .PDF '), 'pdf')
    assert.equal(normalizeExtension('p/df'), undefined)
    assert.ok(isConversionTarget('png'))
    assert.ok(!isConversionTarget('exe'))
  })

  test('the converted name swaps the extension', () => {
    assert.equal(convertedName('report.final.docx', 'pdf'), 'report.final.pdf')
    assert.equal(convertedName('README', 'txt'), 'README.txt')
    assert.equal(convertedName('.hidden', 'pdf'), '.hidden.pdf')
  })
})
