import { ADMIN_PASSWORD } from './folio-server.js'

/** A reply as tests look at it. */
export interface ApiReply {
  status: number
  headers: Headers
  /** Parsed JSON when the body is JSON, else undefined. */
  json: any // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions dig into replies
  text: string
}

/** Calls Folio over real HTTP with global fetch. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: BodyInit } = {},
): Promise<ApiReply> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) }
  if (options.token) headers.Authorization = options.token
  let body: BodyInit | undefined = options.raw
  if (options.body !== undefined) {
    headers['Content-Type'] ??= 'application/json'
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
  }
  const response = await fetch(baseUrl + path, { method, headers, body, redirect: 'manual' })
  const text = await response.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, json, text }
}

/** Signs in and returns the portal token. */
export async function signIn(baseUrl: string, userName = 'admin', password = ADMIN_PASSWORD): Promise<string> {
  const reply = await call(baseUrl, 'POST', '/api/2.0/authentication.json', {
    body: { userName, password },
  })
  if (reply.status !== 201) throw new Error(`sign-in failed: ${reply.status} ${reply.text}`)
  return reply.json.response.token
}
