import type { AppContext } from '../../app/context.js'
import { documentKey } from '../../core/documents/document-key.js'
import type { FileRecord } from '../../ports/metadata-store.js'
import { commandClientFor } from './services.js'

/**
 * Best-effort messages to open editors when a file changes under them: a rename is
 * sent as `meta` (editors show the new title), a delete as `drop` (editors lose the
 * right to save). Neither is awaited by the user's request nor can fail it; problems
 * are logged.
 */

async function openSession(ctx: AppContext, file: FileRecord) {
  if (!ctx.config.docs) return undefined
  const state = await ctx.store.editing.get(file.id)
  if (!state || state.editors.length === 0) return undefined
  return { key: state.documentKey || documentKey(file.id, file.keyVersion), editors: state.editors }
}

function logFailure(ctx: AppContext, command: string, fileId: string) {
  return (error: unknown) => {
    ctx.logger.warn({ err: error, fileId, command }, 'could not tell ONLYOFFICE Docs editors')
  }
}

/** After a rename: tells the open editors (if any) the new title. Returns at once. */
export function announceRename(ctx: AppContext, file: FileRecord): void {
  void (async () => {
    const session = await openSession(ctx, file)
    if (!session) return
    const reply = await commandClientFor(ctx).meta(session.key, file.title)
    if (reply.error !== 0) {
      ctx.logger.info({ fileId: file.id, error: reply.error }, 'Docs did not take the new title')
    }
  })().catch(logFailure(ctx, 'meta', file.id))
}

/**
 * Before a delete: reads who is editing (the delete removes that record) and returns
 * the step to run after it, which drops those editors. Never throws.
 */
export async function prepareDrop(ctx: AppContext, file: FileRecord): Promise<() => void> {
  const session = await openSession(ctx, file).catch((error: unknown) => {
    logFailure(ctx, 'drop', file.id)(error)
    return undefined
  })
  if (!session) return () => undefined
  return () => {
    commandClientFor(ctx)
      .drop(session.key, session.editors)
      .then((reply) => {
        if (reply.error !== 0) ctx.logger.info({ fileId: file.id, error: reply.error }, 'Docs did not drop')
      })
      .catch(logFailure(ctx, 'drop', file.id))
  }
}
