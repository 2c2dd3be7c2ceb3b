import type { FastifyInstance } from 'fastify'
import type { Readable } from 'node:stream'
import type { AdapterContext } from '../../app/index.js'
import { DomainError } from '../../core/errors.js'
import type { OutboundClient } from '../http/outbound.js'
import { toInternalDocsUrl, type DocsAddresses } from './docs-url.js'
import { signDocsToken } from './jwt.js'
import { sendDownloadRefusal } from './replies.js'

/**
 * What the ONLYOFFICE Docs converter driver needs from this adapter: the outbound client
 * (POSTs to /converter, the result's download), the Docs-link vetting of editor saves,
 * the Docs JWT, and a link to a conversion's source that Docs can fetch from Folio.
 */

/** Conversion requests are verified by Docs at once: their tokens are short-lived. */
const CONVERTER_TOKEN_SECONDS = 300

/** Life of a source link: the longest a conversion may run, and some room. */
export const CONVERT_SOURCE_LINK_TTL_MS = 30 * 60_000

/** Path of the source links (under the Folio root). */
export const CONVERT_SOURCE_PATH = '/onlyoffice/convert-source'

/** The `fileId` a source link's token names: blob keys never look like file ids. */
const sourceTokenId = (blobKey: string) => `blob:${blobKey}`

/** The transport calls the Docs converter driver makes. */
export function docsConverterTransport(options: {
  docs: DocsAddresses
  jwtSecret: string | undefined
  now: () => number
  client: OutboundClient
}) {
  return {
    async postJson(url: string, body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
      const response = await options.client.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      })
      return { status: response.statusCode, text: await response.body.text() }
    },
    async get(url: string, timeoutMs: number): Promise<{ status: number; body: Readable }> {
      const response = await options.client.get(url, timeoutMs)
      return { status: response.statusCode, body: response.body }
    },
    vetDocsLink: (link: string) => toInternalDocsUrl(link, options.docs),
    sign: async (claims: Record<string, unknown>) =>
      options.jwtSecret === undefined
        ? undefined
        : signDocsToken(claims, options.jwtSecret, options.now(), CONVERTER_TOKEN_SECONDS),
  }
}

/** A signed link Docs fetches a stored blob from, for one conversion. */
export function convertSourceLink(ctx: AdapterContext, blobKey: string): string {
  const token = ctx.app.tokens.sign({
    scope: 'download',
    fileId: sourceTokenId(blobKey),
    userId: 'converter',
    permission: 'read',
    expiresAt: ctx.clock.now() + CONVERT_SOURCE_LINK_TTL_MS,
  })
  return `${ctx.config.internalUrl}${CONVERT_SOURCE_PATH}/${encodeURIComponent(blobKey)}?token=${token}`
}

function textParam(value: unknown, name: string): string {
  if (typeof value !== 'object' || value === null) return ''
  const field: unknown = Reflect.get(value, name)
  return typeof field === 'string' ? field : ''
}

/** GET /onlyoffice/convert-source/:key?token=...: the blob a conversion link names, to Docs. */
export function convertSourceRoutes(ctx: AdapterContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get(`${CONVERT_SOURCE_PATH}/:key`, async (request, reply) => {
      const key = textParam(request.params, 'key')
      const check = ctx.app.tokens.verify(textParam(request.query, 'token'), 'download', ctx.clock.now())
      if (!check.ok || check.claims.fileId !== sourceTokenId(key)) return sendDownloadRefusal(reply, 403)
      try {
        const body = await ctx.app.files.openBlob(key)
        return reply.header('Content-Type', 'application/octet-stream').header('Cache-Control', 'no-store').send(body)
      } catch (error) {
        if (error instanceof DomainError && error.code === 'NOT_FOUND') return sendDownloadRefusal(reply, 404)
        throw error
      }
    })
  }
}
