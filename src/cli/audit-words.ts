import type { AuditEvent } from '../core/entities.js'

/** The access a share gives, in words (ONLYOFFICE's FileShare numbers as stored in the detail). */
const ACCESS_WORDS: Record<string, string> = {
  '1': 'full access',
  '2': 'read access',
  '3': 'no access',
  '5': 'review access',
  '6': 'comment access',
  '7': 'form-filling access',
  '8': 'custom-filter access',
}

/** Text written by users (a name tried at sign-in) shown without control characters. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function possessive(name: string): string {
  return name.endsWith('s') ? `${name}'` : `${name}'s`
}

/**
 * One audit event as a sentence: who did what to whom (`alice removed bob's access to
 * "Projects"`). `names` maps user ids to user names, for details that name people by id.
 */
export function auditSentence(event: AuditEvent, names: ReadonlyMap<string, string>): string {
  const actor = event.actorName === 'cli' ? 'the console' : event.actorName || 'someone'
  const target = event.targetName
  const quoted = `"${target}"`
  switch (event.action) {
    case 'sign-in':
      return `${actor} signed in`
    case 'sign-in-failed':
      return `a sign-in as ${event.actorName || 'an unknown user'} failed${event.detail ? ` (${event.detail})` : ''}`
    case 'sign-out':
      return `${actor} signed out`
    case 'user-created':
      return `${actor} created ${event.detail === 'admin' ? 'the admin account' : 'the account'} ${target}`
    case 'user-changed':
      return `${actor} changed ${possessive(target)} account${event.detail ? ` (${event.detail})` : ''}`
    case 'admin-granted':
      return `${actor} made ${target} an admin`
    case 'admin-withdrawn':
      return `${actor} withdrew ${possessive(target)} admin rights`
    case 'password-set':
      return `${actor} set ${possessive(target)} password`
    case 'user-removed':
      return `${actor} removed the account ${target}`
    case 'user-unlocked':
      return `${actor} unlocked ${possessive(target)} sign-in`
    case 'user-disabled':
      return `${actor} disabled ${possessive(target)} account`
    case 'user-enabled':
      return `${actor} enabled ${possessive(target)} account`
    case 'file-deleted':
      return event.detail === 'to the trash' ? `${actor} moved ${quoted} to the trash` : `${actor} deleted ${quoted}`
    case 'version-restored':
      return `${actor} restored ${event.detail || 'a version'} of ${quoted}`
    case 'lock-released':
      return `${actor} released the lock on ${quoted}`
    case 'share-changed':
      return shareSentences(actor, quoted, event.detail, names)
    case 'link-changed': {
      if (event.detail === 'link turned off') return `${actor} turned off the link to ${quoted}`
      // A folder link's detail goes on with its settings: ", no download", ", until <date>".
      const match = /^link access (\d+)((?:, .+)?)$/.exec(event.detail)
      const words = match?.[1] === undefined ? undefined : ACCESS_WORDS[match[1]]
      if (words === undefined) return `${actor} set the link to ${quoted} to ${event.detail}`
      const settings = match?.[2] ? ` (${match[2].slice(2)})` : ''
      return `${actor} set the link to ${quoted} to ${words}${settings}`
    }
  }
}

/** "access <userId>: <n>, ..." -> one clause per person. */
function shareSentences(actor: string, quoted: string, detail: string, names: ReadonlyMap<string, string>): string {
  const changes = detail
    .replace(/^access /, '')
    .split(', ')
    .map((part) => part.split(': '))
  const clauses = changes.map(([userId = '', access = '']) => {
    const who = names.get(userId) ?? `a removed user (${userId})`
    if (access === '0') return `removed ${possessive(who)} access to ${quoted}`
    return `gave ${who} ${ACCESS_WORDS[access] ?? `access ${access}`} to ${quoted}`
  })
  return `${actor} ${clauses.join(', and ')}`
}

/** One event as a line for people: the time, the sentence, and where it came from. */
export function auditLine(event: AuditEvent, names: ReadonlyMap<string, string>): string {
  const from = event.address && event.address !== 'local' ? ` (from ${event.address})` : ''
  return printable(`${new Date(event.at).toISOString()}  ${auditSentence(event, names)}${from}`)
}
