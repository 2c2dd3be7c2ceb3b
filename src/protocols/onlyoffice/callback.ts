import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AdapterContext } from '../../app/index.js'
import { parseDocumentKey } from '../../core/documents/document-key.js'
import { editsInEditor } from '../../core/sharing/access-levels.js'
import { DomainError, isDomainError } from '../../core/errors.js'
import { errorMessage } from '../../core/ids.js'
import { parseCallbackBody, type CallbackBody } from './callback-body.js'
import type { DocsFetcher } from './docs-fetch.js'
import { toInternalDocsUrl } from './docs-url.js'
import { authenticateCallback } from './jwt.js'
import { ONLYOFFICE_PATHS } from './links.js'
import { sendCallbackError, sendCallbackReply } from './replies.js'

/**
 * The editing callback of ONLYOFFICE Docs
 * (https://api.onlyoffice.com/docs/docs-api/usage-api/callback-handler/): Docs posts the
 * document's status (1 editing, 2 ready to save, 3 save error, 4 closed unchanged, 6 force
 * save, 7 force-save error) to the callbackUrl Folio put in the editor config.
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
 * an error where one is due. The handler throws domain errors; CALLBACK_STATUS
 * (replies.ts) is the one table that turns them into these answers.
 */

/** Docs may send long histories in the body; far more than any real callback. */
const CALLBACK_BODY_LIMIT = 16 * 1024 * 1024

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0]
  return undefined
}

/** POST /onlyoffice/callback/:fileId?token=<signed callback token>. */
export function callbackRoutes(ctx: AdapterContext, fetch: DocsFetcher) {
  return async (app: FastifyInstance): Promise<void> => {
    // The body is parsed here, whatever its Content-Type, so bad JSON is our 400.
    app.removeAllContentTypeParsers()
    app.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    )
    // The one place a thrown error becomes a callback answer (CALLBACK_STATUS).
    app.setErrorHandler((error, request, reply) => {
      if (isDomainError(error)) return sendCallbackError(reply, error)
      const status = isRecord(error) && typeof error.statusCode === 'number' ? error.statusCode : 500
      if (status >= 400 && status < 500) return sendCallbackReply(reply, status, errorMessage(error))
      // The route pattern, never the URL: the URL carries the callback's token.
      ctx.logger.error({ err: error, route: request.routeOptions.url }, 'ONLYOFFICE callback failed')
      return sendCallbackReply(reply, 500, 'internal error')
    })

    app.post(`${ONLYOFFICE_PATHS.callback}/:fileId`, async (request, reply) => {
      await handleCallback(ctx, fetch, request)
      return sendCallbackReply(reply, 200)
    })
  }
}

/** Settles one callback; returns when it is handled, throws a DomainError to refuse it. */
async function handleCallback(
  ctx: AdapterContext,
  fetch: DocsFetcher,
  request: FastifyRequest,
): Promise<void> {
  const docs = ctx.config.docs
  if (!docs) throw new DomainError('FORBIDDEN', 'ONLYOFFICE Docs is not configured')
  const fileId = isRecord(request.params) ? firstString(request.params.fileId) ?? '' : ''
  const refuse = (reason: string): DomainError => {
    ctx.logger.warn({ fileId, reason }, 'refused an ONLYOFFICE callback')
    return new DomainError('FORBIDDEN', 'callback refused')
  }
  const now = ctx.clock.now()

  // 1. The URL: Folio issued it, for this file.
  const urlToken = isRecord(request.query) ? firstString(request.query.token) : undefined
  const issued = ctx.app.tokens.verify(urlToken ?? '', 'callback', now)
  if (!issued.ok) throw refuse(`callback URL token: ${issued.reason}`)
  if (issued.claims.fileId !== fileId) throw refuse('callback URL token is for another file')
  // An editor opened through a share link saves only while that link still allows changes.
  const link = issued.claims.link
  if (link !== undefined && !editsInEditor(await ctx.app.sharing.linkAccess(fileId, link))) {
    throw refuse('the share link of this editing session is off or no longer allows changes')
  }

  // 2. The body: JSON, then the fields the JWT vouches for.
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '')
  } catch {
    throw new DomainError('INVALID_INPUT', 'the body is not valid JSON')
  }
  if (!isRecord(parsed)) throw new DomainError('INVALID_INPUT', 'the body must be a JSON object')
  const auth = await authenticateCallback(
    parsed,
    request.headers[docs.jwtHeader.toLowerCase()],
    docs.jwtSecret,
    now,
  )
  if (!auth.ok) throw refuse(auth.reason)
  const read = parseCallbackBody(auth.claims)
  if (!read.ok) throw new DomainError('INVALID_INPUT', read.problem)
  const body = read.body
  if (parseDocumentKey(body.key)?.fileId !== fileId) throw refuse('the key is not this file\'s')

  try {
    await applyCallback(ctx, fetch, fileId, issued.claims.userId, body)
  } catch (error) {
    // The file was deleted while open: nothing left to update (answered 200, no retry).
    if (isDomainError(error) && error.code === 'NOT_FOUND') {
      ctx.logger.info({ fileId, status: body.status }, 'callback for a file that no longer exists')
    }
    throw error
  }
}

async function applyCallback(
  ctx: AdapterContext,
  fetch: DocsFetcher,
  fileId: string,
  issuedTo: string,
  body: CallbackBody,
): Promise<void> {
  switch (body.status) {
    case 1:
      await ctx.app.editing.recordEditors(fileId, body.key, body.users)
      return
    case 4:
      await ctx.app.editing.endSession(fileId, body.key)
      return
    case 2:
    case 6:
      return save(ctx, fetch, fileId, issuedTo, body, body.status)
    case 3:
    case 7: {
      const message = body.status === 3
        ? 'ONLYOFFICE Docs could not save the edited document (status 3); the previous version is kept'
        : 'ONLYOFFICE Docs could not force-save the document (status 7); the previous version is kept'
      ctx.logger.warn({ fileId, key: body.key, status: body.status }, message)
      await ctx.app.editing.recordSaveError(fileId, { status: body.status, documentKey: body.key, message }, body.status === 3)
      return
    }
    default:
      ctx.logger.info({ fileId, key: body.key, status: body.status }, 'ignored a callback of unknown status')
      return
  }
}

async function save(
  ctx: AdapterContext,
  fetch: DocsFetcher,
  fileId: string,
  issuedTo: string,
  body: CallbackBody,
  status: 2 | 6,
): Promise<void> {
  const docs = ctx.config.docs
  if (!docs) throw new DomainError('FORBIDDEN', 'ONLYOFFICE Docs is not configured')
  if (body.url === undefined) throw new DomainError('INVALID_INPUT', `status ${status} without url`)
  const noteError = async (message: string) => {
    await ctx.app.editing.recordSaveError(fileId, { status, documentKey: body.key, message }, false).catch(
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
    throw new DomainError('FORBIDDEN', 'callback refused')
  }
  try {
    const authorId = await ctx.app.editing.resolveAuthor(body.users, issuedTo)
    const outcome = await ctx.app.editing.saveFromEditor(
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
  } catch (error) {
    if (isDomainError(error) && error.code === 'NOT_FOUND') throw error
    const message = `could not store the saved document: ${errorMessage(error)}`
    ctx.logger.error({ err: error, fileId, key: body.key, status }, message)
    await noteError(message)
    if (isDomainError(error) && error.code === 'PAYLOAD_TOO_LARGE') {
      throw new DomainError('PAYLOAD_TOO_LARGE', 'the saved document is larger than the size limit')
    }
    throw new DomainError('UPSTREAM_FAILED', 'could not store the saved document; retry')
  }
}
