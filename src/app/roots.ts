import { newId } from '../core/ids.js'
import type { FolderRecord, FolderRootType } from '../core/entities.js'
import type { AppContext } from './context.js'

/** Titles the root folders are stored with (ONLYOFFICE shows its own names for them). */
export const ROOT_TITLES: Readonly<Record<FolderRootType, string>> = {
  my: 'My documents',
  trash: 'Trash',
}

/**
 * The user's root folder of that section, created on first use; every instance
 * sharing the store gets the same one.
 */
export async function rootFolder(ctx: AppContext, ownerId: string, rootType: FolderRootType): Promise<FolderRecord> {
  const found = await ctx.store.folders.findRoot(ownerId, rootType)
  if (found !== undefined) return found
  const now = ctx.clock.now()
  return ctx.store.folders.ensureRoot({
    id: newId(),
    ownerId,
    parentId: null,
    title: ROOT_TITLES[rootType],
    rootType,
    createdAt: now,
    createdBy: ownerId,
    updatedAt: now,
    updatedBy: ownerId,
    revision: 1,
    trashedAt: null,
    originFolderId: null,
  })
}
