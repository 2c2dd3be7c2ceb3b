/**
 * The one way the UI talks to Folio: its public portal API (and /ui/session).
 * The session token lives in an HttpOnly cookie the browser sends by itself;
 * every request carries `X-Folio-Request: 1`, which Folio demands of
 * cookie-authenticated writes (a cross-site page cannot add it).
 */

import { t } from './i18n'

export const API = '/api/2.0'

/** A failed call: HTTP status, Folio's stable error code and its message. */
export class ApiError extends Error {
  readonly status: number
  readonly type: string
  /** Seconds from Retry-After (429), when sent. */
  readonly retryAfter: number | undefined

  constructor(status: number, type: string, message: string, retryAfter?: number) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.type = type
    this.retryAfter = retryAfter
  }
}

export interface UserRef {
  id: string
  displayName: string
}

/** Someone the people search found (admins also see the e-mail address). */
export interface Person extends UserRef {
  email?: string
}

export interface Profile {
  id: string
  userName: string
  displayName: string
  email: string
  isAdmin: boolean
  /** ONLYOFFICE's EmployeeStatus: 1 active, 2 disabled by an admin. */
  status: number
  created: string
  /** One's own profile only: the interface's language chosen on any browser ('' follows the browser). */
  cultureName?: string
  /** DocSpace's storage fields (one's own, or anyone's for an admin): bytes; quotaLimit -1 is none. */
  usedSpace?: number
  quotaLimit?: number
}

/** What the owner sees of an item's sharing (absent on others' items). */
export interface SharingFacts {
  /** Shared with people or by a link. */
  shared?: boolean
  sharedWith?: UserRef[]
  /** The link's FileShare while it is on, else null. */
  sharedLink?: number | null
}

export interface FileItem extends SharingFacts {
  id: string
  folderId?: string
  /** The caller's FileShare: 0 for their own items, else the access a share gives them. */
  access?: number
  /** The owner, on items others shared with the caller. */
  owner?: UserRef
  /** Trashed items: the folder they were deleted from. */
  originId?: string
  originTitle?: string
  /** Trashed items: when the trash retention deletes them for good. */
  autoDelete?: string
  title: string
  fileExst: string
  pureContentLength: number
  version: number
  created: string
  updated: string
  createdBy: UserRef
  updatedBy: UserRef
  locked: boolean
  /** Who holds the WOPI lock and since when (null when unlocked or not recorded). */
  lockedBy?: UserRef | null
  lockedAt?: string | null
  viewUrl: string
  /** Who has the file open in an editor now (ONLYOFFICE Docs status 1). */
  editing?: UserRef[]
  /** The last editor save that failed (ONLYOFFICE status 3/7), until a save succeeds. */
  lastSaveError?: { status: number; message: string; at: string } | null
}

/** A folder as the folders API lists it. */
export interface FolderItem extends SharingFacts {
  id: string
  title: string
  parentId: string | number
  filesCount?: number
  foldersCount?: number
  created?: string
  updated?: string
  createdBy?: UserRef
  access?: number
  /** ONLYOFFICE's FolderType of its section as the caller sees it (USER 5, SHARE 6, TRASH 3). */
  rootFolderType?: number
  owner?: UserRef
  originId?: string
  originTitle?: string
  autoDelete?: string
}

/** One page of a folder: folders first, then files; `total` counts both. */
export interface FolderPage {
  files: FileItem[]
  folders: FolderItem[]
  current: FolderItem
  pathParts: string[]
  startIndex: number
  count: number
  total: number
}

export interface FilePage {
  files: FileItem[]
  total: number
  startIndex: number
  count: number
}

export interface VersionItem {
  version: number
  created: string
  author: UserRef
  size: number
  source: string
  downloadUrl: string
  /** conflict: saved by an editor that had an older version open (baseVersion) while the file changed. */
  meta?: { conflict?: boolean; baseVersion?: number }
}

export interface Capabilities {
  onlyofficeEditor: boolean
  wopiEditor: boolean
  maxFileSize: number
  /** A converter runs: office documents preview as PDF, download as and thumbnails work. */
  converter: boolean
  /** How each extension previews: 'pdf', 'image', 'text', or 'converted' (needs the converter). */
  previews: Record<string, 'pdf' | 'image' | 'text' | 'converted'>
  /** What each extension can be downloaded as. */
  conversions: Record<string, string[]>
}

let onUnauthenticated: () => void = () => undefined

/** Called whenever Folio answers 401 (the session ended): the app shows the sign-in screen. */
export function setUnauthenticatedHandler(handler: () => void): void {
  onUnauthenticated = handler
}

interface Envelope {
  response?: unknown
  error?: { message?: unknown; type?: unknown }
}

function isEnvelope(value: unknown): value is Envelope {
  return typeof value === 'object' && value !== null
}

/** Turns a reply (status, Retry-After, body text) into the thrown ApiError. */
export function errorOf(status: number, retryAfterHeader: string | null, text: string): ApiError {
  let type = 'HTTP_' + status
  let message = t('preview.answered', { status })
  try {
    const parsed: unknown = JSON.parse(text)
    if (isEnvelope(parsed) && parsed.error) {
      if (typeof parsed.error.type === 'string') type = parsed.error.type
      if (typeof parsed.error.message === 'string') message = parsed.error.message
    }
  } catch {
    // not JSON (a proxy's error page): keep the generic message
  }
  const retryAfter = retryAfterHeader && /^\d+$/.test(retryAfterHeader) ? Number(retryAfterHeader) : undefined
  return new ApiError(status, type, message, retryAfter)
}

/**
 * Calls Folio and returns the envelope's `response`. `path` starts with `/`
 * and is taken under /api/2.0 unless it starts with `/ui/`.
 */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Folio-Request': '1' }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(path.startsWith('/ui/') ? path : API + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    })
  } catch {
    throw new ApiError(0, 'NETWORK', t('errors.network'))
  }
  const text = await response.text()
  if (!response.ok) {
    const error = errorOf(response.status, response.headers.get('Retry-After'), text)
    if (response.status === 401 && !path.startsWith('/ui/session')) onUnauthenticated()
    throw error
  }
  const parsed: unknown = text ? JSON.parse(text) : undefined
  // The caller names the shape it expects; Folio's API is the contract.
  return (isEnvelope(parsed) ? parsed.response : undefined) as T
}

/** A folder reference in a path: the '@my'-style aliases as they are, ids encoded. */
export function folderSegment(ref: string): string {
  return /^@[a-z]+$/.test(ref) ? ref : encodeURIComponent(ref)
}

/** Query string from defined values. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(name, String(value))
  }
  const text = search.toString()
  return text ? `?${text}` : ''
}

export const signIn = (userName: string, password: string) =>
  call<Profile>('POST', '/ui/session', { userName, password })
export const signOut = () => call<null>('DELETE', '/ui/session')
/** Changes one's own password; every other session and WOPI token of the account ends. */
export const changeOwnPassword = (currentPassword: string, password: string) =>
  call<Profile>('PUT', '/people/@self/password', { currentPassword, password })
/** Ends every session of one's account but this one. */
export const signOutOtherSessions = () => call<string>('PUT', '/security/activeconnections/logoutallexceptthis')
export const whoAmI = () => call<Profile>('GET', '/people/@self')
/** Keeps the interface's language with the account ('' follows the browser), as ONLYOFFICE's culture call. */
export const setCulture = (cultureName: string) => call<Profile>('PUT', '/people/@self/culture', { cultureName })
/** Who is signed in, if anyone: answers 200 either way, so a signed-out load logs no error. */
export const session = () =>
  call<{ signedIn: false } | { signedIn: true; profile: Profile; capabilities: Capabilities }>('GET', '/ui/session')
export const capabilities = () => call<Capabilities>('GET', '/settings/capabilities')

export type SortField = 'AZ' | 'Size' | 'DateAndTime'

export const listFiles = (options: {
  startIndex: number
  count: number
  sortBy: SortField
  sortOrder: 'ascending' | 'descending'
  filterValue: string
}) => call<FilePage>('GET', '/files/@my' + query(options))

/** A folder's page: '@my', '@trash', '@share' or a folder id; Folio sorts, filters and pages each. */
export const listFolder = (
  ref: string,
  options: {
    startIndex: number
    count: number
    sortBy: SortField
    sortOrder: 'ascending' | 'descending'
    filterValue: string
    filterType?: 'FoldersOnly' | 'FilesOnly'
    /** Only one's own items shared with someone or by a link, over the whole folder. */
    sharedByMe?: boolean
  },
) =>
  call<FolderPage>(
    'GET',
    `/files/${folderSegment(ref)}` + query({ ...options, sharedByMe: options.sharedByMe ? 'true' : undefined }),
  )

/**
 * Everything the caller may open whose name or words match `text`: folders and files, best
 * first; a file found by its words carries `snippet`.
 */
export const searchEverything = (text: string) =>
  call<Array<(FileItem | FolderItem) & { snippet?: string }>>('GET', `/files/@search/${encodeURIComponent(text)}`)

/** The folders from the section's root down to `id`. */
export const folderPath = (id: string) => call<FolderItem[]>('GET', `/files/folder/${encodeURIComponent(id)}/path`)
export const createFolder = (parent: string, title: string) =>
  call<FolderItem>('POST', `/files/folder/${folderSegment(parent)}`, { title })
export const renameFolder = (id: string, title: string) =>
  call<FolderItem>('PUT', `/files/folder/${encodeURIComponent(id)}`, { title })

/** Files and folders picked together (a selection, or one row). */
export interface Items {
  fileIds: string[]
  folderIds: string[]
}

/** A file operation as Folio reports it. */
export interface Operation {
  id: string
  operation: number
  error: string | null
  finished: boolean
}

/** How often the operations are asked for while one the UI started still runs. */
const OPERATION_POLL_MS = 400

/**
 * Waits until the operations a call started have ended: a call answers once its operation
 * ended, or with it still running when it takes long (FOLIO_OPERATION_WAIT), and then the
 * operations are asked for until it has ended. Throws its error, if it failed. An operation
 * that is no longer listed was reported to another tab of the same user, so it has ended.
 */
async function untilEnded(started: Promise<Operation[]>): Promise<Operation[]> {
  const first = await started
  let waiting = new Set(first.filter((op) => !op.finished).map((op) => op.id))
  const errors: string[] = []
  while (waiting.size > 0) {
    await new Promise((resolve) => setTimeout(resolve, OPERATION_POLL_MS))
    const now = await call<Operation[]>('GET', '/files/fileops')
    const still = new Set<string>()
    for (const op of now) {
      if (!waiting.has(op.id)) continue
      if (!op.finished) still.add(op.id)
      else if (op.error) errors.push(op.error)
    }
    waiting = still
  }
  if (errors.length > 0) throw new ApiError(409, 'OPERATION_FAILED', errors.join(' '))
  return first
}

/** Moves items into a folder; a name already there gets a free one (Duplicate). */
export const moveItems = (items: Items, destFolderId: string) =>
  untilEnded(call<Operation[]>('PUT', '/files/fileops/move', { ...items, destFolderId, conflictResolveType: 2 }))
/** Copies items into a folder; a name already there gets a free one (Duplicate), as a move. */
export const copyItems = (items: Items, destFolderId: string) =>
  untilEnded(call<Operation[]>('PUT', '/files/fileops/copy', { ...items, destFolderId, conflictResolveType: 2 }))
/** Moves items to the trash (`immediately`: deletes them for good). */
export const deleteItems = (items: Items, immediately = false) =>
  untilEnded(call<Operation[]>('PUT', '/files/fileops/delete', { ...items, immediately }))
/** Puts trashed items back into the folders they were deleted from. */
export const restoreItems = (items: Items) => untilEnded(call<Operation[]>('PUT', '/files/fileops/restore', items))
export const emptyTrash = () => untilEnded(call<Operation[]>('PUT', '/files/fileops/emptytrash'))

/** One line of a sharing list (the owner first). */
export interface ShareEntry {
  access: number
  sharedTo: UserRef
  isOwner: boolean
  isLocked: boolean
}

/** A file's share link, when it is on. */
export interface ShareLink {
  access: number
  sharedTo: { id: string; shareLink: string; title: string }
}

export type ShareTarget = { kind: 'file' | 'folder'; id: string }

const sharePath = (target: ShareTarget) => `/files/${target.kind}/${encodeURIComponent(target.id)}/share`
export const listShares = (target: ShareTarget) => call<ShareEntry[]>('GET', sharePath(target))
/** Gives (or with access 0 takes away) access; returns the whole list. */
export const setShare = (target: ShareTarget, userId: string, access: number) =>
  call<ShareEntry[]>('PUT', sharePath(target), { share: [{ shareTo: userId, access }], notify: false })
export const getShareLink = (fileId: string) =>
  call<ShareLink | null>('GET', `/files/file/${encodeURIComponent(fileId)}/sharedlink`)
/** Turns the link on with an access, or off with 0. */
export const setShareLink = (fileId: string, access: number) =>
  call<ShareLink | null>('PUT', `/files/file/${encodeURIComponent(fileId)}/sharedlink`, { share: access })
/** People a signed-in user may share with (no e-mail addresses of others). */
export const findPeople = (filterValue: string) => call<Person[]>('GET', '/people/filter' + query({ filterValue }))

/** One folder, with the caller's access to it. */
export const getFolder = (id: string) => call<FolderItem>('GET', `/files/folder/${encodeURIComponent(id)}`)
export const getFile = (id: string) => call<FileItem>('GET', `/files/file/${encodeURIComponent(id)}`)
export const createFile = (title: string, folder = '@my') =>
  call<FileItem>('POST', `/files/${folderSegment(folder)}/file`, { title })
export const renameFile = (id: string, title: string) =>
  call<FileItem>('PUT', `/files/file/${encodeURIComponent(id)}`, { title })
/** Releases a file's WOPI lock whoever holds it (the owner, or an admin). */
export const releaseLock = (id: string) =>
  call<{ released: boolean }>('DELETE', `/files/file/${encodeURIComponent(id)}/lock`)
export const listVersions = (id: string) => call<VersionItem[]>('GET', `/files/file/${encodeURIComponent(id)}/history`)
export const restoreVersion = (id: string, version: number) =>
  call<unknown>('POST', `/files/file/${encodeURIComponent(id)}/restore`, { version })

/** A conversion to OOXML as ONLYOFFICE's checkconversion reports it (`processed` '1' once ended). */
export interface Conversion {
  id: string
  error: string
  processed: string
  progress: number
  result: FileItem | null
}

/** Starts converting a legacy or open document to its OOXML twin beside it. */
export const startConversion = (id: string) =>
  call<Conversion[]>('PUT', `/files/file/${encodeURIComponent(id)}/checkconversion`)
/** Where the conversion of a file stands (`[]` when none was started). */
export const conversionStatus = (id: string) =>
  call<Conversion[]>('GET', `/files/file/${encodeURIComponent(id)}/checkconversion`)

/** Download address of a file (the cookie authorises the GET). */
export const downloadUrl = (id: string) => `${API}/files/file/${encodeURIComponent(id)}/download`
/** Several files and folders as one zip archive, made when fetched (the bulk download). */
export const archiveUrl = (items: { folderIds: string[]; fileIds: string[] }) => {
  const query = new URLSearchParams()
  if (items.folderIds.length > 0) query.set('folderIds', items.folderIds.join(','))
  if (items.fileIds.length > 0) query.set('fileIds', items.fileIds.join(','))
  return `${API}/files/fileops/bulkdownload?${query.toString()}`
}
/** The preview of a file's current version, shown by the browser itself (inline). */
export const previewUrl = (id: string) => `${API}/files/file/${encodeURIComponent(id)}/preview`
/** The file converted to `target` ('pdf'): ONLYOFFICE's download as. */
export const downloadAsUrl = (id: string, target: string) =>
  `${downloadUrl(id)}?outputtype=.${encodeURIComponent(target)}`
/** An image of the file's first page (made by the converter). */
export const thumbnailUrl = (id: string) => `${API}/files/file/${encodeURIComponent(id)}/thumbnail`
export const versionDownloadUrl = (id: string, version: number) =>
  `${API}/files/file/${encodeURIComponent(id)}/version/${version}/download`

export const listPeople = () => call<Profile[]>('GET', '/people')
export const addPerson = (input: {
  userName: string
  password: string
  isAdmin: boolean
  displayName?: string
  email?: string
}) => call<Profile>('POST', '/people', input)
export const updatePerson = (id: string, changes: { isAdmin?: boolean; displayName?: string; email?: string }) =>
  call<Profile>('PUT', `/people/${encodeURIComponent(id)}`, changes)
export const setPersonPassword = (id: string, password: string) =>
  call<Profile>('PUT', `/people/${encodeURIComponent(id)}/password`, { password })
export const removePerson = (id: string) => call<unknown>('DELETE', `/people/${encodeURIComponent(id)}`)
/** Disables (Terminated) or enables (Active) an account without removing it. */
export const setPersonDisabled = (id: string, disabled: boolean) =>
  call<Profile[]>('PUT', `/people/status/${disabled ? 'Terminated' : 'Active'}`, { userIds: [id] })

/** A folder's link, when it is on (DocSpace's shape). */
export interface FolderLink {
  access: number
  sharedTo: { id: string; shareLink: string; title: string; denyDownload: boolean; expirationDate?: string }
}

/** What a folder's link is set to; access 0 turns it off. Every setting is sent each time. */
export interface FolderLinkSettings {
  access: number
  denyDownload: boolean
  /** ISO 8601; null: no expiry. */
  expirationDate: string | null
}

export const getFolderLink = (folderId: string) =>
  call<FolderLink | null>('GET', `/files/folder/${encodeURIComponent(folderId)}/link`)
export const setFolderLink = (folderId: string, settings: FolderLinkSettings) =>
  call<FolderLink | null>('PUT', `/files/folder/${encodeURIComponent(folderId)}/links`, settings)

/** DocSpace's PUT people/userquota: the limit in bytes, -1 for none (admins only). */
export const setPersonQuota = (id: string, quota: number) =>
  call<Profile[]>('PUT', '/people/userquota', { userIds: [id], quota })
