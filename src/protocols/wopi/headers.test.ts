import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DomainError } from '../../core/errors.js'
import {
  readAccessToken,
  readExpectedBodySize,
  readMaxExpectedSize,
  readOldLock,
  readOverride,
  readSaveFacts,
  readSuggestedTarget,
  requireLock,
} from './headers.js'

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    assert.ok(error instanceof DomainError)
    assert.equal(error.code, 'INVALID_INPUT')
    return error.details.field
  }
  assert.fail('expected INVALID_INPUT')
}

describe('WOPI header readers', () => {
  test('X-WOPI-Override is upper-cased; blank or absent is undefined', () => {
    assert.equal(readOverride({ 'x-wopi-override': 'put_relative' }), 'PUT_RELATIVE')
    assert.equal(readOverride({ 'x-wopi-override': '  ' }), undefined)
    assert.equal(readOverride({}), undefined)
  })

  test('X-WOPI-Lock is required (non-empty) for the lock operations', () => {
    assert.equal(requireLock({ 'x-wopi-lock': 'abc' }), 'abc')
    assert.equal(
      fieldOf(() => requireLock({})),
      'X-WOPI-Lock',
    )
    assert.equal(
      fieldOf(() => requireLock({ 'x-wopi-lock': '' })),
      'X-WOPI-Lock',
    )
    assert.equal(readOldLock({}), undefined)
    assert.equal(
      fieldOf(() => readOldLock({ 'x-wopi-oldlock': '' })),
      'X-WOPI-OldLock',
    )
  })

  test('names are UTF-7 decoded; invalid UTF-7 names the header', () => {
    const headers = { 'x-wopi-suggestedtarget': '+BB0EPgQyBEsEOQ-.docx' }
    assert.equal(readSuggestedTarget(headers), 'Новый.docx')
    assert.equal(
      fieldOf(() => readSuggestedTarget({ 'x-wopi-suggestedtarget': 'a+.docx' })),
      'X-WOPI-SuggestedTarget',
    )
  })

  test('sizes are non-negative integers; X-WOPI-Size must agree with Content-Length', () => {
    assert.equal(readMaxExpectedSize({ 'x-wopi-maxexpectedsize': '104857600' }), 104857600)
    assert.equal(
      fieldOf(() => readMaxExpectedSize({ 'x-wopi-maxexpectedsize': '-1' })),
      'X-WOPI-MaxExpectedSize',
    )
    assert.equal(readExpectedBodySize({ 'content-length': '5', 'x-wopi-size': '5' }), 5)
    assert.equal(readExpectedBodySize({ 'x-wopi-size': '7' }), 7)
    assert.equal(
      fieldOf(() => readExpectedBodySize({ 'content-length': '5', 'x-wopi-size': '6' })),
      'X-WOPI-Size',
    )
  })

  test('save facts come from X-WOPI-Editors and either flag prefix', () => {
    const facts = readSaveFacts({
      'x-wopi-editors': 'u1, ,u2',
      'x-lool-wopi-isexitsave': 'true',
      'x-editor-wopi-isautosave': 'TRUE',
      'x-lool-wopi-ismodifiedbyuser': 'false',
      'x-lool-wopi-timestamp': '2026-01-01T00:00:00.000Z',
    })
    assert.deepEqual(facts.editors, ['u1', 'u2'])
    assert.equal(facts.isExitSave, true)
    assert.equal(facts.isAutosave, true)
    assert.equal(facts.isModifiedByUser, false)
    assert.equal(facts.clientTimestamp, '2026-01-01T00:00:00.000Z')
    assert.deepEqual(readSaveFacts({}), { editors: [] })
  })

  test('the access token comes from the query, else from Authorization: Bearer', () => {
    assert.equal(readAccessToken('q', { authorization: 'Bearer h' }), 'q')
    assert.equal(readAccessToken(undefined, { authorization: 'Bearer h' }), 'h')
    assert.equal(readAccessToken(undefined, { authorization: 'h' }), undefined, 'the bare portal form is not WOPI')
    assert.equal(readAccessToken(['a', 'b'], {}), undefined)
    assert.equal(readAccessToken('', { authorization: 'Bearer h' }), 'h')
  })
})
