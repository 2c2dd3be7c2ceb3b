import type { AdapterContext } from '../../app/create-app.js'
import type { Principal } from '../../app/access.js'
import type { FileRecord, FolderCounts, FolderRecord, FolderRootType } from '../../core/entities.js'
import { isDomainError } from '../../core/errors.js'
import { presentFile, presentFolder } from './presenters.js'

/**
 * Presents files and folders for one caller: one query for the editing states and one
 * pass for display names per call; sections and origin titles looked up once per folder.
 */
export function itemPresenter(ctx: AdapterContext, by: Principal) {
  const sections = new Map<string, FolderRootType>()
  const titles = new Map<string, string>()

  async function sectionOf(folderId: string): Promise<FolderRootType> {
    const known = sections.get(folderId)
    if (known !== undefined) return known
    const { rootType } = await ctx.app.folders.get(by, folderId)
    sections.set(folderId, rootType)
    return rootType
  }

  async function titleOf(folderId: string | null): Promise<string | undefined> {
    if (folderId === null) return undefined
    const known = titles.get(folderId)
    if (known !== undefined) return known
    try {
      const { folder } = await ctx.app.folders.get(by, folderId)
      titles.set(folderId, folder.title)
      return folder.title
    } catch (error) {
      if (isDomainError(error) && error.code === 'NOT_FOUND') return undefined
      throw error
    }
  }

  async function place(item: { trashedAt: number | null; originFolderId: string | null }, rootType: FolderRootType) {
    const originTitle = item.trashedAt === null ? undefined : await titleOf(item.originFolderId)
    return originTitle === undefined ? { rootType } : { rootType, originTitle }
  }

  return {
    /** Files; `rootType` when the caller knows their section (a listing), else looked up. */
    async files(files: FileRecord[], rootType?: FolderRootType) {
      const editing = await ctx.app.editing.states(files.map((f) => f.id))
      const editors = [...editing.values()].flatMap((state) => state.editors)
      const names = await ctx.app.accounts.displayNames([
        ...files.flatMap((f) => [f.createdBy, f.updatedBy]),
        ...files.flatMap((f) => (f.lock?.holderId === undefined ? [] : [f.lock.holderId])),
        ...editors,
      ])
      const now = ctx.clock.now()
      const presented = []
      for (const file of files) {
        // Someone else's file reached through a share is never in a trash (a trashed file
        // reaches nobody but its owner), and its folders are not the caller's to look up.
        const shared = file.ownerId !== by.user.id
        const section = rootType ?? (shared ? 'my' : await sectionOf(file.folderId))
        presented.push(presentFile(file, ctx.config.publicUrl, names, now, editing.get(file.id), await place(file, section)))
      }
      return presented
    },

    /** Folders with their counts; `rootType` as for files. */
    async folders(folders: FolderRecord[], counts: Map<string, FolderCounts>, rootType?: FolderRootType) {
      const names = await ctx.app.accounts.displayNames(folders.flatMap((f) => [f.createdBy, f.updatedBy]))
      const presented = []
      for (const folder of folders) {
        const section = rootType ?? (await sectionOf(folder.id))
        const count = counts.get(folder.id) ?? { files: 0, folders: 0 }
        presented.push(presentFolder(folder, count, names, await place(folder, section)))
      }
      return presented
    },
  }
}
