import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { AuditEvent } from '../core/entities.js'
import { auditLine, auditSentence } from './audit-words.js'

const names = new Map([
  ['u-bob', 'bob'],
  ['u-carol', 'carol'],
])

function event(fields: Partial<AuditEvent>): AuditEvent {
  return {
    id: 'e1',
    at: Date.UTC(2026, 10, 27, 9, 30),
    action: 'sign-in',
    actorId: 'u-alice',
    actorName: 'alice',
    address: '',
    targetType: '',
    targetId: '',
    targetName: '',
    detail: '',
    ...fields,
  }
}

describe('the audit trail in words', () => {
  test('a share change names who, what and to whom', () => {
    const folder = { targetType: 'folder' as const, targetId: 'f1', targetName: 'Projects' }
    assert.equal(
      auditSentence(event({ action: 'share-changed', ...folder, detail: 'access u-bob: 0' }), names),
      `alice removed bob's access to "Projects"`,
    )
    assert.equal(
      auditSentence(event({ action: 'share-changed', ...folder, detail: 'access u-bob: 1, u-carol: 2' }), names),
      `alice gave bob full access to "Projects", and gave carol read access to "Projects"`,
    )
    assert.equal(
      auditSentence(event({ action: 'share-changed', ...folder, detail: 'access u-gone: 6' }), names),
      `alice gave a removed user (u-gone) comment access to "Projects"`,
    )
  })

  test('accounts, files and links read as sentences; the console is named as such', () => {
    const user = { targetType: 'user' as const, targetId: 'u-bob', targetName: 'bob' }
    const file = { targetType: 'file' as const, targetId: 'x', targetName: 'Plan.docx' }
    const cases: Array<[Partial<AuditEvent>, string]> = [
      [{ action: 'admin-granted', actorName: 'cli', ...user }, 'the console made bob an admin'],
      [{ action: 'password-set', ...user }, `alice set bob's password`],
      [{ action: 'user-created', detail: 'admin', ...user }, 'alice created the admin account bob'],
      [
        { action: 'sign-in-failed', actorId: '', actorName: 'mallory', detail: 'wrong password' },
        'a sign-in as mallory failed (wrong password)',
      ],
      [{ action: 'file-deleted', detail: 'to the trash', ...file }, 'alice moved "Plan.docx" to the trash'],
      [{ action: 'version-restored', detail: 'version 3', ...file }, 'alice restored version 3 of "Plan.docx"'],
      [
        { action: 'link-changed', detail: 'link access 2', ...file },
        'alice set the link to "Plan.docx" to read access',
      ],
      [{ action: 'link-changed', detail: 'link turned off', ...file }, 'alice turned off the link to "Plan.docx"'],
      [
        {
          action: 'link-changed',
          detail: 'link access 2, no download, until 2030-01-01T00:00:00.000Z',
          targetType: 'folder',
          targetId: 'd',
          targetName: 'Team',
        },
        'alice set the link to "Team" to read access (no download, until 2030-01-01T00:00:00.000Z)',
      ],
    ]
    for (const [fields, sentence] of cases) assert.equal(auditSentence(event(fields), names), sentence)
  })

  test('a line has the time, the sentence and the address, with control characters shown escaped', () => {
    assert.equal(
      auditLine(
        event({ action: 'sign-in-failed', actorName: 'eve\u001b[2J', address: '10.0.0.9', detail: 'no such user' }),
        names,
      ),
      '2026-11-27T09:30:00.000Z  a sign-in as eve\\u001b[2J failed (no such user) (from 10.0.0.9)',
    )
  })
})
