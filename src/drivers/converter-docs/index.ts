import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { canConvert, normalizeExtension, THUMBNAIL_MAX_PIXELS } from '../../core/conversion/formats.js'
import { DomainError, isDomainError } from '../../core/errors.js'
import type { ConversionSource, ConvertedDocument, Converter } from '../../ports/converter.js'
import { SlotPool } from '../converter-shared/slot-pool.js'

/**
 * ONLYOFFICE Docs' conversion service
 * (https://api.onlyoffice.com/docs/docs-api/additional-api/conversion-api/): POST
 * {docs}/converter with the source's URL, asynchronously, the same request repeated until
 * it answers `endConvert`; the result is then downloaded from the `fileUrl` it names, and
 * only from Docs itself (the link is vetted like an editor's save link).
 */

/** Reaching Docs and Folio's own links: handed in by the composition root. */
export interface DocsConverterTransport {
  /** POSTs JSON to `url`; resolves with the HTTP status and the body text. */
  postJson(url: string, body: string, timeoutMs: number): Promise<{ status: number; text: string }>
  /** GETs `url` (already vetted); resolves with the status and the body stream. */
  get(url: string, timeoutMs: number): Promise<{ status: number; body: Readable }>
  /** The internal address of a link on the Docs server, or undefined for a link elsewhere. */
  vetDocsLink(link: string): string | undefined
  /** Signs the request's claims with the Docs JWT secret; undefined when JWT is off. */
  sign(claims: Record<string, unknown>): Promise<string | undefined>
  /**
   * A URL Docs can fetch the source from, for as long as the conversion runs; `release`
   * ends it (and removes what was stored for it).
   */
  publishSource(source: ConversionSource): Promise<{ url: string; release: () => Promise<void> }>
}

export interface DocsConverterOptions {
  /** Docs as Folio reaches it (FOLIO_DOCS_INTERNAL_URL). */
  internalUrl: string
  transport: DocsConverterTransport
  /** Longest one conversion may take, polling included (FOLIO_CONVERTER_TIMEOUT). */
  timeoutMs: number
  /** Conversions Folio asks Docs for at once (FOLIO_CONVERTER_WORKERS). */
  concurrency: number
  /** Conversions waiting for their turn; beyond them CONVERTER_BUSY (FOLIO_CONVERTER_QUEUE). */
  queueSize: number
  /** Largest result, bytes. */
  maxOutputBytes: number
  /** Pause between two polls. Default 500 ms. */
  pollIntervalMs?: number
  /** Parent of the driver's temporary folder. Default the system's. */
  tempRoot?: string
}

/** Docs' conversion error codes and what each means for the caller. */
const DOCS_ERRORS: Readonly<Record<number, { code: 'CONVERSION_FAILED' | 'UPSTREAM_FAILED'; message: string }>> = {
  [-1]: { code: 'UPSTREAM_FAILED', message: 'ONLYOFFICE Docs failed to convert (unknown error)' },
  [-2]: { code: 'CONVERSION_FAILED', message: 'the conversion took longer than ONLYOFFICE Docs allows' },
  [-3]: { code: 'CONVERSION_FAILED', message: 'the document could not be converted' },
  [-4]: {
    code: 'UPSTREAM_FAILED',
    message: 'ONLYOFFICE Docs could not download the document from Folio (check FOLIO_INTERNAL_URL)',
  },
  [-5]: { code: 'CONVERSION_FAILED', message: 'the document is protected by a password' },
  [-6]: { code: 'UPSTREAM_FAILED', message: 'ONLYOFFICE Docs could not reach its conversion database' },
  [-7]: { code: 'CONVERSION_FAILED', message: 'the document or its format was refused' },
  [-8]: { code: 'UPSTREAM_FAILED', message: 'ONLYOFFICE Docs refused the token (check FOLIO_DOCS_JWT_SECRET)' },
  [-9]: { code: 'CONVERSION_FAILED', message: 'the document is not of the format its extension says' },
  [-10]: { code: 'CONVERSION_FAILED', message: 'the document is too large for ONLYOFFICE Docs once unpacked' },
}

interface PollReply {
  endConvert: boolean
  percent: number
  fileUrl?: string
  error?: number
}

function parseReply(text: string): PollReply | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const field = (name: string): unknown => Reflect.get(value, name)
  const error = field('error')
  const fileUrl = field('fileUrl')
  const percent = field('percent')
  return {
    endConvert: field('endConvert') === true,
    percent: typeof percent === 'number' ? percent : 0,
    ...(typeof fileUrl === 'string' ? { fileUrl } : {}),
    ...(typeof error === 'number' ? { error } : {}),
  }
}

/** Refuses a body once it passes `limit` bytes. */
function byteLimit(limit: number): Transform {
  let seen = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length
      if (seen > limit)
        callback(new DomainError('CONVERSION_FAILED', `the converted document is larger than ${limit} bytes`))
      else callback(null, chunk)
    },
  })
}

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return 'its configured address'
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Opens the Docs converter; nothing is sent before the first conversion. */
export async function openDocsConverter(options: DocsConverterOptions): Promise<Converter> {
  const root = await mkdtemp(join(options.tempRoot ?? tmpdir(), 'folio-docs-convert-'))
  const endpoint = `${options.internalUrl.replace(/\/+$/, '')}/converter`
  const slots = new SlotPool(options.concurrency, options.queueSize)
  const pollInterval = options.pollIntervalMs ?? 500
  let closed = false

  async function ask(body: Record<string, unknown>, deadline: number): Promise<PollReply> {
    const token = await options.transport.sign(body)
    const payload = token === undefined ? body : { ...body, token }
    let answer: { status: number; text: string }
    try {
      answer = await options.transport.postJson(endpoint, JSON.stringify(payload), Math.max(1, deadline - Date.now()))
    } catch {
      throw new DomainError('UPSTREAM_FAILED', 'ONLYOFFICE Docs conversion service unreachable')
    }
    const reply = answer.status === 200 ? parseReply(answer.text) : undefined
    if (!reply) throw new DomainError('UPSTREAM_FAILED', `ONLYOFFICE Docs conversion service answered ${answer.status}`)
    if (reply.error !== undefined && reply.error !== 0) {
      const known = DOCS_ERRORS[reply.error]
      throw new DomainError(
        known?.code ?? 'UPSTREAM_FAILED',
        known?.message ?? `ONLYOFFICE Docs conversion error ${reply.error}`,
      )
    }
    return reply
  }

  async function download(fileUrl: string, path: string, limit: number, deadline: number): Promise<void> {
    const internal = options.transport.vetDocsLink(fileUrl)
    if (internal === undefined)
      throw new DomainError('UPSTREAM_FAILED', 'ONLYOFFICE Docs named a result outside its own address')
    const response = await options.transport.get(internal, Math.max(1, deadline - Date.now())).catch(() => {
      throw new DomainError('UPSTREAM_FAILED', 'the converted document could not be downloaded from ONLYOFFICE Docs')
    })
    if (response.status !== 200) {
      response.body.resume()
      throw new DomainError('UPSTREAM_FAILED', `ONLYOFFICE Docs answered ${response.status} for the converted document`)
    }
    await pipeline(response.body, byteLimit(limit), createWriteStream(path, { mode: 0o600 }))
  }

  return {
    // The origin alone: an address may carry credentials, and this line is logged.
    status: () => ({ kind: 'docs', detail: `ONLYOFFICE Docs at ${originOf(options.internalUrl)}` }),

    async convert(request): Promise<ConvertedDocument> {
      if (closed) throw new DomainError('CONVERTER_OFF', 'the converter has stopped')
      const extension = normalizeExtension(request.source.extension)
      if (extension === undefined || !canConvert(extension, request.target)) {
        throw new DomainError(
          'CONVERSION_UNSUPPORTED',
          `a .${extension ?? 'unknown'} file cannot be converted to .${request.target}`,
        )
      }
      const limit = Math.min(request.maxOutputBytes ?? options.maxOutputBytes, options.maxOutputBytes)
      const retryAfterSeconds = Math.max(1, Math.ceil(options.timeoutMs / 1000))
      const slot = await slots.acquire(
        request.signal,
        () =>
          new DomainError('CONVERTER_BUSY', 'every document converter is busy; try again shortly', {
            retryAfterSeconds,
          }),
      )
      const folder = await mkdtemp(join(root, 'job-'))
      const output = join(folder, `result.${request.target}`)
      let handedOver = false
      try {
        const deadline = Date.now() + options.timeoutMs
        const published = await options.transport.publishSource(request.source)
        try {
          // A fresh key per conversion: Docs caches results by key.
          const body: Record<string, unknown> = {
            async: true,
            filetype: extension,
            key: `folio-convert-${randomBytes(12).toString('hex')}`,
            outputtype: request.target,
            title: `document.${extension}`,
            url: published.url,
            ...(request.target === 'png'
              ? { thumbnail: { aspect: 1, first: true, width: THUMBNAIL_MAX_PIXELS, height: THUMBNAIL_MAX_PIXELS } }
              : {}),
          }
          let reply = await ask(body, deadline)
          while (!reply.endConvert) {
            if (Date.now() + pollInterval > deadline) {
              throw new DomainError(
                'CONVERSION_FAILED',
                `the conversion took longer than ${Math.round(options.timeoutMs / 1000)} s`,
              )
            }
            request.signal?.throwIfAborted()
            await delay(pollInterval)
            reply = await ask(body, deadline)
          }
          if (reply.fileUrl === undefined)
            throw new DomainError('UPSTREAM_FAILED', 'ONLYOFFICE Docs ended the conversion without a result')
          await download(reply.fileUrl, output, limit, deadline)
        } finally {
          await published.release()
        }
        const bytes = (await stat(output)).size
        handedOver = true
        const remove = () => rm(folder, { recursive: true, force: true })
        return {
          target: request.target,
          size: bytes,
          stream: () => {
            const stream = createReadStream(output)
            stream.once('close', () => void remove())
            return stream
          },
          discard: remove,
        }
      } catch (error) {
        if (isDomainError(error)) throw error
        throw new DomainError('UPSTREAM_FAILED', 'the conversion through ONLYOFFICE Docs failed')
      } finally {
        slots.release(slot)
        if (!handedOver) await rm(folder, { recursive: true, force: true })
      }
    },

    async close() {
      closed = true
      slots.close(() => new DomainError('CONVERTER_OFF', 'the converter has stopped'))
      await rm(root, { recursive: true, force: true })
    },
  }
}
