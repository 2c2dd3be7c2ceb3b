import { createHash } from 'node:crypto'
import { Agent, request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http'
import { performance } from 'node:perf_hooks'

/** Keep-alive connections for the bench's own calls (setup, uploads, checks). */
const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/** A reply as the bench looks at it. */
export interface Reply {
  status: number
  headers: IncomingHttpHeaders
  text: string
  /** Parsed JSON, or undefined when the body is not JSON. */
  json: unknown
  /** Milliseconds from sending the request to the end of the reply. */
  ms: number
}

/** Sends one request with an optional JSON or raw body and reads the whole reply. */
export async function jsonCall(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: Buffer; headers?: OutgoingHttpHeaders } = {},
): Promise<Reply> {
  const headers: OutgoingHttpHeaders = { ...options.headers }
  if (options.token) headers.authorization = options.token
  let payload = options.raw
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = Buffer.from(JSON.stringify(options.body))
  }
  if (payload) headers['content-length'] = String(payload.length)
  return send(baseUrl + path, method, headers, payload ? [payload] : [])
}

/**
 * Streams `chunks` as the request body (honouring back-pressure) and reads
 * the reply; `ms` covers the whole exchange.
 */
export function send(
  url: string,
  method: string,
  headers: OutgoingHttpHeaders,
  chunks: Iterable<Buffer>,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const req = request(url, { method, headers, agent }, (response) => {
      const parts: Buffer[] = []
      response.on('data', (part: Buffer) => parts.push(part))
      response.on('error', reject)
      response.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8')
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text,
          json: parseJson(text),
          ms: performance.now() - started,
        })
      })
    })
    req.on('error', reject)
    const iterator = chunks[Symbol.iterator]()
    const pump = () => {
      for (;;) {
        const next = iterator.next()
        if (next.done) {
          req.end()
          return
        }
        if (!req.write(next.value)) {
          req.once('drain', pump)
          return
        }
      }
    }
    pump()
  })
}

/** Downloads a URL and returns the SHA-256 and length of what arrived (never held whole). */
export function downloadHash(
  url: string,
  headers: OutgoingHttpHeaders = {},
): Promise<{ status: number; sha256: string; bytes: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers, agent }, (response) => {
      const hash = createHash('sha256')
      let bytes = 0
      response.on('data', (part: Buffer) => {
        bytes += part.length
        hash.update(part)
      })
      response.on('error', reject)
      response.on('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          sha256: hash.digest('hex'),
          bytes,
          headers: response.headers,
        })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

/** Follows a path of keys into parsed JSON; undefined when any step is missing. */
export function pick(value: unknown, ...path: (string | number)[]): unknown {
  let current = value
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined
    current = Reflect.get(current, key)
  }
  return current
}

/** pick() that insists on a string. */
export function pickString(value: unknown, ...path: (string | number)[]): string {
  const found = pick(value, ...path)
  if (typeof found !== 'string') throw new Error(`expected a string at ${path.join('.')}`)
  return found
}

/** The first value of a header as a string ('' when absent). */
export function headerOf(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name.toLowerCase()]
  if (Array.isArray(value)) return value[0] ?? ''
  return value ?? ''
}

function parseJson(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
