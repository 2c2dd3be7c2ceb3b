import { documentKey } from '../core/documents/document-key.js'
import type { FileRecord, UserRecord } from '../core/entities.js'
import { allows, type AccessLevel, type FileAction } from '../core/sharing/access-levels.js'
import { accessLevel, userPrincipal } from './access.js'
import type { AppContext } from './context.js'

/**
 * Best-effort messages to open ONLYOFFICE editors when a file changes under them, whatever
 * door the change came through: a rename is sent as `meta` (editors show the new title), a
 * delete or a share change that lowers someone's access as `drop` (editors lose the right
 * to save). Neither is awaited by the user's
 * request nor can fail it; problems are logged.
 */

async function openSession(ctx: AppContext, file: FileRecord) {
  if (!ctx.config.docs || !ctx.docsCommands) return undefined
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
  const commands = ctx.docsCommands
  if (!commands) return
  void (async () => {
    const session = await openSession(ctx, file)
    if (!session) return
    const reply = await commands.meta(session.key, file.title)
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
  const commands = ctx.docsCommands
  if (!commands) return () => undefined
  const session = await openSession(ctx, file).catch((error: unknown) => {
    logFailure(ctx, 'drop', file.id)(error)
    return undefined
  })
  if (!session) return () => undefined
  return () => {
    commands
      .drop(session.key, session.editors)
      .then((reply) => {
        if (reply.error !== 0) ctx.logger.info({ fileId: file.id, error: reply.error }, 'Docs did not drop')
      })
      .catch(logFailure(ctx, 'drop', file.id))
  }
}

/**
 * After a new version came in through another door (a WOPI PutFile, a restore): the
 * editors of a session opened on an older version are dropped, so they reload the new
 * contents instead of typing on a stale copy. Docs' `drop` carries no text, so the reason
 * is logged here. Returns at once; never throws.
 */
export function dropStaleEditors(ctx: AppContext, file: FileRecord, reason: string): void {
  const commands = ctx.docsCommands
  if (!commands) return
  void (async () => {
    const session = await openSession(ctx, file)
    if (!session || session.key === documentKey(file.id, file.keyVersion)) return
    ctx.logger.info({ fileId: file.id, key: session.key, reason }, 'dropping editors of a superseded version')
    const reply = await commands.drop(session.key, session.editors)
    if (reply.error !== 0) ctx.logger.info({ fileId: file.id, error: reply.error }, 'Docs did not drop')
  })().catch(logFailure(ctx, 'drop', file.id))
}

/** What an open editor lets its user do to the document, at most. */
const EDITOR_ACTIONS: readonly FileAction[] = ['edit', 'review', 'comment', 'fillForms']

function editorActionsOf(level: AccessLevel): FileAction[] {
  return EDITOR_ACTIONS.filter((action) => allows(level, action))
}

/**
 * Before a share change on `item` (a file, or a folder and every file under it) for
 * `userIds`: reads which of them are editing now and what their access lets them do, and
 * returns the step to run after the change. That step drops from Docs those who lost any
 * of that (lowered to Read, removed, or anything less than before), so their editor stops
 * and they reopen with what they have now; their saves are refused meanwhile
 * (editing.saveFromEditor). Never throws; the drop is best effort and logged.
 */
export async function prepareShareDrop(
  ctx: AppContext,
  item: { kind: 'file' | 'folder'; id: string },
  userIds: readonly string[],
): Promise<() => void> {
  const commands = ctx.docsCommands
  if (!commands || userIds.length === 0) return () => undefined
  const watched: Array<{ file: FileRecord; key: string; before: Map<UserRecord, FileAction[]> }> = []
  try {
    const files =
      item.kind === 'file'
        ? [await ctx.store.files.findById(item.id)].filter((file) => file !== undefined)
        : await ctx.store.folders.busyFilesInside(item.id, ctx.clock.now())
    for (const file of files) {
      const session = await openSession(ctx, file)
      if (!session) continue
      const before = new Map<UserRecord, FileAction[]>()
      for (const id of session.editors.filter((editor) => userIds.includes(editor))) {
        const user = await ctx.store.users.findById(id)
        if (user) before.set(user, editorActionsOf(await accessLevel(ctx, userPrincipal(user), file)))
      }
      if (before.size > 0) watched.push({ file, key: session.key, before })
    }
  } catch (error) {
    logFailure(ctx, 'drop', item.id)(error)
    return () => undefined
  }
  return () => {
    void (async () => {
      for (const { file, key, before } of watched) {
        const lost: string[] = []
        for (const [user, actions] of before) {
          const now = editorActionsOf(await accessLevel(ctx, userPrincipal(user), file))
          if (actions.some((action) => !now.includes(action))) lost.push(user.id)
        }
        if (lost.length === 0) continue
        ctx.logger.info({ fileId: file.id, key, users: lost }, 'dropping editors whose access was lowered')
        const reply = await commands.drop(key, lost)
        if (reply.error !== 0) ctx.logger.info({ fileId: file.id, error: reply.error }, 'Docs did not drop')
      }
    })().catch(logFailure(ctx, 'drop', item.id))
  }
}

/**
 * After a user was disabled: drops them from every ONLYOFFICE editing session they are
 * in, so their open editors stop at once (the other editors of a session stay). Awaited,
 * so a console command has told Docs before it exits; never throws.
 */
export async function dropEditorsOf(ctx: AppContext, userId: string): Promise<void> {
  const commands = ctx.docsCommands
  if (!commands) return
  const sessions = await ctx.store.editing.findByEditor(userId).catch((error: unknown) => {
    logFailure(ctx, 'drop', '')(error)
    return []
  })
  for (const state of sessions) {
    try {
      const file = await ctx.store.files.findById(state.fileId)
      if (!file) continue
      const reply = await commands.drop(state.documentKey || documentKey(file.id, file.keyVersion), [userId])
      if (reply.error !== 0) ctx.logger.info({ fileId: file.id, error: reply.error }, 'Docs did not drop')
    } catch (error) {
      logFailure(ctx, 'drop', state.fileId)(error)
    }
  }
}
