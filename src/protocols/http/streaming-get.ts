import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

/** A response whose body has not been read yet. */
export interface StreamedResponse {
  statusCode: number
  headers: IncomingMessage['headers']
  /** The body; fails with the timeout's error if the deadline passes while it flows. */
  body: IncomingMessage
}

/** GETs of big bodies over keep-alive connections, one pool per scheme. */
export interface StreamingGetter {
  /**
   * GETs `url`; `timeoutMs` covers the whole exchange, headers and body. Redirects are
   * never followed (node:http does not), so a link cannot bounce Folio to another host.
   */
  get(url: string, timeoutMs: number): Promise<StreamedResponse>
  close(): void
}

/**
 * Written on node:http rather than undici: undici costs about 20 MiB of memory once
 * loaded (its parser and pools), more than a whole save's buffers, and node:http is
 * loaded already by the server itself.
 */
export function createStreamingGetter(): StreamingGetter {
  // An idle connection is dropped after 10 s, before a server's own keep-alive timeout
  // (nginx: 65 s) can close it under a request just sent on it.
  const pool = { keepAlive: true, maxSockets: 64, timeout: 10_000 }
  const agents = { http: new HttpAgent(pool), https: new HttpsAgent(pool) }
  return {
    get(url, timeoutMs) {
      const target = new URL(url)
      const secure = target.protocol === 'https:'
      if (!secure && target.protocol !== 'http:') {
        return Promise.reject(new Error(`not an http(s) address: ${target.protocol}`))
      }
      return new Promise((resolve, reject) => {
        const send = secure ? httpsRequest : httpRequest
        const request = send(target, { method: 'GET', agent: secure ? agents.https : agents.http })
        let response: IncomingMessage | undefined
        const timer = setTimeout(() => {
          const error = new Error(`no complete answer within ${timeoutMs} ms`)
          request.destroy(error)
          response?.destroy(error)
        }, timeoutMs)
        timer.unref()
        // `on`, not `once`: a second error must not go unhandled and end the process.
        request.on('error', (error) => {
          clearTimeout(timer)
          // After the headers, a failure of the connection is the body's to report.
          if (response === undefined) reject(error)
          else if (!response.destroyed) response.destroy(error)
        })
        request.once('response', (incoming) => {
          response = incoming
          incoming.once('close', () => clearTimeout(timer))
          resolve({ statusCode: incoming.statusCode ?? 0, headers: incoming.headers, body: incoming })
        })
        request.end()
      })
    },
    close() {
      agents.http.destroy()
      agents.https.destroy()
    },
  }
}
