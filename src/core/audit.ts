/** Every action the audit trail records, in the words stored and shown to admins. */
export const AUDIT_ACTIONS = [
  'sign-in',
  'sign-in-failed',
  'sign-out',
  'user-created',
  'user-changed',
  'admin-granted',
  'admin-withdrawn',
  'password-set',
  'user-removed',
  'user-unlocked',
  'user-disabled',
  'user-enabled',
  'file-deleted',
  'version-restored',
  'lock-released',
  'share-changed',
  'link-changed',
] as const

/** What an audit event records. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

const KNOWN: ReadonlySet<string> = new Set(AUDIT_ACTIONS)

/** True for one of AUDIT_ACTIONS. */
export function isAuditAction(value: string): value is AuditAction {
  return KNOWN.has(value)
}

/**
 * A stored action read back. Throws on a value this code does not know (the row was
 * written by a newer Folio), rather than showing it as something else.
 */
export function parseAuditAction(value: string): AuditAction {
  if (!isAuditAction(value)) throw new Error(`unknown audit action '${value}' in the database`)
  return value
}
