import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { AdapterContext } from '../../app/create-app.js'
import type { AuditEvent } from '../../core/entities.js'
import { isoWithOffset } from '../http/timestamps.js'
import { currentUser, requirePortalUser } from './authenticate.js'
import { success } from './envelope.js'
import { parseInput } from './schema.js'

const instant = z
  .string()
  .max(64)
  .refine((text) => !Number.isNaN(Date.parse(text)), { message: 'must be a date or time (ISO 8601)' })
  .transform((text) => Date.parse(text))

const auditQuery = z.object({
  startIndex: z.coerce.number().int().min(0).default(0),
  count: z.coerce.number().int().min(1).max(1000).default(100),
  /** Only events at or after this time. */
  from: instant.optional(),
  /** Only events before this time. */
  to: instant.optional(),
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
    target:
      event.targetType === ''
        ? null
        : { type: event.targetType, id: event.targetId, title: event.targetName },
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
