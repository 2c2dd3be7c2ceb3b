import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AdapterContext } from '../../app/index.js'
import { parseDocumentKey } from '../../core/documents/document-key.js'
import { editsInEditor } from '../../core/sharing/access-levels.js'
import { DomainError, isDomainError } from '../../core/errors.js'
import { errorMessage } from '../../core/ids.js'
import type { TokenClaims } from '../../core/tokens/signed-token.js'
import { READS_BODY_WHOLE } from '../http/body-timeouts.js'
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
 *   another file (checked before the body is read); the JWT is required (a secret is
 *   set) but missing, bad or without exp; the key is not this file's; url/changesurl
 *   are not in the Docs server's file cache (nothing is fetched); or a save (2/6) is for
 *   a user who may no longer change the file (share removed or lowered, user removed).
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

/**
 * Docs may send long histories in the body; far more than any real callback. Whatever its
 * Content-Type, the body is read whole as JSON, so it has this limit and the body deadline
 * of JSON bodies (READS_BODY_WHOLE), and it is read only once the URL token is good.
 */
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
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    )
    // The one place a thrown error becomes a callback answer (CALLBACK_STATUS).
    app.setErrorHandler((error, request, reply) => {
      // Refused before its body was read (a bad URL token): the connection is closed, so
      // the sender need not send the rest and nothing waits for it.
      if (!request.raw.complete) reply.header('Connection', 'close')
      if (isDomainError(error)) return sendCallbackError(reply, error)
      const status = isRecord(error) && typeof error.statusCode === 'number' ? error.statusCode : 500
      if (status >= 400 && status < 500) return sendCallbackReply(reply, status, errorMessage(error))
      // The route pattern, never the URL: the URL carries the callback's token.
      ctx.logger.error({ err: error, route: request.routeOptions.url }, 'ONLYOFFICE callback failed')
      return sendCallbackReply(reply, 500, 'internal error')
    })

    // The URL token is checked before a byte of the body is read (onRequest runs before
    // the body is parsed): anyone can reach this route, and only Folio's links may make it
    // read a body.
    const issuedTo = new WeakMap<FastifyRequest, TokenClaims>()
    app.post(
      `${ONLYOFFICE_PATHS.callback}/:fileId`,
      {
        config: READS_BODY_WHOLE,
        onRequest: async (request) => {
          issuedTo.set(request, await checkCallbackUrl(ctx, request))
        },
      },
      async (request, reply) => {
        const claims = issuedTo.get(request)
        if (!claims) throw new DomainError('FORBIDDEN', 'callback refused')
        await handleCallback(ctx, fetch, request, claims)
        return sendCallbackReply(reply, 200)
      },
    )
  }
}

function fileIdOf(request: FastifyRequest): string {
  return isRecord(request.params) ? (firstString(request.params.fileId) ?? '') : ''
}

/** A refusal, logged with why (the answer says only 'callback refused'). */
function refusal(ctx: AdapterContext, fileId: string, reason: string): DomainError {
  ctx.logger.warn({ fileId, reason }, 'refused an ONLYOFFICE callback')
  return new DomainError('FORBIDDEN', 'callback refused')
}

/**
 * Step 1, before the body: the URL is one Folio issued, for this file, and an editor
 * opened through a share link saves only while that link still allows changes.
 */
async function checkCallbackUrl(ctx: AdapterContext, request: FastifyRequest): Promise<TokenClaims> {
  if (!ctx.config.docs) throw new DomainError('FORBIDDEN', 'ONLYOFFICE Docs is not configured')
  const fileId = fileIdOf(request)
  const urlToken = isRecord(request.query) ? firstString(request.query.token) : undefined
  const issued = ctx.app.tokens.verify(urlToken ?? '', 'callback', ctx.clock.now())
  if (!issued.ok) throw refusal(ctx, fileId, `callback URL token: ${issued.reason}`)
  if (issued.claims.fileId !== fileId) throw refusal(ctx, fileId, 'callback URL token is for another file')
  const link = issued.claims.link
  if (link !== undefined && !editsInEditor(await ctx.app.sharing.linkAccess(fileId, link))) {
    throw refusal(ctx, fileId, 'the share link of this editing session is off or no longer allows changes')
  }
  return issued.claims
}

/** Settles one callback; returns when it is handled, throws a DomainError to refuse it. */
async function handleCallback(
  ctx: AdapterContext,
  fetch: DocsFetcher,
  request: FastifyRequest,
  issued: TokenClaims,
): Promise<void> {
  const docs = ctx.config.docs
  if (!docs) throw new DomainError('FORBIDDEN', 'ONLYOFFICE Docs is not configured')
  const fileId = fileIdOf(request)
  const refuse = (reason: string): DomainError => refusal(ctx, fileId, reason)
  const now = ctx.clock.now()

  // 1. The URL was checked before the body was read (checkCallbackUrl).
  // 2. The body: JSON, then the fields the JWT vouches for.
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '')
  } catch {
    throw new DomainError('INVALID_INPUT', 'the body is not valid JSON')
  }
  if (!isRecord(parsed)) throw new DomainError('INVALID_INPUT', 'the body must be a JSON object')
  const auth = await authenticateCallback(parsed, request.headers[docs.jwtHeader.toLowerCase()], docs.jwtSecret, now)
  if (!auth.ok) throw refuse(auth.reason)
  const read = parseCallbackBody(auth.claims)
  if (!read.ok) throw new DomainError('INVALID_INPUT', read.problem)
  const body = read.body
  if (parseDocumentKey(body.key)?.fileId !== fileId) throw refuse("the key is not this file's")

  try {
    await applyCallback(ctx, fetch, fileId, issued, body)
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
  issued: TokenClaims,
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
      return save(ctx, fetch, fileId, issued, body, body.status)
    case 3:
    case 7: {
      const message =
        body.status === 3
          ? 'ONLYOFFICE Docs could not save the edited document (status 3); the previous version is kept'
          : 'ONLYOFFICE Docs could not force-save the document (status 7); the previous version is kept'
      ctx.logger.warn({ fileId, key: body.key, status: body.status }, message)
      await ctx.app.editing.recordSaveError(
        fileId,
        { status: body.status, documentKey: body.key, message },
        body.status === 3,
      )
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
  issued: TokenClaims,
  body: CallbackBody,
  status: 2 | 6,
): Promise<void> {
  const docs = ctx.config.docs
  if (!docs) throw new DomainError('FORBIDDEN', 'ONLYOFFICE Docs is not configured')
  if (body.url === undefined) throw new DomainError('INVALID_INPUT', `status ${status} without url`)
  const noteError = async (message: string) => {
    await ctx.app.editing
      .recordSaveError(fileId, { status, documentKey: body.key, message }, false)
      .catch(() => undefined)
  }
  // Both links are vetted before either is fetched.
  const url = toInternalDocsUrl(body.url, docs)
  const changesUrl = body.changesurl === undefined ? undefined : toInternalDocsUrl(body.changesurl, docs)
  if (url === undefined || (body.changesurl !== undefined && changesUrl === undefined)) {
    const message =
      'a save link is not on the ONLYOFFICE Docs server (check FOLIO_DOCS_URL and ' +
      'FOLIO_DOCS_INTERNAL_URL); nothing was fetched'
    ctx.logger.error({ fileId, url: body.url, changesurl: body.changesurl }, message)
    await noteError(message)
    throw new DomainError('FORBIDDEN', 'callback refused')
  }
  try {
    const authorId = await ctx.app.editing.resolveAuthor(body.users, issued.userId)
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
        ...(issued.link === undefined ? {} : { sessionLink: issued.link }),
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
    // Refused because a user of the session may no longer change the file: 403, so Docs
    // keeps the document as "forgotten" (a retry would be refused alike).
    if (isDomainError(error) && error.code === 'FORBIDDEN') {
      ctx.logger.warn({ fileId, key: body.key, status }, error.message)
      await noteError(`the save was refused: ${error.message}`)
      throw error
    }
    // Over the owner's quota: 507 as for a full disk, so Docs keeps the document (and
    // retries, in case the owner freed space meanwhile). Not a fault of Folio's: a warning.
    if (isDomainError(error) && error.code === 'QUOTA_EXCEEDED') {
      ctx.logger.warn({ fileId, key: body.key, status }, error.message)
      await noteError(`the save was refused: ${error.message}`)
      throw error
    }
    const message = `could not store the saved document: ${errorMessage(error)}`
    ctx.logger.error({ err: error, fileId, key: body.key, status }, message)
    await noteError(message)
    if (isDomainError(error) && error.code === 'PAYLOAD_TOO_LARGE') {
      throw new DomainError('PAYLOAD_TOO_LARGE', 'the saved document is larger than the size limit')
    }
    // 507: Docs retries, then keeps the document; the message says why.
    if (isDomainError(error) && error.code === 'INSUFFICIENT_STORAGE') throw error
    throw new DomainError('UPSTREAM_FAILED', 'could not store the saved document; retry')
  }
}
