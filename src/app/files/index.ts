import type { Readable } from 'node:stream'
import type { FileRecord, VersionRecord } from '../../core/entities.js'
import type { ByteRange } from '../../ports/blob-store.js'
import type { FileListQuery, UserSettings } from '../../ports/metadata-store.js'
import { fileFor, type FileAction, type Principal } from '../access.js'
import { fileSubject, principalActor, recordAudit } from '../audit.js'
import { bind, type Bound } from '../bind.js'
import type { AppContext } from '../context.js'
import type { Tokens } from '../tokens.js'
import { restoreVersion } from '../editing/editing.js'
import { ownRoot, writableFolder, type FolderRef } from '../folders/folders.js'
import { readByDocsLink } from './docs-links.js'
import * as changes from './file-changes.js'
import * as files from './files.js'
import { openPresigned, presign } from './presigned.js'
import * as reUpload from './re-upload.js'
import { setCultureName } from './user-culture.js'

/** Files: reading, creating, changing and deleting, each asking the access policy. */
export interface FilesService {
  /** The file, when `by` may do `action` on it; NOT_FOUND otherwise (also for others' files). */
  get(by: Principal, fileId: string, action?: FileAction): Promise<FileRecord>
  /** One page of the files in `by`'s 'my' root and their total count. */
  list(by: Principal, query: Omit<FileListQuery, 'folderId'>): Promise<{ total: number; items: FileRecord[] }>
  /** A blank document in `folder` ('@my' when left out); its name repaired. */
  createBlank(by: Principal, title: string, folder?: FolderRef): Promise<FileRecord>
  /**
   * Stores an upload in `folder` ('@my' when left out); its name repaired. A name the folder
   * holds already makes a new version of that file or a new file beside it, as
   * `createNewIfExist` (or, left out, the user's setting) says: see re-upload.ts.
   */
  upload(
    by: Principal,
    title: string,
    body: Readable,
    expectedSize?: number,
    folder?: FolderRef,
    createNewIfExist?: boolean,
  ): Promise<FileRecord>
  /** Stores an upload's bytes for `folder`; `settleUpload` then places it (see re-upload.ts). */
  stageUpload(
    by: Principal,
    title: string,
    body: Readable,
    expectedSize?: number,
    folder?: FolderRef,
  ): Promise<reUpload.StagedUpload>
  /** A new version of the same-named file or a new file, as `createNewIfExist` (or the user's setting) says. */
  settleUpload(staged: reUpload.StagedUpload, createNewIfExist?: boolean): Promise<FileRecord>
  /** Settles one request's uploads: the quota for all of them first, then each in order. */
  settleUploads(staged: readonly reUpload.StagedUpload[], createNewIfExist?: boolean): Promise<FileRecord[]>
  /** Drops a staged upload whose request failed. */
  discardUpload(staged: reUpload.StagedUpload): Promise<void>
  /** A short-lived read link token for the file's current version (see presigned.ts). */
  presign(by: Principal, fileId: string): Promise<{ file: FileRecord; token: string; expiresAt: number }>
  /** The file and version a presigned token reads, the user's access checked again. */
  openPresigned(token: string, fileId: string): Promise<{ file: FileRecord; version: VersionRecord }>
  /** The caller's own portal settings (files/settings). */
  settings(by: Principal): Promise<UserSettings>
  /** Whether the caller's same-named uploads become new versions by default. */
  setUpdateIfExist(by: Principal, value: boolean): Promise<UserSettings>
  /** The caller's language for the web interface ('' follows the browser); INVALID_INPUT for a bad tag. */
  setCultureName(by: Principal, cultureName: string): Promise<UserSettings>
  rename: Bound<typeof changes.renameFile>
  delete: Bound<typeof changes.deleteFile>
  storeNewContents: Bound<typeof changes.storeNewContents>
  putRelative: Bound<typeof changes.putRelative>
  /** Every version of a file `by` may read, oldest first. */
  versions(by: Principal, fileId: string): Promise<VersionRecord[]>
  /** One version of a file `by` may read; NOT_FOUND when either is missing. */
  version(by: Principal, fileId: string, version: number): Promise<VersionRecord>
  /** Makes an older version the newest (see editing.restoreVersion). */
  restore(by: Principal, fileId: string, version: number): Promise<FileRecord>
  /** Opens stored bytes (a file's or version's blobKey, whole or a range). */
  openBlob(blobKey: string, range?: ByteRange): Promise<Readable>
  /** A small blob's bytes whole, or undefined when they must be streamed with openBlob. */
  readSmallBlob(blobKey: string): Promise<Buffer | undefined>
  /**
   * The file and version a signed Docs download link names, decided from the access and
   * the file as they are now (see docs-links.readByDocsLink): FORBIDDEN once its holder
   * may no longer read it, NOT_FOUND when it is gone or trashed.
   */
  forLink: Bound<typeof readByDocsLink>
}

export function createFilesService(ctx: AppContext, tokens: Tokens): FilesService {
  const get = (by: Principal, fileId: string, action: FileAction = 'read') => fileFor(ctx, by, fileId, action)
  const stageUpload = async (
    by: Principal,
    title: string,
    body: Readable,
    size: number | undefined,
    folder: FolderRef,
  ) => {
    let target: Awaited<ReturnType<typeof writableFolder>>
    try {
      target = await writableFolder(ctx, by, folder)
    } catch (error) {
      body.resume()
      throw error
    }
    return reUpload.stageUpload(ctx, by, target, title, body, size)
  }
  return {
    get,
    list: async (by, query) => {
      await ownRoot(ctx, by, 'my')
      return files.listFiles(ctx, by.user.id, query)
    },
    createBlank: async (by, title, folder = '@my') => {
      const target = await writableFolder(ctx, by, folder)
      // The file belongs to the folder's owner; who made it is the caller (a sharee, say).
      return files.createBlankFile(ctx, target.ownerId, title, target.id, by.user.id)
    },
    upload: async (by, title, body, size, folder = '@my', createNewIfExist) => {
      const staged = await stageUpload(by, title, body, size, folder)
      return reUpload.settleUpload(ctx, staged, createNewIfExist)
    },
    stageUpload: (by, title, body, size, folder = '@my') => stageUpload(by, title, body, size, folder),
    settleUpload: (staged, createNewIfExist) => reUpload.settleUpload(ctx, staged, createNewIfExist),
    settleUploads: (staged, createNewIfExist) => reUpload.settleUploads(ctx, staged, createNewIfExist),
    discardUpload: (staged) => reUpload.discardUpload(ctx, staged),
    presign: (by, fileId) => presign(ctx, tokens, by, fileId),
    openPresigned: (token, fileId) => openPresigned(ctx, tokens, token, fileId),
    settings: (by) => reUpload.userSettings(ctx, by),
    setUpdateIfExist: (by, value) => reUpload.setUpdateIfExist(ctx, by, value),
    setCultureName: (by, cultureName) => setCultureName(ctx, by, cultureName),
    rename: bind(ctx, changes.renameFile),
    delete: bind(ctx, changes.deleteFile),
    storeNewContents: bind(ctx, changes.storeNewContents),
    putRelative: bind(ctx, changes.putRelative),
    versions: async (by, fileId) => {
      await get(by, fileId, 'read')
      return files.listVersions(ctx, fileId)
    },
    version: async (by, fileId, version) => {
      await get(by, fileId, 'read')
      return files.getVersion(ctx, fileId, version)
    },
    restore: async (by, fileId, version) => {
      await get(by, fileId, 'edit')
      const restored = await restoreVersion(ctx, fileId, version, by.user.id)
      await recordAudit(ctx, 'version-restored', principalActor(by), fileSubject(restored), `version ${version}`)
      return restored
    },
    openBlob: (blobKey, range) => files.openBlob(ctx, blobKey, range),
    readSmallBlob: (blobKey) => files.readSmallBlob(ctx, blobKey),
    forLink: bind(ctx, readByDocsLink),
  }
}

export type { RelativeTarget } from './file-changes.js'
export type { StagedUpload } from './re-upload.js'
export type { UserSettings } from '../../ports/metadata-store.js'
