/** What a replayed app request got back: the status, the headers, the bytes and their JSON if they parse. */
export interface AppReply {
  status: number
  headers: Headers
  json: any // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are checked field by field
  body: Buffer
}

/**
 * Sends one request as a mobile app does: the headers given and nothing else, redirects
 * not followed (the apps handle them themselves), `path` relative to `base` unless it is a
 * whole URL (links Folio handed out).
 */
export async function sendAs(
  base: string,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: BodyInit } = {},
): Promise<AppReply> {
  const response = await fetch(path.startsWith('http') ? path : `${base}/${path}`, {
    method,
    headers: init.headers ?? {},
    ...(init.body === undefined ? {} : { body: init.body }),
    redirect: 'manual',
  })
  const body = Buffer.from(await response.arrayBuffer())
  let json: unknown
  try {
    json = JSON.parse(body.toString('utf8'))
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, json, body }
}
