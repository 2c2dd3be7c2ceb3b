import { InvalidArgumentError, type Command } from 'commander'
import type { App } from '../app/create-app.js'
import { AUDIT_PAGE_LIMIT } from '../app/audit.js'
import { parseDuration } from '../config/units.js'
import type { AuditEvent } from '../core/entities.js'

type WithApp = <T>(task: (app: App) => Promise<T>) => Promise<T>

function parseLimit(text: string): number {
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < 1 || value > AUDIT_PAGE_LIMIT) {
    throw new InvalidArgumentError(`must be a whole number from 1 to ${AUDIT_PAGE_LIMIT}`)
  }
  return value
}

/** '24h', '7d' (that long ago) or an ISO 8601 date or time -> milliseconds since the epoch. */
export function parseSince(text: string, now: number): number {
  const ago = parseDuration(text)
  if (ago !== undefined) return now - ago
  const at = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(at)) {
    throw new Error(`--since must be a duration like 24h or 7d, or a date like 2026-01-31, got '${text}'`)
  }
  return at
}

/** Text written by users (a name tried at sign-in) shown without control characters. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** One event as a tab-separated line: time, action, actor, address, target, detail. */
export function auditLine(event: AuditEvent): string {
  const target = event.targetType === '' ? '-' : `${event.targetType}:${event.targetName}`
  return [
    new Date(event.at).toISOString(),
    event.action,
    event.actorName || '-',
    event.address || '-',
    target,
    event.detail,
  ]
    .map(printable)
    .join('\t')
    .trimEnd()
}

/** `folio audit`: the newest entries of the audit trail, newest first. */
export function addAuditCommand(program: Command, withApp: WithApp): void {
  program
    .command('audit')
    .description('list the audit trail (sign-ins, account changes, deletes, restores, lock releases), newest first')
    .option('--limit <n>', `how many events to show (1-${AUDIT_PAGE_LIMIT})`, parseLimit, 50)
    .option('--since <when>', 'only events since then: a duration like 24h or 7d, or a date like 2026-01-31')
    .option('--json', 'print JSON', false)
    .action(async (options: { limit: number; since?: string; json: boolean }) => {
      const since = options.since === undefined ? undefined : parseSince(options.since, Date.now())
      const page = await withApp((app) =>
        app.audit.list(undefined, { offset: 0, limit: options.limit, ...(since === undefined ? {} : { since }) }),
      )
      if (options.json) {
        console.log(JSON.stringify(page.items, null, 2))
        return
      }
      for (const event of page.items) console.log(auditLine(event))
      if (page.total > page.items.length) {
        console.log(`(${page.items.length} of ${page.total} events; use --limit or --since for more)`)
      }
    })
}
