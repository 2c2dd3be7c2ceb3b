import { InvalidArgumentError, type Command } from 'commander'
import type { App } from '../app/create-app.js'
import { AUDIT_PAGE_LIMIT } from '../app/audit.js'
import { parseDuration } from '../config/units.js'
import { auditLine } from './audit-words.js'

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

/** `folio audit`: the newest entries of the audit trail, newest first. */
export function addAuditCommand(program: Command, withApp: WithApp): void {
  program
    .command('audit')
    .description('list the audit trail (sign-ins, account changes, deletes, restores, lock releases), newest first')
    .option('--limit <n>', `how many events to show (1-${AUDIT_PAGE_LIMIT})`, parseLimit, 50)
    .option('--since <when>', 'only events since then: a duration like 24h or 7d, or a date like 2026-01-31')
    .option('--json', 'print JSON (the stored codes, for scripts)', false)
    .action(async (options: { limit: number; since?: string; json: boolean }) => {
      const since = options.since === undefined ? undefined : parseSince(options.since, Date.now())
      const { page, names } = await withApp(async (app) => {
        const page = await app.audit.list(undefined, {
          offset: 0,
          limit: options.limit,
          ...(since === undefined ? {} : { since }),
        })
        // Shares name people by id; the sentences name them as they sign in.
        const users = options.json ? [] : await app.accounts.listUsers()
        return { page, names: new Map(users.map((u) => [u.id, u.userName])) }
      })
      if (options.json) {
        console.log(JSON.stringify(page.items, null, 2))
        return
      }
      for (const event of page.items) console.log(auditLine(event, names))
      if (page.total > page.items.length) {
        console.log(`(${page.items.length} of ${page.total} events; use --limit or --since for more)`)
      }
    })
}
