import { scaleBytes } from '../../core/units/byte-scale.js'
import { extensionOf } from '../../core/names/file-names.js'
import { portalFileTypeOf } from '../../core/documents/portal-file-types.js'
import type {
  EditingState,
  FileRecord,
  FolderCounts,
  FolderRecord,
  FolderRootType,
  UserRecord,
  VersionRecord,
} from '../../core/entities.js'
import type { LockInfo, StorageUsage, UserSettings } from '../../app/index.js'
import { isoWithOffset } from '../http/timestamps.js'

/**
 * A profile, with the ONLYOFFICE field names that make sense here; with `usage` (for
 * oneself and for admins) DocSpace's storage fields: `usedSpace` and `quotaLimit` in bytes,
 * -1 for no limit; the account's own settings add `cultureName` (the interface's language,
 * '' following the browser), which only the person themself is shown.
 */
export function presentProfile(user: UserRecord, usage?: StorageUsage, settings?: Pick<UserSettings, 'cultureName'>) {
  return {
    id: user.id,
    userName: user.userName,
    displayName: user.displayName,
    firstName: user.displayName,
    lastName: '',
    email: user.email,
    isAdmin: user.isAdmin,
    isOwner: false,
    isVisitor: false,
    // EmployeeStatus: Active 1, Terminated 2 (disabled by an admin).
    status: user.disabled ? 2 : 1,
    activationStatus: 1,
    created: isoWithOffset(user.createdAt),
    ...(settings ? { cultureName: settings.cultureName } : {}),
    ...(usage === undefined ? {} : { usedSpace: usage.usedSpace, quotaLimit: usage.quotaLimit ?? -1 }),
  }
}

/** ONLYOFFICE shows sizes as text ('12.3 KB') in contentLength; the number is pureContentLength. */
export function humanSize(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  const { value, unit } = scaleBytes(bytes, units.length)
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(2)} ${units[unit]}`
}

function userRef(id: string, names: Map<string, string>) {
  return { id, displayName: names.get(id) ?? '' }
}

/** ONLYOFFICE's FolderType of each section: USER 5 for 'my', TRASH 3, SHARE 6. */
export const ROOT_FOLDER_TYPE: Readonly<Record<FolderRootType | 'share', number>> = {
  my: 5,
  trash: 3,
  share: 6,
}

/** Where an item lies, for its rootFolderType and (when trashed) originId/originTitle. */
export interface ItemPlace {
  /** The section as the caller sees it: 'share' for someone else's item reached through a share. */
  rootType: FolderRootType | 'share'
  /** Title of the folder the item was trashed from, when known. */
  originTitle?: string
  /** When a trashed item is deleted for good by the trash retention (epoch ms). */
  autoDeleteAt?: number
  /** The caller's FileShare on the item; 0 (no restriction) for the owner, the default. */
  access?: number
}

function trashFacts(item: { trashedAt: number | null; originFolderId: string | null }, place?: ItemPlace) {
  if (item.trashedAt === null || item.originFolderId === null) return {}
  const facts = { originId: item.originFolderId, originTitle: place?.originTitle ?? '' }
  // DocSpace names the date a trashed item is deleted for good `autoDelete`.
  return place?.autoDeleteAt === undefined ? facts : { ...facts, autoDelete: isoWithOffset(place.autoDeleteAt) }
}

/** A folder as the files API returns it; `access` 0 means the owner's own (no restriction). */
export function presentFolder(
  folder: FolderRecord,
  counts: FolderCounts,
  names: Map<string, string>,
  place: ItemPlace,
) {
  return {
    id: folder.id,
    title: folder.title,
    parentId: folder.parentId ?? 0,
    filesCount: counts.files,
    foldersCount: counts.folders,
    isShareable: false,
    created: isoWithOffset(folder.createdAt),
    updated: isoWithOffset(folder.updatedAt),
    createdBy: userRef(folder.createdBy, names),
    updatedBy: userRef(folder.updatedBy, names),
    rootFolderType: ROOT_FOLDER_TYPE[place.rootType],
    access: place.access ?? 0,
    shared: false,
    ...trashFacts(folder, place),
  }
}

/**
 * A file record as the files API returns it. `names` maps user ids to display names
 * (editors included); `editing` is the file's ONLYOFFICE editing state, if any.
 */
export function presentFile(
  file: FileRecord,
  publicUrl: string,
  names: Map<string, string>,
  now: number,
  editing?: EditingState,
  place: ItemPlace = { rootType: 'my' },
  thumbnailStatus?: number,
) {
  const locked = file.lock !== null && file.lock.expiresAt > now
  const error = editing?.lastError
  return {
    id: file.id,
    title: file.title,
    fileExst: extensionOf(file.title) ? `.${extensionOf(file.title)}` : '',
    contentLength: humanSize(file.size),
    pureContentLength: file.size,
    version: file.version,
    created: isoWithOffset(file.createdAt),
    updated: isoWithOffset(file.updatedAt),
    createdBy: userRef(file.createdBy, names),
    updatedBy: userRef(file.updatedBy, names),
    folderId: file.folderId,
    rootFolderType: ROOT_FOLDER_TYPE[place.rootType],
    // The caller's FileShare: 0 for the owner's own items (no restriction).
    access: place.access ?? 0,
    shared: false,
    // fileStatus flags: IsEditing 1.
    fileStatus: (editing?.editors.length ?? 0) > 0 ? 1 : 0,
    fileType: portalFileTypeOf(extensionOf(file.title)),
    ...trashFacts(file, place),
    locked,
    // Who holds the WOPI lock and since when (null when unlocked or not recorded).
    lockedBy: locked && file.lock?.holderId !== undefined ? userRef(file.lock.holderId, names) : null,
    lockedAt: locked && file.lock?.lockedAt !== undefined ? isoWithOffset(file.lock.lockedAt) : null,
    // With a query string, as ONLYOFFICE's (clients append `&version=N` for an older one).
    viewUrl: `${publicUrl}/api/2.0/files/file/${file.id}/download?action=download`,
    // DocSpace's thumbnail fields (0 waiting, 1 created, 2 not required, 3 error), in listings.
    ...(thumbnailStatus === undefined
      ? {}
      : { thumbnailUrl: `${publicUrl}/api/2.0/files/file/${file.id}/thumbnail`, thumbnailStatus }),
    // `doceditor` in the path: ONLYOFFICE's Desktop Editors open it as an editor tab.
    webUrl: `${publicUrl}/doceditor/${file.id}`,
    // Who has it open in ONLYOFFICE Docs now (callback status 1) and the last failed save.
    editing: (editing?.editors ?? []).map((id) => {
      const name = names.get(id) || id
      return { id, name, displayName: name }
    }),
    // The same people as { id, displayName }: who is editing the file now.
    editors: (editing?.editors ?? []).map((id) => ({ id, displayName: names.get(id) || id })),
    lastSaveError: error ? { status: error.status, message: error.message, at: isoWithOffset(error.at) } : null,
  }
}

/** One entry of a file's version list. */
export function presentVersion(version: VersionRecord, publicUrl: string, names: Map<string, string>) {
  return {
    version: version.version,
    created: isoWithOffset(version.createdAt),
    author: userRef(version.createdBy, names),
    size: version.size,
    sha256: version.sha256,
    source: version.source,
    meta: version.meta,
    downloadUrl: `${publicUrl}/api/2.0/files/file/${version.fileId}/version/${version.version}/download`,
  }
}

/** A file's WOPI lock for GET/DELETE /files/file/{id}/lock. */
export function presentLockInfo(info: LockInfo, names: Map<string, string>) {
  return {
    id: info.fileId,
    locked: info.locked,
    lockedBy: info.holderId === undefined ? null : userRef(info.holderId, names),
    lockedAt: info.lockedAt === undefined ? null : isoWithOffset(info.lockedAt),
    expires: info.expiresAt === undefined ? null : isoWithOffset(info.expiresAt),
  }
}

/** The address of a presigned link (see app/presigned.ts): no login, the token in the query. */
export function presignedUrl(publicUrl: string, fileId: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/2.0/files/presigned/${encodeURIComponent(fileId)}?token=${token}`
}
