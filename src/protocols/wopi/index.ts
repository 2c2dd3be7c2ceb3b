/**
 * The WOPI host under /wopi: CheckFileInfo, GetFile, Lock, UnlockAndRelock, RefreshLock,
 * Unlock, GetLock, PutFile, PutRelativeFile, RenameFile, DeleteFile and PutUserInfo, for
 * any WOPI client (ONLYOFFICE Docs, Collabora Online, Microsoft 365 for the web).
 * Each route is one pipeline: pick the operation, authorize (token, proof), run it;
 * every error is answered by the one WOPI error table (errors.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AdapterContext } from '../../app/create-app.js'
import type { HttpPlugin } from '../http/server.js'
import { authorize } from './authorize.js'
import type { WopiDiscovery } from './discovery.js'
import { markOperation, wopiErrorHandler } from './errors.js'
import { readOverride } from './headers.js'
import { CHECK_FILE_INFO_SCHEMA } from './presenters.js'
import {
  CHECK_FILE_INFO,
  CONTENTS_OVERRIDES,
  FILE_OVERRIDES,
  GET_FILE,
  operationFor,
  type WopiOperation,
} from './operations.js'

/** The WOPI host plugin for the composition root; it owns the /wopi prefix. */
export function wopiHost(ctx: AdapterContext, discovery: WopiDiscovery): HttpPlugin {
  return async (app: FastifyInstance): Promise<void> => {
    // Learn the client's keys before its first request arrives; failures are logged and retried.
    discovery.warmUp()
    await app.register(
      async (wopi) => {
        // No parser may touch a WOPI body, whatever its Content-Type: the bytes are the file.
        wopi.decorateRequest('wopiOperation', '')
        wopi.removeAllContentTypeParsers()
        wopi.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
        wopi.setErrorHandler(wopiErrorHandler(ctx.logger))
        wopi.setNotFoundHandler((_request, reply) => {
          reply.code(404).type('text/plain').send('no such WOPI endpoint')
        })
        // No per-request child logger (a pino child per call was ~2% of a CheckFileInfo):
        // request logging is off and WOPI errors are logged through ctx.logger anyway.
        wopi.setChildLoggerFactory((logger) => logger)

        // The token is checked before the operation is picked: a request without a valid
        // token is 401 whatever its X-WOPI-Override (never 400 or 501 first).
        const run = async (
          request: FastifyRequest,
          reply: FastifyReply,
          target: 'file' | 'contents',
          pick: () => WopiOperation,
        ) => {
          const call = await authorize(ctx, discovery, request, reply, target)
          const operation = pick()
          markOperation(request, operation.name)
          return operation.handler(call)
        }

        const checkFileInfoSchema = { response: { 200: CHECK_FILE_INFO_SCHEMA } }
        wopi.get('/files/:fileId', { schema: checkFileInfoSchema }, async (request, reply) =>
          run(request, reply, 'file', () => CHECK_FILE_INFO),
        )
        wopi.get('/files/:fileId/contents', async (request, reply) =>
          run(request, reply, 'contents', () => GET_FILE),
        )
        wopi.post('/files/:fileId', async (request, reply) =>
          run(request, reply, 'file', () => operationFor(FILE_OVERRIDES, readOverride(request.headers))),
        )
        wopi.post('/files/:fileId/contents', async (request, reply) =>
          run(request, reply, 'contents', () =>
            operationFor(CONTENTS_OVERRIDES, readOverride(request.headers)),
          ),
        )
      },
      { prefix: '/wopi' },
    )
  }
}
