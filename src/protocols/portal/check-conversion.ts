import type { FastifyInstance, FastifyRequest } from 'fastify'
import * as z from 'zod/mini'
import type { AdapterContext, OoxmlConversionView } from '../../app/index.js'
import { me } from './authenticate.js'
import { success } from './envelope.js'
import { itemPresenter } from './present-items.js'
import { toRecord } from './routes-folders.js'
import { fileIdParams, parseInput } from './schema.js'

/** A flag given as a JSON boolean or as `true`/`false` in the query. */
const flag = z.pipe(
  z.optional(z.union([z.boolean(), z.enum(['true', 'false'])])),
  z.transform((value) => value === true || value === 'true'),
)

const checkConversionInput = z.object({ sync: flag, start: flag })

/** ONLYOFFICE's file operation type of a conversion. */
const CONVERT_OPERATION = 6

/**
 * `files/file/{id}/checkconversion`, as ONLYOFFICE's apps call it before editing a legacy
 * or open document: PUT (or GET with `start=true`) starts converting it to its OOXML twin
 * (`sync=true` answers when done); GET reports `[{id, operationType, error, processed,
 * progress, source, result}]`, `result` being the new file once done, or `[]` when none was
 * started.
 */
export function registerCheckConversion(app: FastifyInstance, ctx: AdapterContext): void {
  const present = async (request: FastifyRequest, view: OoxmlConversionView | undefined) => {
    if (view === undefined) return success([])
    const [result] = view.result ? await itemPresenter(ctx, me(request)).files([view.result]) : []
    const ended = view.state === 'done' || view.state === 'failed'
    return success([
      {
        id: view.sourceFileId,
        operationType: CONVERT_OPERATION,
        error: view.state === 'failed' ? (view.error ?? 'the conversion failed') : '',
        processed: ended ? '1' : '0',
        progress: ended ? 100 : view.state === 'running' ? 50 : 0,
        source: JSON.stringify({ id: view.sourceFileId, version: view.sourceVersion }),
        result: result ?? null,
      },
    ])
  }

  app.put('/files/file/:fileId/checkconversion', async (request) => {
    const { fileId } = parseInput(fileIdParams, request.params)
    const { sync } = parseInput(checkConversionInput, { ...toRecord(request.query), ...toRecord(request.body) })
    return present(request, await ctx.app.conversion.startToOoxml(me(request), fileId, { sync }))
  })

  app.get('/files/file/:fileId/checkconversion', async (request) => {
    const { fileId } = parseInput(fileIdParams, request.params)
    const { sync, start } = parseInput(checkConversionInput, toRecord(request.query))
    const view = start
      ? await ctx.app.conversion.startToOoxml(me(request), fileId, { sync })
      : await ctx.app.conversion.toOoxmlStatus(me(request), fileId)
    return present(request, view)
  })
}
