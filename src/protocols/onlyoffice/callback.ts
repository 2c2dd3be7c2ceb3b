import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../app/context.js'
import {
  endEditingSession,
  recordEditors,
  recordSaveError,
  resolveAuthor,
  saveFromEditor,
} from '../../app/editing.js'
import { parseDocumentKey } from '../../core/documents/document-key.js'
import { isDomainError } from '../../core/errors.js'
import { errorMessage } from '../../core/ids.js'
import { verifyToken } from '../../core/tokens/signed-token.js'
import { parseCallbackBody, type CallbackBody } from './callback-body.js'
import type { DocsFetcher } from './docs-fetch.js'
import { toInternalDocsUrl } from './docs-url.js'
import { authenticateCallback } from './jwt.js'
import { ONLYOFFICE_PATHS } from './links.js'

/**
 * The editing callback (seed: "Editing callback"; fact sheet A2-A5, C1-C4).
 *
 * Replies, and why:
 * - 200 `{"error":0}`: handled. Also for a repeat of a save already stored, an unknown
 *   status (logged) and a file deleted meanwhile: Docs must not keep retrying those.
 * - 400 `{"error":1}`: the body is not a JSON object, lacks key or status, or a save
 *   (2/6) has no url. Nothing changes.
 * - 403 `{"error":1}`: refused. The callbackUrl token is missing, bad, expired or for
 *   another file; the JWT is required (a secret is set) but missing or bad; the key is
 *   not this file's; or url/changesurl are not on the Docs server (nothing is fetched).
 *   403, not 401: no credential the sender could add would help. Docs does not retry a
 *   4xx and keeps the edited file as "forgotten", so a misconfigured secret loses nothing.
 * - 413 `{"error":1}`: the saved file is larger than FOLIO_MAX_FILE_SIZE (a retry
 *   cannot help; Docs keeps it as forgotten).
 * - 500 `{"error":1}`: fetching or storing the saved file failed. Docs retries a status
 *   2 after 1, 2 and 4 s; the previous version is intact.
 * Only a 200 with error 0 counts as success for Docs, so each of these shows the user
 * an error where one is due.
 */

/** Docs may send long histories in the body; far more than any real callback. */
const CALLBACK_BODY_LIMIT = 16 * 1024 * 1024

interface Outcome {
  httpStatus: number
  message?: string
}

const OK: Outcome = { httpStatus: 200 }

function send(reply: FastifyReply, outcome: Outcome): FastifyReply {
  const body = outcome.httpStatus === 200
    ? { error: 0 }
    : { error: 1, message: outcome.message ?? 'refused' }
  return reply.code(outcome.httpStatus).header('Cache-Control', 'no-store').send(body)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0]
  return undefined
}

/** POST /onlyoffice/callback/:fileId?token=<signed callback token>. */
export function callbackRoutes(ctx: AppContext, fetch: DocsFetcher) {
  return async (app: FastifyInstance): Promise<void> => {
    // The body is parsed here, whatever its Content-Type, so bad JSON is our 400.
    app.removeAllContentTypeParsers()
    app.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    )
    app.setErrorHandler((error, request, reply) => {
      const status = isRecord(error) && typeof error.statusCode === 'number' ? error.statusCode : 500
      if (status >= 400 && status < 500) {
        return send(reply, { httpStatus: status, message: errorMessage(error) })
      }
      ctx.logger.error({ err: error, url: request.url }, 'ONLYOFFICE callback failed')
      return send(reply, { httpStatus: 500, message: 'internal error' })
    })

    app.post(`${ONLYOFFICE_PATHS.callback}/:fileId`, async (request, reply) =>
      send(reply, await handleCallback(ctx, fetch, request)),
    )
  }
}

async function handleCallback(
  ctx: AppContext,
  fetch: DocsFetcher,
  request: FastifyRequest,
): Promise<Outcome> {
  const docs = ctx.config.docs
  if (!docs) return { httpStatus: 403, message: 'ONLYOFFICE Docs is not configured' }
  const fileId = isRecord(request.params) ? firstString(request.params.fileId) ?? '' : ''
  const refuse = (reason: string): Outcome => {
    ctx.logger.warn({ fileId, reason }, 'refused an ONLYOFFICE callback')
    return { httpStatus: 403, message: 'callback refused' }
  }
  const now = ctx.clock.now()

  // 1. The URL: Folio issued it, for this file.
  const urlToken = isRecord(request.query) ? firstString(request.query.token) : undefined
  const issued = verifyToken(ctx.signingSecret, urlToken ?? '', 'callback', now)
  if (!issued.ok) return refuse(`callback URL token: ${issued.reason}`)
  if (issued.claims.fileId !== fileId) return refuse('callback URL token is for another file')

  // 2. The body: JSON, then the fields the JWT vouches for.
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '')
  } catch {
    return { httpStatus: 400, message: 'the body is not valid JSON' }
  }
  if (!isRecord(parsed)) return { httpStatus: 400, message: 'the body must be a JSON object' }
  const auth = await authenticateCallback(
    parsed,
    request.headers[docs.jwtHeader.toLowerCase()],
    docs.jwtSecret,
    now,
  )
  if (!auth.ok) return refuse(auth.reason)
  const read = parseCallbackBody(auth.claims)
  if (!read.ok) return { httpStatus: 400, message: read.problem }
  const body = read.body
  if (parseDocumentKey(body.key)?.fileId !== fileId) return refuse('the key is not this file\'s')

  try {
    return await applyCallback(ctx, fetch, fileId, issued.claims.userId, body)
  } catch (error) {
    // The file was deleted while open: nothing left to update, and nothing to retry.
    if (isDomainError(error) && error.code === 'NOT_FOUND') {
      ctx.logger.info({ fileId, status: body.status }, 'callback for a file that no longer exists')
      return OK
    }
    throw error
  }
}

async function applyCallback(
  ctx: AppContext,
  fetch: DocsFetcher,
  fileId: string,
  issuedTo: string,
  body: CallbackBody,
): Promise<Outcome> {
  switch (body.status) {
    case 1:
      await recordEditors(ctx, fileId, body.key, body.users)
      return OK
    case 4:
      await endEditingSession(ctx, fileId, body.key)
      return OK
    case 2:
    case 6:
      return save(ctx, fetch, fileId, issuedTo, body, body.status)
    case 3:
    case 7: {
      const message = body.status === 3
        ? 'ONLYOFFICE Docs could not save the edited document (status 3); the previous version is kept'
        : 'ONLYOFFICE Docs could not force-save the document (status 7); the previous version is kept'
      ctx.logger.warn({ fileId, key: body.key, status: body.status }, message)
      await recordSaveError(ctx, fileId, { status: body.status, documentKey: body.key, message }, body.status === 3)
      return OK
    }
    default:
      ctx.logger.info({ fileId, key: body.key, status: body.status }, 'ignored a callback of unknown status')
      return OK
  }
}

async function save(
  ctx: AppContext,
  fetch: DocsFetcher,
  fileId: string,
  issuedTo: string,
  body: CallbackBody,
  status: 2 | 6,
): Promise<Outcome> {
  const docs = ctx.config.docs
  if (!docs) return { httpStatus: 403, message: 'ONLYOFFICE Docs is not configured' }
  if (body.url === undefined) return { httpStatus: 400, message: `status ${status} without url` }
  const noteError = async (message: string) => {
    await recordSaveError(ctx, fileId, { status, documentKey: body.key, message }, false).catch(
      () => undefined,
    )
  }
  // Both links are vetted before either is fetched.
  const url = toInternalDocsUrl(body.url, docs)
  const changesUrl = body.changesurl === undefined ? undefined : toInternalDocsUrl(body.changesurl, docs)
  if (url === undefined || (body.changesurl !== undefined && changesUrl === undefined)) {
    const message = 'a save link is not on the ONLYOFFICE Docs server (check FOLIO_DOCS_URL and ' +
      'FOLIO_DOCS_INTERNAL_URL); nothing was fetched'
    ctx.logger.error({ fileId, url: body.url, changesurl: body.changesurl }, message)
    await noteError(message)
    return { httpStatus: 403, message: 'callback refused' }
  }
  try {
    const authorId = await resolveAuthor(ctx, body.users, issuedTo)
    const outcome = await saveFromEditor(
      ctx,
      {
        fileId,
        status,
        documentKey: body.key,
        url,
        changesUrl,
        originalUrl: body.url,
        authorId,
        users: body.users,
        lastsave: body.lastsave,
        notmodified: body.notmodified,
        forcesavetype: body.forcesavetype,
        filetype: body.filetype,
        history: body.history,
      },
      fetch,
    )
    if (outcome.kind === 'duplicate') {
      ctx.logger.info({ fileId, key: body.key, status }, 'a repeated save callback; already stored')
    }
    return OK
  } catch (error) {
    if (isDomainError(error) && error.code === 'NOT_FOUND') throw error
    const message = `could not store the saved document: ${errorMessage(error)}`
    ctx.logger.error({ err: error, fileId, key: body.key, status }, message)
    await noteError(message)
    if (isDomainError(error) && error.code === 'PAYLOAD_TOO_LARGE') {
      return { httpStatus: 413, message: 'the saved document is larger than the size limit' }
    }
    return { httpStatus: 500, message: 'could not store the saved document; retry' }
  }
}
