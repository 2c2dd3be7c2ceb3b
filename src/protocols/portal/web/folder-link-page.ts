import type { AdapterContext, FolderLinkPage } from '../../../app/index.js'
import { extensionOf } from '../../../core/names/file-names.js'
import { escapeHtml } from '../../http/error-page.js'
import { pageDate, pageSize, pageText, type PageLanguage } from '../../http/page-texts/index.js'
import { crumbs, linkAddress, linkPage } from './link-page-layout.js'

/** Thumbnail status 1: made, so the list shows it (DocSpace's numbers). */
const THUMBNAIL_CREATED = 1

/**
 * The page of a folder reached through a folder link (`/s/<folderId>?doc=<key>`): the path
 * from the linked folder down (never above it), its sub-folders (each opens the same page
 * one level down) and its files, each with its thumbnail where one was made, opening the
 * file's own link page, and a Download unless the link denies downloads.
 */
export async function renderFolderLinkPage(
  ctx: AdapterContext,
  language: PageLanguage,
  page: FolderLinkPage,
  key: string,
): Promise<string> {
  const text = (key_: Parameters<typeof pageText>[1], values?: Record<string, string | number>) =>
    escapeHtml(pageText(language.locale, key_, values))
  const thumbnails = await ctx.app.conversion.thumbnailStatuses(page.files)
  const folderRows = page.folders.map(
    (folder) =>
      `<li class="folder"><span class="badge" aria-hidden="true">dir</span><a class="name" href="${escapeHtml(linkAddress(folder.id, key))}">${escapeHtml(folder.title)}</a><span class="info">${text('link.folder')}</span></li>`,
  )
  const fileRows = page.files.map((file) => {
    const picture =
      thumbnails.get(file.id) === THUMBNAIL_CREATED
        ? `<img class="thumb" src="${escapeHtml(linkAddress(file.id, key, '/thumbnail'))}" alt="" loading="lazy">`
        : `<span class="badge" aria-hidden="true">${escapeHtml(extensionOf(file.title).slice(0, 4) || 'file')}</span>`
    const download = page.denyDownload
      ? ''
      : `<a class="button small" href="${escapeHtml(linkAddress(file.id, key, '/download'))}" download aria-label="${text('link.downloadNamed', { name: file.title })}">${text('link.download')}</a>`
    return `<li class="file">${picture}<a class="name" href="${escapeHtml(linkAddress(file.id, key))}">${escapeHtml(file.title)}</a><span class="info">${escapeHtml(pageSize(language, file.size))} · <time datetime="${new Date(file.updatedAt).toISOString()}">${escapeHtml(pageDate(language, file.updatedAt))}</time></span>${download}</li>`
  })
  const hidden = page.folderTotal - page.folders.length + (page.fileTotal - page.files.length)
  const list =
    folderRows.length + fileRows.length === 0
      ? `<p class="none">${text('link.empty')}</p>`
      : `<ul class="items" aria-label="${text('link.contentsOf', { name: page.folder.title })}">${[...folderRows, ...fileRows].join('')}</ul>`
  const more = hidden > 0 ? `<p class="meta">${text('link.hidden', { count: hidden })}</p>` : ''
  const viewOnly = page.denyDownload ? ` · <span class="view-only">${text('link.viewOnly')}</span>` : ''
  const main = `${page.path.length > 1 ? crumbs(language, page.path, key, true) : ''}
<h1>${escapeHtml(page.folder.title)}</h1>
<p class="meta">${text('link.sharedBy')} <span class="owner">${escapeHtml(page.ownerName)}</span> · ${text('link.folders', { count: page.folderTotal })}, ${text('link.files', { count: page.fileTotal })}${viewOnly}</p>
${list}
${more}`
  return linkPage(language, page.folder.title, main)
}
