import type { FastifyInstance } from 'fastify'
import * as z from 'zod/mini'
import type { AdapterContext } from '../../app/index.js'
import type { AuditEvent } from '../../core/entities.js'
import { isoWithOffset } from '../http/timestamps.js'
import { currentUser, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { parseInput, text, wholeNumber } from './schema.js'

const instant = z.pipe(
  text(0, 64).check(
    z.refine((value) => !Number.isNaN(Date.parse(value)), { message: 'must be a date or time (ISO 8601)' }),
  ),
  z.transform((value) => Date.parse(value)),
)

const auditQuery = z.object({
  startIndex: z._default(wholeNumber(0), 0),
  count: z._default(wholeNumber(1, 1000), 100),
  /** Only events at or after this time. */
  from: z.optional(instant),
  /** Only events before this time. */
  to: z.optional(instant),
})

/** One event as the API shows it. */
function presentEvent(event: AuditEvent) {
  return {
    id: event.id,
    date: isoWithOffset(event.at),
    action: event.action,
    userId: event.actorId,
    userName: event.actorName,
    ip: event.address,
    target: event.targetType === '' ? null : { type: event.targetType, id: event.targetId, title: event.targetName },
    detail: event.detail,
  }
}

/**
 * The audit trail for admins, at ONLYOFFICE's path: GET /security/audit/events/filter with
 * startIndex/count paging and optional from/to times, newest first. Others get 403.
 */
export function auditRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    for (const path of ['/security/audit/events/filter', '/security/audit/events/filter.json']) {
      app.get(path, { preHandler: requirePortalUser(ctx) }, async (request, reply) => {
        const query = parseInput(auditQuery, request.query)
        const page = await ctx.app.audit.list(currentUser(request), {
          offset: query.startIndex,
          limit: query.count,
          ...(query.from === undefined ? {} : { since: query.from }),
          ...(query.to === undefined ? {} : { until: query.to }),
        })
        reply.header('Cache-Control', 'no-store')
        return { ...success(page.items.map(presentEvent)), startIndex: query.startIndex, total: page.total }
      })
    }
  }
}
