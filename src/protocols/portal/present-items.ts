import type { AccessLevel, AdapterContext, Principal } from '../../app/index.js'
import type { FileRecord, FolderCounts, FolderRecord } from '../../core/entities.js'
import { isDomainError } from '../../core/errors.js'
import { shareOfLevel } from '../../core/sharing/access-levels.js'
import { presentFile, presentFolder, type ItemPlace } from './presenters.js'

/**
 * The sharing an owner sees on each of their items: ONLYOFFICE's `shared` (with people or
 * by link), and Folio's `sharedWith` (who) and `sharedLink` (the link's FileShare while it
 * is on, else null). Others' items show none of it.
 */
function sharingFields(sharing: { people: Array<{ id: string; displayName: string }>; link?: number } | undefined) {
  return { shared: sharing !== undefined, sharedWith: sharing?.people ?? [], sharedLink: sharing?.link ?? null }
}

/** A section as a caller sees it: their own 'my' or 'trash', or 'share' for what others shared. */
export type Section = ItemPlace['rootType']

/** The `access` number an item shows: 0 (no restriction) for the owner, else the FileShare. */
export function accessNumber(level: AccessLevel): number {
  return level === 'owner' ? 0 : shareOfLevel(level)
}

/**
 * Presents files and folders for one caller: one query for the editing states and one
 * pass for display names per call; sections, access and origin titles looked up once per
 * item or folder when the caller does not already know them (a listing does).
 */
export function itemPresenter(ctx: AdapterContext, by: Principal) {
  const sections = new Map<string, { section: Section; level: AccessLevel }>()
  const titles = new Map<string, string>()

  async function viewOf(folderId: string): Promise<{ section: Section; level: AccessLevel }> {
    const known = sections.get(folderId)
    if (known !== undefined) return known
    const { rootType, level } = await ctx.app.folders.get(by, folderId)
    const view = { section: rootType, level }
    sections.set(folderId, view)
    return view
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

  async function place(
    item: { trashedAt: number | null; originFolderId: string | null },
    rootType: Section,
    level: AccessLevel,
  ): Promise<ItemPlace> {
    const access = accessNumber(level)
    if (item.trashedAt === null) return { rootType, access }
    const originTitle = await titleOf(item.originFolderId)
    // The housekeeping empties what has been in a trash longer than the retention.
    const autoDeleteAt = item.trashedAt + ctx.config.trashRetentionMs
    return originTitle === undefined
      ? { rootType, access, autoDeleteAt }
      : { rootType, originTitle, access, autoDeleteAt }
  }

  return {
    /**
     * Files; `rootType` and `access` (the caller's level per file id) when the caller
     * knows them (a listing), else looked up.
     */
    async files(files: FileRecord[], rootType?: Section, access?: Map<string, AccessLevel>) {
      const [editing, thumbnails] = await Promise.all([
        ctx.app.editing.states(files.map((f) => f.id)),
        ctx.app.conversion.thumbnailStatuses(files),
      ])
      const editors = [...editing.values()].flatMap((state) => state.editors)
      const names = await ctx.app.accounts.displayNames([
        ...files.flatMap((f) => [f.createdBy, f.updatedBy]),
        ...files.flatMap((f) => (f.lock?.holderId === undefined ? [] : [f.lock.holderId])),
        ...editors,
      ])
      const now = ctx.clock.now()
      const sharing = await ctx.app.sharing.sharingOf(by, files, [])
      const presented = []
      for (const file of files) {
        // Someone else's file reached through a share is never in a trash (a trashed file
        // reaches nobody but its owner): its section is 'share', its access the caller's.
        const shared = file.ownerId !== by.user.id
        const section = rootType ?? (shared ? 'share' : (await viewOf(file.folderId)).section)
        const level = access?.get(file.id) ?? (shared ? await ctx.app.authorize(by, 'read', file) : 'owner')
        presented.push({
          ...presentFile(
            file,
            ctx.config.publicUrl,
            names,
            now,
            editing.get(file.id),
            await place(file, section, level),
            thumbnails.get(file.id),
          ),
          ...sharingFields(sharing.get(`file:${file.id}`)),
        })
      }
      return presented
    },

    /** Folders with their counts; `rootType` and `access` as for files. */
    async folders(
      folders: FolderRecord[],
      counts: Map<string, FolderCounts>,
      rootType?: Section,
      access?: Map<string, AccessLevel>,
    ) {
      const names = await ctx.app.accounts.displayNames(folders.flatMap((f) => [f.createdBy, f.updatedBy]))
      const sharing = await ctx.app.sharing.sharingOf(by, [], folders)
      const presented = []
      for (const folder of folders) {
        const known = access?.get(folder.id)
        const view =
          rootType !== undefined && known !== undefined ? { section: rootType, level: known } : await viewOf(folder.id)
        const count = counts.get(folder.id) ?? { files: 0, folders: 0 }
        presented.push({
          ...presentFolder(folder, count, names, await place(folder, view.section, view.level)),
          ...sharingFields(sharing.get(`folder:${folder.id}`)),
        })
      }
      return presented
    },
  }
}
