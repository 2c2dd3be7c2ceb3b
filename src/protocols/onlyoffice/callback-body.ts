import { z } from 'zod'

/**
 * The body ONLYOFFICE Docs posts to the callbackUrl
 * (https://api.onlyoffice.com/docs/docs-api/usage-api/callback-handler/) as Folio reads it. Unknown fields
 * are ignored, and so is an optional field of the wrong type (Docs versions differ in
 * small ways; a stray field must not cost a save). Only `key` and `status` are required.
 */

/** One `actions` item: 0 user left, 1 user joined, 2 user clicked Save. */
export interface CallbackAction {
  type: number
  userid: string
}

/** A callback's fields, as taken from the verified claims or the plain body. */
export interface CallbackBody {
  key: string
  status: number
  users: string[]
  actions: CallbackAction[]
  url?: string
  changesurl?: string
  history?: Record<string, unknown>
  lastsave?: string
  notmodified?: boolean
  forcesavetype?: number
  filetype?: string
  userdata?: string
}

const userId = z.union([z.string(), z.number()]).transform(String)

const schema = z
  .object({
    key: z.string().min(1).max(128),
    status: z.union([
      z.number().int(),
      z.string().regex(/^-?\d{1,9}$/).transform(Number),
    ]),
    users: z.array(userId).optional().catch(undefined),
    actions: z
      .array(z.object({ type: z.number().int(), userid: userId }).loose())
      .optional()
      .catch(undefined),
    url: z.string().min(1).optional().catch(undefined),
    changesurl: z.string().min(1).optional().catch(undefined),
    history: z.record(z.string(), z.unknown()).optional().catch(undefined),
    lastsave: z.string().min(1).optional().catch(undefined),
    notmodified: z.boolean().optional().catch(undefined),
    forcesavetype: z.number().int().optional().catch(undefined),
    filetype: z.string().regex(/^[a-z0-9]{1,10}$/i).optional().catch(undefined),
    userdata: z.string().optional().catch(undefined),
  })
  .loose()

/** The callback, or what is wrong with it. */
export type ParsedCallback = { ok: true; body: CallbackBody } | { ok: false; problem: string }

/** Reads a callback from already-parsed JSON; a problem names what is missing or wrong. */
export function parseCallbackBody(value: unknown): ParsedCallback {
  const result = schema.safeParse(value)
  if (!result.success) {
    const problem = result.error.issues
      .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
      .join('; ')
    return { ok: false, problem }
  }
  const d = result.data
  const body: CallbackBody = {
    key: d.key,
    status: d.status,
    users: d.users ?? [],
    actions: (d.actions ?? []).map((a) => ({ type: a.type, userid: a.userid })),
  }
  if (d.url !== undefined) body.url = d.url
  if (d.changesurl !== undefined) body.changesurl = d.changesurl
  if (d.history !== undefined) body.history = d.history
  if (d.lastsave !== undefined) body.lastsave = d.lastsave
  if (d.notmodified !== undefined) body.notmodified = d.notmodified
  if (d.forcesavetype !== undefined) body.forcesavetype = d.forcesavetype
  if (d.filetype !== undefined) body.filetype = d.filetype.toLowerCase()
  if (d.userdata !== undefined) body.userdata = d.userdata
  return { ok: true, body }
}
