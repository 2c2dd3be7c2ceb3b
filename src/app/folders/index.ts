import type { FileOperationRecord } from '../../core/entities.js'
import type { Principal } from '../access.js'
import { bind, type Bound } from '../bind.js'
import type { AppContext } from '../context.js'
import * as archive from './archive.js'
import * as fileOps from './file-ops.js'
import * as folders from './folders.js'
import { runOperation, takeOperations, type StartedOperation } from './operations.js'

/** A file operation as `GET files/fileops` reports it (see operations.ts). */
export type FileOperation = FileOperationRecord

/** An operation the call has just run, with the records it left. */
export type { StartedOperation } from './operations.js'
export type { ArchivePlan } from './archive.js'
export type { FolderListQuery, FolderRef } from './folders.js'

/** Folders, the trash and file operations, each asking the access policy. */
export interface FoldersService {
  list: Bound<typeof folders.listFolder>
  get: Bound<typeof folders.getFolder>
  create: Bound<typeof folders.createFolder>
  rename: Bound<typeof folders.renameFolder>
  /** True when the file lies in a trash (editors and WOPI refuse it). */
  isInTrash: Bound<typeof folders.isInTrash>
  /** The root folders of `by` ('my' and 'trash'), created on first use. */
  roots(by: Principal): Promise<{ my: folders.FolderListing['current']; trash: folders.FolderListing['current'] }>
  move(
    by: Principal,
    items: fileOps.ItemSelection,
    dest: folders.FolderRef,
    conflict: fileOps.ConflictResolution,
  ): Promise<StartedOperation>
  copy(
    by: Principal,
    items: fileOps.ItemSelection,
    dest: folders.FolderRef,
    conflict: fileOps.ConflictResolution,
  ): Promise<StartedOperation>
  /** `untilDone`: the call waits for the end however long it takes (it then has a result). */
  delete(
    by: Principal,
    items: fileOps.ItemSelection,
    immediately: boolean,
    untilDone?: boolean,
  ): Promise<StartedOperation>
  emptyTrash(by: Principal): Promise<StartedOperation>
  /** The files a move or copy with 'overwrite' would replace (see file-ops.moveConflicts). */
  conflicts: Bound<typeof fileOps.moveConflicts>
  /** Puts trashed items back into the folders they came from (see file-ops.restoreItems). */
  restore(by: Principal, items: fileOps.ItemSelection): Promise<StartedOperation>
  /**
   * The operations `by` has running, and those finished since the last call (oldest
   * first); a finished one is reported once, as ONLYOFFICE drops it after reporting it,
   * except those in `keep` (the call's own), reported again by the next call.
   * Kept in the store: any instance reports them.
   */
  takeOperations(by: Principal, keep?: readonly string[]): Promise<FileOperation[]>
  /**
   * Checks a download of several items as one archive and records it as a finished
   * 'download' operation (the selected items), so clients polling the operations find it.
   */
  download(by: Principal, items: fileOps.ItemSelection): Promise<StartedOperation>
  /** What a download of several items holds now, re-checked on every download. */
  planArchive: Bound<typeof archive.planArchive>
  /** One planned file's bytes, access checked again now; undefined when refused now. */
  openArchiveEntry: Bound<typeof archive.openArchiveEntry>
}

/**
 * The folders service. `inFlight` collects the operations still running after their
 * call was answered (see operations.ts), so that a graceful stop can wait for them.
 */
export function createFoldersService(ctx: AppContext, inFlight: Set<Promise<unknown>>): FoldersService {
  const record = (
    by: Principal,
    kind: FileOperation['kind'],
    run: (progress: fileOps.OperationProgress) => Promise<fileOps.OperationResult>,
    untilDone = false,
  ) => runOperation(ctx, by, kind, run, untilDone ? {} : { waitMs: ctx.config.operationWaitMs, inFlight })
  return {
    list: bind(ctx, folders.listFolder),
    get: bind(ctx, folders.getFolder),
    create: bind(ctx, folders.createFolder),
    rename: bind(ctx, folders.renameFolder),
    isInTrash: bind(ctx, folders.isInTrash),
    roots: async (by) => ({
      my: await folders.folderFor(ctx, by, '@my', 'read'),
      trash: await folders.folderFor(ctx, by, '@trash', 'read'),
    }),
    move: (by, items, dest, conflict) =>
      record(by, 'move', (progress) => fileOps.moveItems(ctx, by, items, dest, conflict, progress)),
    copy: (by, items, dest, conflict) =>
      record(by, 'copy', (progress) => fileOps.copyItems(ctx, by, items, dest, conflict, progress)),
    delete: (by, items, immediately, untilDone) =>
      record(by, 'delete', (progress) => fileOps.deleteItems(ctx, by, items, immediately, progress), untilDone),
    emptyTrash: (by) => record(by, 'delete', (progress) => fileOps.emptyTrash(ctx, by, progress)),
    restore: (by, items) => record(by, 'move', (progress) => fileOps.restoreItems(ctx, by, items, progress)),
    conflicts: bind(ctx, fileOps.moveConflicts),
    takeOperations: (by, keep) => takeOperations(ctx, by, keep),
    download: (by, items) =>
      record(by, 'download', async () => {
        const plan = await archive.planArchive(ctx, by, items)
        // The formats asked for travel with the operation, into its archive's address.
        const files = plan.files.map((file) => {
          const convertTo = items.convert?.get(file.id)
          return convertTo === undefined ? file : { ...file, convertTo }
        })
        return { files, folders: plan.folders, skipped: 0 }
      }),
    planArchive: bind(ctx, archive.planArchive),
    openArchiveEntry: bind(ctx, archive.openArchiveEntry),
  }
}
