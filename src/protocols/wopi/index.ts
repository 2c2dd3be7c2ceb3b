/**
 * The WOPI host under /wopi: CheckFileInfo, GetFile, Lock, UnlockAndRelock, RefreshLock,
 * Unlock, GetLock, PutFile, PutRelativeFile, RenameFile, DeleteFile and PutUserInfo, for
 * any WOPI client (ONLYOFFICE Docs, Collabora Online, Microsoft 365 for the web).
 * Every editor polls these on a hot path, so they are a route table on node:http
 * (http/raw-routes.ts) rather than Fastify routes: per request, only what the operation
 * needs. Each request is one pipeline: match the path, authorize (token, proof), pick the
 * operation, run it; every error is answered by the one WOPI error table (errors.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AdapterContext } from '../../app/index.js'
import { guardRawBody } from '../http/body-timeouts.js'
import { RawReply } from '../http/raw-reply.js'
import { RawRequest } from '../http/raw-request.js'
import type { RawRoute } from '../http/raw-routes.js'
import { authorize } from './authorize.js'
import type { WopiDiscovery } from './discovery.js'
import { answerWopiError } from './errors.js'
import { readOverride } from './headers.js'
import {
  CHECK_FILE_INFO,
  CONTENTS_OVERRIDES,
  FILE_OVERRIDES,
  GET_FILE,
  operationFor,
  type WopiOperation,
} from './operations.js'

const FILES = '/wopi/files/'
const CONTENTS = '/contents'
const FILE_ROUTE = '/wopi/files/:fileId'
const CONTENTS_ROUTE = '/wopi/files/:fileId/contents'
const UNMATCHED = '(unmatched)'
/** A longer file id is refused, as Fastify's router did (414). */
const MAX_ID_LENGTH = 100

/** The two WOPI resources of a path, or undefined for any other path under /wopi. */
interface Match {
  route: typeof FILE_ROUTE | typeof CONTENTS_ROUTE
  /** The id as sent (still percent-encoded). */
  rawId: string
}

function match(path: string): Match | undefined {
  if (!path.startsWith(FILES)) return undefined
  const rest = path.slice(FILES.length)
  const slash = rest.indexOf('/')
  if (slash === -1) return { route: FILE_ROUTE, rawId: rest }
  if (rest.length - slash === CONTENTS.length && rest.endsWith(CONTENTS)) {
    return { route: CONTENTS_ROUTE, rawId: rest.slice(0, slash) }
  }
  return undefined
}

/** The operation a GET/HEAD or POST asks for (POST: by X-WOPI-Override; 400/501 thrown). */
function pickOperation(method: string, route: Match['route'], request: RawRequest): WopiOperation {
  if (method === 'POST') {
    return operationFor(route === FILE_ROUTE ? FILE_OVERRIDES : CONTENTS_OVERRIDES, readOverride(request.headers))
  }
  return route === FILE_ROUTE ? CHECK_FILE_INFO : GET_FILE
}

/** Bodies read whole (PutUserInfo) or not at all get the small-body deadline; uploads do not. */
function isUpload(route: Match['route'], request: RawRequest): boolean {
  if (route === CONTENTS_ROUTE) return true
  return readOverride(request.headers) === 'PUT_RELATIVE'
}

/** The WOPI host's route table for the composition root; it owns the /wopi prefix. */
export function wopiRoutes(ctx: AdapterContext, discovery: WopiDiscovery): RawRoute {
  // Learn the client's keys before its first request arrives; failures are logged and retried.
  discovery.warmUp()
  const { logger } = ctx
  const timeouts = { bodyTimeoutMs: ctx.config.bodyTimeoutMs, uploadIdleTimeoutMs: ctx.config.uploadIdleTimeoutMs }
  const trustProxy = ctx.config.trustProxy

  const run = async (request: RawRequest, reply: RawReply, route: Match['route'], fileId: string) => {
    let operation: WopiOperation | undefined
    try {
      // The token is checked before the operation is picked: a request without a valid
      // token is 401 whatever its X-WOPI-Override (never 400 or 501 first).
      const call = await authorize(ctx, discovery, request, reply, fileId)
      operation = pickOperation(request.method, route, request)
      await operation.handler(call)
    } catch (error) {
      try {
        answerWopiError(logger, error, request, reply, operation?.name)
      } catch (failure) {
        // Not even the error could be answered (a header node:http refuses): end the exchange.
        logger.error({ err: failure, url: request.path }, 'WOPI error reply failed')
        reply.res.destroy()
      }
    }
  }

  const notFound = (reply: RawReply, request: RawRequest): string => {
    reply.text(404, 'no such WOPI endpoint')
    releaseUnread(request)
    return UNMATCHED
  }

  return {
    prefix: '/wopi',
    handle(req: IncomingMessage, res: ServerResponse): string {
      const request = new RawRequest(req, trustProxy)
      const reply = new RawReply(res)
      const method = request.method
      const found = match(request.path)
      if (found === undefined || (method !== 'GET' && method !== 'HEAD' && method !== 'POST')) {
        return notFound(reply, request)
      }
      if (found.rawId.length > MAX_ID_LENGTH) {
        reply.text(414, 'the file id is too long')
        releaseUnread(request)
        return UNMATCHED
      }
      let fileId = found.rawId
      if (fileId.includes('%')) {
        try {
          fileId = decodeURIComponent(fileId)
        } catch {
          reply.text(400, 'the URL is not valid')
          releaseUnread(request)
          return UNMATCHED
        }
      }
      guardRawBody(req, res, !isUpload(found.route, request), timeouts, logger)
      void run(request, reply, found.route, fileId)
      return found.route
    },
  }
}

/** A request answered without reading its body: drop the rest (see errors.ts, releaseBody). */
function releaseUnread(request: RawRequest): void {
  if (!request.raw.complete) request.raw.resume()
}
