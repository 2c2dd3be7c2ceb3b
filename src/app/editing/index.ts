import type { FileRecord } from '../../core/entities.js'
import { fileFor, type Principal } from '../access.js'
import { bind, type Bound } from '../bind.js'
import type { AppContext } from '../context.js'
import * as editing from './editing.js'
import * as localEditing from './local-editing.js'

export type { BodyFetcher } from './editing.js'
export { changesOf } from './editing.js'

/** ONLYOFFICE editing sessions, saves from the editor and its history pane. */
export interface EditingService {
  recordEditors: Bound<typeof editing.recordEditors>
  endSession: Bound<typeof editing.endEditingSession>
  recordSaveError: Bound<typeof editing.recordSaveError>
  states: Bound<typeof editing.editingStates>
  resolveAuthor: Bound<typeof editing.resolveAuthor>
  saveFromEditor: Bound<typeof editing.saveFromEditor>
  /** "Save copy as" into `by`'s files from a file the editor made of `sourceFileId`. */
  saveCopy(
    by: Principal,
    input: { sourceFileId: string; title: string; fileType: string; url: string },
    fetch: editing.BodyFetcher,
  ): Promise<FileRecord>
  changesOf: typeof editing.changesOf
  /** Editing on a device without Docs: the lock that stands for it, and its save (local-editing.ts). */
  startLocal: Bound<typeof localEditing.startLocalEdit>
  trackLocal: Bound<typeof localEditing.trackLocalEdit>
  saveLocal: Bound<typeof localEditing.saveLocalEdit>
}

export function createEditingService(ctx: AppContext): EditingService {
  return {
    recordEditors: bind(ctx, editing.recordEditors),
    endSession: bind(ctx, editing.endEditingSession),
    recordSaveError: bind(ctx, editing.recordSaveError),
    states: bind(ctx, editing.editingStates),
    resolveAuthor: bind(ctx, editing.resolveAuthor),
    saveFromEditor: bind(ctx, editing.saveFromEditor),
    saveCopy: async (by, input, fetch) => {
      const source = await fileFor(ctx, by, input.sourceFileId, 'read')
      return editing.saveEditorCopy(ctx, { ...input, ownerId: by.user.id, sourceFileId: source.id }, fetch)
    },
    changesOf: editing.changesOf,
    startLocal: bind(ctx, localEditing.startLocalEdit),
    trackLocal: bind(ctx, localEditing.trackLocalEdit),
    saveLocal: bind(ctx, localEditing.saveLocalEdit),
  }
}
