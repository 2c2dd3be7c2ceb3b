import type { AuditEvent, FileRecord, UserRecord } from '../core/entities.js'
import { DomainError } from '../core/errors.js'
import { errorMessage, newId } from '../core/ids.js'
import type { AuditQuery } from '../ports/metadata-store.js'
import type { Principal } from './access.js'
import type { AppContext } from './context.js'

/** Who acted, as the audit trail names them. */
export interface AuditActor {
  /** The user's id; '' when nobody was signed in. */
  id: string
  /** The user's name, 'cli' for the console, 'folio' for Folio itself. */
  name: string
  /** The client address the request came from; 'local' for the console. */
  address: string
}

/** An administrator at the console (`folio user ...`). */
export const CONSOLE_ACTOR: AuditActor = { id: '', name: 'cli', address: 'local' }

/** Folio itself (the admin account made at the first start). */
export const SYSTEM_ACTOR: AuditActor = { id: '', name: 'folio', address: '' }

/** A signed-in user acting from `address`. */
export function actorOf(user: UserRecord, address: string): AuditActor {
  return { id: user.id, name: user.userName, address }
}

/** The actor of a principal (its address as the adapter passed it in). */
export function principalActor(by: Principal): AuditActor {
  return actorOf(by.user, by.address ?? '')
}

/** What an event is about, beyond its action and actor. */
export type AuditSubject = Pick<AuditEvent, 'targetType' | 'targetId' | 'targetName'>

/** No subject: the actor's own session. */
export const NO_SUBJECT: AuditSubject = { targetType: '', targetId: '', targetName: '' }

export function userSubject(user: UserRecord): AuditSubject {
  return { targetType: 'user', targetId: user.id, targetName: user.userName }
}

export function fileSubject(file: FileRecord): AuditSubject {
  return { targetType: 'file', targetId: file.id, targetName: file.title }
}

/** The longest text kept in a field: the trail must not become a place to store data. */
const FIELD_LIMIT = 256

function clip(text: string): string {
  return text.length > FIELD_LIMIT ? `${text.slice(0, FIELD_LIMIT - 1)}…` : text
}

/**
 * Records one event of the audit trail, stamped with the clock. The action has already
 * happened when this is called, so a failure to store the event does not undo or fail it:
 * the failure is logged (without the event's fields) and the caller carries on.
 */
export async function recordAudit(
  ctx: Pick<AppContext, 'store' | 'clock' | 'logger'>,
  action: AuditEvent['action'],
  actor: AuditActor,
  subject: AuditSubject = NO_SUBJECT,
  detail = '',
): Promise<void> {
  const event: AuditEvent = {
    id: newId(),
    at: ctx.clock.now(),
    action,
    actorId: actor.id,
    actorName: clip(actor.name),
    address: clip(actor.address),
    targetType: subject.targetType,
    targetId: subject.targetId,
    targetName: clip(subject.targetName),
    detail: clip(detail),
  }
  try {
    await ctx.store.audit.append(event)
  } catch (error) {
    ctx.logger.error({ action, error: errorMessage(error) }, 'could not record an audit event')
  }
}

/** Most events one page lists. */
export const AUDIT_PAGE_LIMIT = 1000

/**
 * One page of the audit trail, newest first, for an admin (FORBIDDEN for anyone else;
 * INVALID_INPUT for a negative offset or a count outside 1..AUDIT_PAGE_LIMIT). `by` is
 * undefined at the console, where the operator is trusted.
 */
export async function listAudit(
  ctx: AppContext,
  by: UserRecord | undefined,
  query: AuditQuery,
): Promise<{ total: number; items: AuditEvent[] }> {
  if (by !== undefined && !by.isAdmin) {
    throw new DomainError('FORBIDDEN', 'only an admin may read the audit trail')
  }
  if (!Number.isSafeInteger(query.offset) || query.offset < 0) {
    throw new DomainError('INVALID_INPUT', 'the start index must be 0 or more', { field: 'startIndex' })
  }
  if (!Number.isSafeInteger(query.limit) || query.limit < 1 || query.limit > AUDIT_PAGE_LIMIT) {
    throw new DomainError('INVALID_INPUT', `the count must be 1 to ${AUDIT_PAGE_LIMIT}`, { field: 'count' })
  }
  return ctx.store.audit.list(query)
}
