import { DomainError } from '../../core/errors.js'
import { newId } from '../../core/ids.js'
import { normalizeFileName } from '../../core/names/file-names.js'
import { assertLegalName, repairName } from '../../core/names/name-rules.js'
import type { FileRecord, FileSortField, FolderRecord, FolderRootType } from '../../core/entities.js'
import { levelOfShare } from '../../core/sharing/access-levels.js'
import type { FolderCounts } from '../../ports/metadata-store.js'
import {
  authorizeFolder,
  shareEntriesOf,
  type AccessLevel,
  type FolderAction,
  type FolderView,
  type Principal,
} from '../access.js'
import { compareAndSet, RETRY } from '../compare-and-set.js'
import type { AppContext } from '../context.js'
import { rootFolder } from '../roots.js'

/** How a caller names a folder: a root by its section, or any folder by id. */
export type FolderRef = '@my' | '@trash' | string

/** What a listing shows besides the sort: everything, only folders, or only some files. */
export type ListFilter =
  { kind: 'all' } | { kind: 'folders-only' } | { kind: 'files-only'; suffixes?: readonly string[] }

export interface FolderListing {
  current: FolderRecord
  currentCounts: FolderCounts
  /**
   * Root first, ending with the current folder; for someone the folder is shared with,
   * from the highest folder shared with them.
   */
  path: FolderRecord[]
  /** The section the folder lies in, as the caller sees it ('share': reached through a share). */
  rootType: FolderRootType | 'share'
  /** The caller's access to the current folder. */
  level: AccessLevel
  /** The caller's access to each listed folder and file, by id. */
  access: Map<string, AccessLevel>
  folders: FolderRecord[]
  /** Direct content counts of the listed folders. */
  counts: Map<string, FolderCounts>
  files: FileRecord[]
  /** Folders and files matching the filter, over all pages. */
  total: number
}

export interface FolderListQuery {
  offset: number
  limit: number
  sortBy: FileSortField
  descending: boolean
  titleContains?: string
  filter: ListFilter
  /**
   * Only the caller's own items they shared with someone or by a link ("Shared by me"); in
   * a folder of someone else's, nothing.
   */
  sharedOnly?: boolean
}

/**
 * The caller's own root folder of that section, made on first use. A link guest has no
 * folders: NOT_FOUND, and none is made for him.
 */
export async function ownRoot(ctx: AppContext, by: Principal, rootType: FolderRootType): Promise<FolderRecord> {
  if (by.kind !== 'user') throw new DomainError('NOT_FOUND', 'folder not found')
  return rootFolder(ctx, by.user.id, rootType)
}

/** The folder `ref` names, when `by` may do `action` on it; NOT_FOUND otherwise. */
export async function folderFor(
  ctx: AppContext,
  by: Principal,
  ref: FolderRef,
  action: FolderAction,
): Promise<FolderRecord> {
  return (await viewFolder(ctx, by, ref, action)).folder
}

/** The folder `ref` names with the caller's view of it, when `by` may do `action` on it. */
export async function viewFolder(
  ctx: AppContext,
  by: Principal,
  ref: FolderRef,
  action: FolderAction,
): Promise<{ folder: FolderRecord; view: FolderView }> {
  let folder: FolderRecord | undefined
  if (ref === '@my') folder = await ownRoot(ctx, by, 'my')
  else if (ref === '@trash') folder = await ownRoot(ctx, by, 'trash')
  else folder = await ctx.store.folders.findById(ref)
  if (folder === undefined) throw new DomainError('NOT_FOUND', 'folder not found')
  return { folder, view: await authorizeFolder(ctx, by, action, folder) }
}

/**
 * The caller's access to each of the items listed inside a folder they reach as `view`
 * says (its share entries reused, not read again): the owner's is the owner's; anyone else's is the item's own entry, else the
 * folder's level (the most specific entry wins).
 */
async function accessInside(
  ctx: AppContext,
  by: Principal,
  view: FolderView,
  folders: readonly FolderRecord[],
  files: readonly FileRecord[],
): Promise<Map<string, AccessLevel>> {
  const { level } = view
  const access = new Map<string, AccessLevel>()
  const entries =
    level === 'owner' ? new Map<string, number>() : (view.entries ?? (await shareEntriesOf(ctx, by.user.id)))
  const of = (key: string) => {
    const entry = entries.get(key)
    return level === 'owner' || entry === undefined ? level : levelOfShare(entry)
  }
  for (const folder of folders) access.set(folder.id, of(`folder:${folder.id}`))
  for (const file of files) access.set(file.id, of(`file:${file.id}`))
  return access
}

/** The folder's ancestors, root first, ending with it; its section is the root's. */
export async function pathOf(
  ctx: AppContext,
  folderId: string,
): Promise<{
  path: FolderRecord[]
  rootType: FolderRootType
}> {
  const path = await ctx.store.folders.path(folderId)
  const rootType = path[0]?.rootType
  if (rootType === undefined || rootType === null) throw new DomainError('NOT_FOUND', 'folder not found')
  return { path, rootType }
}

/** True when the file lies in a trash (put there itself or inside a trashed folder). */
export async function isInTrash(ctx: AppContext, file: FileRecord): Promise<boolean> {
  if (file.trashedAt !== null) return true
  // The root's type alone, not the whole path.
  return inTrashSection(file, await ctx.store.folders.rootTypeOf(file.folderId))
}

/**
 * The rule of isInTrash over the section of the file's folder already read (`rootType`,
 * undefined when the folder is missing: NOT_FOUND).
 */
export function inTrashSection(file: FileRecord, rootType: FolderRootType | undefined): boolean {
  if (file.trashedAt !== null) return true
  if (rootType === undefined) throw new DomainError('NOT_FOUND', 'folder not found')
  return rootType === 'trash'
}

/**
 * One page of a folder: its folders first, then its files, each sorted as asked.
 * `offset` and `limit` run over both lists as one.
 */
export async function listFolder(
  ctx: AppContext,
  by: Principal,
  ref: FolderRef,
  query: FolderListQuery,
): Promise<FolderListing> {
  const { folder: current, view } = await viewFolder(ctx, by, ref, 'read')
  // Others' sharing is not the caller's to see: "shared by me" in their folder lists nothing.
  const othersOnly = query.sharedOnly === true && (by.kind !== 'user' || current.ownerId !== by.user.id)
  const sort = {
    sortBy: query.sortBy,
    descending: query.descending,
    titleContains: query.titleContains,
    ...(query.sharedOnly === true ? { sharedOnly: true } : {}),
  }
  const wantFolders = query.filter.kind !== 'files-only' && !othersOnly
  const wantFiles = query.filter.kind !== 'folders-only' && !othersOnly
  let folders: FolderRecord[] = []
  let folderTotal = 0
  if (wantFolders) {
    const page = await ctx.store.folders.list({
      parentId: current.id,
      offset: query.offset,
      limit: query.limit,
      ...sort,
    })
    folders = page.items
    folderTotal = page.total
  }
  let files: FileRecord[] = []
  let fileTotal = 0
  if (wantFiles) {
    const room = query.limit - folders.length
    const page = await ctx.store.files.list({
      folderId: current.id,
      offset: Math.max(0, query.offset - folderTotal),
      limit: room,
      ...sort,
      ...(query.filter.kind === 'files-only' && query.filter.suffixes !== undefined
        ? { titleEndsWith: query.filter.suffixes }
        : {}),
    })
    files = page.items
    fileTotal = page.total
  }
  const counts = await ctx.store.folders.counts([current.id, ...folders.map((f) => f.id)])
  return {
    current,
    currentCounts: counts.get(current.id) ?? { files: 0, folders: 0 },
    path: view.visiblePath,
    rootType: view.section,
    level: view.level,
    access: await accessInside(ctx, by, view, folders, files),
    folders,
    counts,
    files,
    total: folderTotal + fileTotal,
  }
}

/**
 * A folder `by` may read, with its direct counts, the caller's access, the path they can
 * see (root first) and its section as they see it ('share' when reached through a share).
 */
export async function getFolder(ctx: AppContext, by: Principal, ref: FolderRef) {
  const { folder, view } = await viewFolder(ctx, by, ref, 'read')
  const counts = await ctx.store.folders.counts([folder.id])
  return {
    folder,
    path: view.visiblePath,
    rootType: view.section,
    level: view.level,
    counts: counts.get(folder.id) ?? { files: 0, folders: 0 },
  }
}

/**
 * Creates a folder under `parentRef` with the repaired title. Not in a trash
 * (INVALID_INPUT). NAME_TAKEN when the parent holds a folder of that name.
 */
export async function createFolder(
  ctx: AppContext,
  by: Principal,
  parentRef: FolderRef,
  title: string,
): Promise<FolderRecord> {
  const parent = await folderFor(ctx, by, parentRef, 'create')
  const { rootType } = await pathOf(ctx, parent.id)
  if (rootType === 'trash') throw new DomainError('INVALID_INPUT', 'folders cannot be created in the trash')
  const now = ctx.clock.now()
  const folder: FolderRecord = {
    id: newId(),
    ownerId: parent.ownerId,
    parentId: parent.id,
    title: repairName(title),
    rootType: null,
    createdAt: now,
    createdBy: by.user.id,
    updatedAt: now,
    updatedBy: by.user.id,
    revision: 1,
    trashedAt: null,
    originFolderId: null,
  }
  await ctx.store.folders.create(folder)
  return folder
}

/** Renames a folder; an illegal name is NAME_INVALID (not repaired), a taken one NAME_TAKEN. */
export async function renameFolder(
  ctx: AppContext,
  by: Principal,
  folderId: string,
  title: string,
): Promise<FolderRecord> {
  const wanted = normalizeFileName(title)
  assertLegalName(wanted)
  return compareAndSet(async () => {
    const folder = await folderFor(ctx, by, folderId, 'rename')
    if (folder.parentId === null) throw new DomainError('INVALID_INPUT', 'a root folder cannot be renamed')
    if (folder.title === wanted) return folder
    const renamed = await ctx.store.folders.update(folder.id, folder.revision, {
      title: wanted,
      updatedAt: ctx.clock.now(),
      updatedBy: by.user.id,
    })
    return renamed ?? RETRY
  })
}

/** The folder `by` may create in, refused when it lies in a trash. */
export async function writableFolder(ctx: AppContext, by: Principal, ref: FolderRef): Promise<FolderRecord> {
  const folder = await folderFor(ctx, by, ref, 'create')
  const { rootType } = await pathOf(ctx, folder.id)
  if (rootType === 'trash') throw new DomainError('INVALID_INPUT', 'files cannot be created in the trash')
  return folder
}
