import { DomainError } from '../../core/errors.js'
import { errorMessage } from '../../core/ids.js'
import type { OutboundClient } from '../http/outbound.js'
import { signDocsToken } from './jwt.js'

/**
 * A client for the Docs command service
 * (https://api.onlyoffice.com/docs/docs-api/additional-api/command-service/): POST {internalUrl}/command with
 * `{c, key, ...}`, or `{token}` holding those claims when JWT is on.
 */

/** Command service error codes Folio reacts to. */
export const COMMAND_ERRORS = {
  ok: 0,
  unknownKey: 1,
  badCallbackUrl: 2,
  internal: 3,
  notModified: 4,
  unknownCommand: 5,
  badToken: 6,
  expiredToken: 7,
} as const

/** The service's answer: `error` plus whatever else the command returns. */
export interface CommandReply {
  key?: string
  error: number
  [field: string]: unknown
}

/** Where the command service is and how to sign for it. */
export interface CommandClientOptions {
  internalUrl: string
  jwtSecret: string | undefined
  /** ms for the whole request. */
  timeoutMs: number
  now: () => number
  /** The process's outbound HTTP client. */
  client: OutboundClient
}

/** The commands Folio sends; each resolves with Docs' reply, whatever its `error`. */
export interface DocsCommandClient {
  /** Sends any command; throws UPSTREAM_FAILED when Docs cannot be reached or answers oddly. */
  send(command: Record<string, unknown> & { c: string }): Promise<CommandReply>
  /** Asks Docs to save now; the status 6 callback follows later. */
  forcesave(key: string, userdata?: string): Promise<CommandReply>
  /** Who is connected; Docs also posts a status 1 (or 4) callback. */
  info(key: string, userdata?: string): Promise<CommandReply>
  /** Takes editing away from `users`, or from everyone when no list is given. */
  drop(key: string, users?: string[]): Promise<CommandReply>
  /** Tells open editors the document's new title. */
  meta(key: string, title: string): Promise<CommandReply>
}

/** Command tokens are short-lived: Docs verifies them at once. */
const COMMAND_TOKEN_SECONDS = 300

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Builds a command client over undici. */
export function docsCommandClient(options: CommandClientOptions): DocsCommandClient {
  const endpoint = `${options.internalUrl.replace(/\/+$/, '')}/command`

  async function send(command: Record<string, unknown> & { c: string }): Promise<CommandReply> {
    const body =
      options.jwtSecret === undefined
        ? command
        : { token: await signDocsToken(command, options.jwtSecret, options.now(), COMMAND_TOKEN_SECONDS) }
    // shardkey lets a sharded Docs (8.1+) route the command to the node holding the key.
    const url = typeof command.key === 'string' ? `${endpoint}?shardkey=${encodeURIComponent(command.key)}` : endpoint
    let text: string
    let status: number
    try {
      const response = await options.client.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs),
      })
      status = response.statusCode
      text = await response.body.text()
    } catch (error) {
      throw new DomainError('UPSTREAM_FAILED', `ONLYOFFICE Docs command service unreachable: ${errorMessage(error)}`)
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    if (status !== 200 || !isRecord(parsed) || typeof parsed.error !== 'number') {
      throw new DomainError('UPSTREAM_FAILED', `ONLYOFFICE Docs command service answered ${status}`)
    }
    return { ...parsed, error: parsed.error }
  }

  return {
    send,
    forcesave: (key, userdata) =>
      send(userdata === undefined ? { c: 'forcesave', key } : { c: 'forcesave', key, userdata }),
    info: (key, userdata) => send(userdata === undefined ? { c: 'info', key } : { c: 'info', key, userdata }),
    drop: (key, users) => send(users === undefined ? { c: 'drop', key } : { c: 'drop', key, users }),
    meta: (key, title) => send({ c: 'meta', key, meta: { title } }),
  }
}
