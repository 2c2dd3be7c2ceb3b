import { extensionOf } from '../../core/names/file-names.js'
import type {
  EditingState,
  FileRecord,
  UserRecord,
  VersionRecord,
} from '../../ports/metadata-store.js'
import { isoWithOffset } from '../http/timestamps.js'

/** The caller's profile, with the ONLYOFFICE field names that make sense here. */
export function presentProfile(user: UserRecord) {
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
    status: 1,
    activationStatus: 1,
    created: isoWithOffset(user.createdAt),
  }
}

/** ONLYOFFICE shows sizes as text ('12.3 KB') in contentLength; the number is pureContentLength. */
export function humanSize(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(2)} ${units[unit]}`
}

function userRef(id: string, names: Map<string, string>) {
  return { id, displayName: names.get(id) ?? '' }
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
    folderId: '@my',
    locked,
    viewUrl: `${publicUrl}/api/2.0/files/file/${file.id}/download`,
    webUrl: `${publicUrl}/editor/${file.id}`,
    // Who has it open in ONLYOFFICE Docs now (callback status 1) and the last failed save.
    editing: (editing?.editors ?? []).map((id) => {
      const name = names.get(id) || id
      return { id, name, displayName: name }
    }),
    lastSaveError: error
      ? { status: error.status, message: error.message, at: isoWithOffset(error.at) }
      : null,
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
