import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { isDomainError } from '../errors.js'
import { assertLegalName, assertValidTitle, repairName } from './name-rules.js'

const nameInvalid = (field: string) => (error: unknown) =>
  isDomainError(error) && error.code === 'NAME_INVALID' && error.details?.field === field

describe('name rules', () => {
  test('repairName makes a new item legal, as ONLYOFFICE does', () => {
    assert.equal(repairName('Meeting: notes? <v2>.docx'), 'Meeting_ notes_ _v2_.docx')
    assert.throws(() => repairName('..', 'name'), nameInvalid('name'))
  })
  test('assertLegalName refuses an illegal name as it stands, naming the field', () => {
    assert.doesNotThrow(() => assertLegalName('Report.docx'))
    assert.throws(() => assertLegalName('a/b.docx', 'newName'), nameInvalid('newName'))
  })
  test('assertValidTitle composes to NFC before it checks', () => {
    assert.equal(assertValidTitle('Cafe\u0301.docx'), 'Caf\u00e9.docx')
    assert.throws(() => assertValidTitle('CON.txt'), nameInvalid('title'))
  })
})
