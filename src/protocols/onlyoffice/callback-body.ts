import * as z from 'zod/mini'
import { describeIssues } from '../http/input-issues.js'

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

const userId = z.pipe(z.union([z.string(), z.number()]), z.transform(String))

/** An optional field: absent, or dropped when of the wrong type. */
function lenient<T extends z.ZodMiniType>(field: T) {
  return z.catch(z.optional(field), undefined)
}

const schema = z.looseObject({
  key: z.string().check(z.minLength(1), z.maxLength(128)),
  status: z.union([z.number().check(z.int()), z.pipe(z.string().check(z.regex(/^-?\d{1,9}$/)), z.transform(Number))]),
  users: lenient(z.array(userId)),
  actions: lenient(z.array(z.looseObject({ type: z.number().check(z.int()), userid: userId }))),
  url: lenient(z.string().check(z.minLength(1))),
  changesurl: lenient(z.string().check(z.minLength(1))),
  history: lenient(z.record(z.string(), z.unknown())),
  lastsave: lenient(z.string().check(z.minLength(1))),
  notmodified: lenient(z.boolean()),
  forcesavetype: lenient(z.number().check(z.int())),
  filetype: lenient(z.string().check(z.regex(/^[a-z0-9]{1,10}$/i))),
  userdata: lenient(z.string()),
})

/** The callback, or what is wrong with it. */
export type ParsedCallback = { ok: true; body: CallbackBody } | { ok: false; problem: string }

/** Reads a callback from already-parsed JSON; a problem names what is missing or wrong. */
export function parseCallbackBody(value: unknown): ParsedCallback {
  const result = schema.safeParse(value)
  if (!result.success) return { ok: false, problem: describeIssues(result.error.issues) }
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
