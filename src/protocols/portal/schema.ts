import { z } from 'zod'
import { DomainError } from '../../core/errors.js'

/**
 * Request shapes of the portal API. ONLYOFFICE's own sample sends `username`
 * in lower case; the documented name is `userName`. Both are accepted.
 */
export const authenticationBody = z
  .object({
    userName: z.string().min(1).max(256).optional(),
    username: z.string().min(1).max(256).optional(),
    password: z.string().min(1).max(1024),
  })
  .refine((body) => body.userName !== undefined || body.username !== undefined, {
    message: 'userName is required',
    path: ['userName'],
  })
  .transform((body) => ({ userName: body.userName ?? body.username ?? '', password: body.password }))

export const titleBody = z.object({ title: z.string().min(1).max(1024) })

export const fileListQuery = z.object({
  startIndex: z.coerce.number().int().min(0).default(0),
  count: z.coerce.number().int().min(1).max(1000).default(100),
  sortBy: z
    .enum(['DateAndTime', 'DateAndTimeCreation', 'AZ', 'Title', 'Size', 'updated', 'created', 'title', 'size'])
    .default('DateAndTime'),
  sortOrder: z.enum(['ascending', 'descending']).optional(),
  filterValue: z.string().max(256).optional(),
})

export const fileIdParams = z.object({ fileId: z.string().min(1).max(128) })

export const versionParams = z.object({
  fileId: z.string().min(1).max(128),
  version: z.coerce.number().int().min(1),
})

/** Parses with a schema, turning problems into one INVALID_INPUT naming the fields. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value ?? {})
  if (result.success) return result.data
  const message = result.error.issues
    .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
    .join('; ')
  throw new DomainError('INVALID_INPUT', message)
}
