import type { AdapterContext, FolderListQuery, Principal } from '../../app/index.js'
import { itemPresenter } from './present-items.js'

/**
 * The '@share' section: one page of the files and folders others shared with `by`, in the
 * shape of a folder listing (also the share part of '@root'). Items sit in '@share' as the
 * caller sees them and name their owner.
 */
export async function shareListing(ctx: AdapterContext, by: Principal, query: FolderListQuery) {
  const page = await ctx.app.sharing.sharedPage(by, query)
  const present = itemPresenter(ctx, by)
  const owners = await ctx.app.accounts.displayNames([
    ...page.files.map((f) => f.ownerId),
    ...page.folders.map((f) => f.ownerId),
  ])
  const ownerOf = (id: string) => ({ id, displayName: owners.get(id) ?? '' })
  const presentedFolders = await present.folders(page.folders, page.counts, 'share', page.access)
  const presentedFiles = await present.files(page.files, 'share', page.access)
  const folders = presentedFolders.map((folder, index) => ({
    ...folder,
    parentId: '@share',
    owner: ownerOf(page.folders[index]?.ownerId ?? ''),
  }))
  const files = presentedFiles.map((file, index) => ({
    ...file,
    folderId: '@share',
    owner: ownerOf(page.files[index]?.ownerId ?? ''),
  }))
  return {
    files,
    folders,
    current: {
      id: '@share',
      title: 'Shared with me',
      filesCount: page.sectionCounts.files,
      foldersCount: page.sectionCounts.folders,
    },
    pathParts: ['@share'],
    startIndex: query.offset,
    count: files.length + folders.length,
    total: page.total,
    new: 0,
  }
}
