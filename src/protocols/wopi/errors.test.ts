import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DomainError, ERROR_CODES } from '../../core/errors.js'
import { decodeUtf7 } from '../../core/names/utf7.js'
import { WOPI_STATUS, wopiErrorReply } from './errors.js'

describe('WOPI error table', () => {
  test('maps every domain error code to a WOPI status', () => {
    for (const code of ERROR_CODES) assert.ok(WOPI_STATUS[code] >= 400, code)
  })

  test('a lock mismatch is 409 with the current lock and the reason', () => {
    const reply = wopiErrorReply(new DomainError('LOCK_MISMATCH', 'locked', { currentLock: 'L1' }), 'Lock')
    assert.equal(reply.status, 409)
    assert.equal(reply.headers['X-WOPI-Lock'], 'L1')
    assert.equal(reply.headers['X-WOPI-LockFailureReason'], 'locked')
  })

  test('every 409 carries X-WOPI-Lock, the empty string when unlocked', () => {
    const unlocked = wopiErrorReply(new DomainError('LOCK_MISMATCH', 'not locked', { currentLock: '' }), 'Unlock')
    assert.equal(unlocked.headers['X-WOPI-Lock'], '')
    const taken = wopiErrorReply(
      new DomainError('NAME_TAKEN', 'taken', { suggestedName: 'Отчёт (2).docx' }),
      'PutRelativeFile',
    )
    assert.equal(taken.status, 409)
    assert.equal(taken.headers['X-WOPI-Lock'], '')
    assert.equal(decodeUtf7(taken.headers['X-WOPI-ValidRelativeTarget'] ?? ''), 'Отчёт (2).docx')
  })

  test('other statuses never carry X-WOPI-Lock; a read-only token is 401', () => {
    const forbidden = wopiErrorReply(new DomainError('FORBIDDEN', 'read-only'), 'PutFile')
    assert.equal(forbidden.status, 401)
    assert.equal(forbidden.headers['X-WOPI-Lock'], undefined)
    assert.equal(wopiErrorReply(new DomainError('PAYLOAD_TOO_LARGE', 'big'), 'PutFile').status, 413)
    assert.equal(wopiErrorReply(new DomainError('PRECONDITION_FAILED', 'big'), 'GetFile').status, 412)
    assert.equal(wopiErrorReply(new DomainError('NOT_SUPPORTED', 'no'), undefined).status, 501)
  })

  test('X-WOPI-InvalidFileNameError goes on RenameFile 400s only, as visible ASCII', () => {
    const error = new DomainError('NAME_INVALID', 'bad name “x”')
    const rename = wopiErrorReply(error, 'RenameFile')
    assert.equal(rename.status, 400)
    assert.equal(rename.headers['X-WOPI-InvalidFileNameError'], 'bad name ?x?')
    assert.equal(wopiErrorReply(error, 'PutRelativeFile').headers['X-WOPI-InvalidFileNameError'], undefined)
  })
})
