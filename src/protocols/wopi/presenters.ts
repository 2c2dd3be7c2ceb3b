/**
 * WOPI wire shapes. Field names are WOPI's own (PascalCase) and appear only here.
 * Types are strict: integers are JSON numbers, ids and versions strings, flags real
 * booleans, and nothing is ever null (Microsoft: omit a property rather than send null).
 */
import type { AdapterContext } from '../../app/index.js'
import { MAX_FILE_NAME_BYTES, splitExtension } from '../../core/names/file-names.js'
import type { Permission } from '../../core/tokens/signed-token.js'
import type { FileRecord, UserRecord } from '../../core/entities.js'
import { hostPageUrl, wopiFileUrl } from './access-token.js'

/**
 * The file's version as WOPI sees it (CheckFileInfo Version, X-WOPI-ItemVersion): derived
 * from the version counter, which moves on every PutFile even with identical bytes, so a
 * client never reuses a stale cache (WOPI clients, ONLYOFFICE Docs among them, cache a
 * document by this value). Never repeats for a file.
 */
export function itemVersion(file: FileRecord): string {
  return `v${file.version}`
}

/** LastModifiedTime: ISO 8601 UTC of the last change to the file. */
export function lastModifiedTime(file: FileRecord): string {
  return new Date(file.updatedAt).toISOString()
}

/** The CheckFileInfo body. */
export interface CheckFileInfo {
  BaseFileName: string
  FileExtension: string
  OwnerId: string
  Size: number
  UserId: string
  UserFriendlyName: string
  IsAnonymousUser: boolean
  Version: string
  LastModifiedTime: string
  SHA256: string
  SupportsLocks: boolean
  SupportsGetLock: boolean
  SupportsExtendedLockLength: boolean
  SupportsUpdate: boolean
  SupportsRename: boolean
  SupportsDeleteFile: boolean
  SupportsUserInfo: boolean
  UserCanWrite: boolean
  UserCanRename: boolean
  UserCanNotWriteRelative: boolean
  ReadOnly: boolean
  FileNameMaxLength: number
  HostEditUrl: string
  HostViewUrl: string
  UserInfo: string
  BreadcrumbBrandName: string
  /** Only for a link guest whose link denies downloads: all four true. */
  DisablePrint?: true
  HidePrintOption?: true
  DisableExport?: true
  HideExportOption?: true
}

/** A JSON number as JSON.stringify writes it (NaN and the infinities become null). */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null'
}

/**
 * The CheckFileInfo body as JSON text, exactly what JSON.stringify writes for it (the
 * properties in the interface's order, strings escaped by JSON.stringify itself; a test
 * compares the two). Written out by hand because it runs on every CheckFileInfo: one
 * template with a direct read of each property, instead of JSON.stringify walking the
 * object generically (the WOPI host answers outside Fastify, whose compiled response
 * schemas did this).
 */
export function checkFileInfoJson(i: CheckFileInfo): string {
  const text = JSON.stringify
  return `{"BaseFileName":${text(i.BaseFileName)},"FileExtension":${text(i.FileExtension)},\
"OwnerId":${text(i.OwnerId)},"Size":${jsonNumber(i.Size)},"UserId":${text(i.UserId)},\
"UserFriendlyName":${text(i.UserFriendlyName)},"IsAnonymousUser":${i.IsAnonymousUser},\
"Version":${text(i.Version)},"LastModifiedTime":${text(i.LastModifiedTime)},"SHA256":${text(i.SHA256)},\
"SupportsLocks":${i.SupportsLocks},"SupportsGetLock":${i.SupportsGetLock},\
"SupportsExtendedLockLength":${i.SupportsExtendedLockLength},"SupportsUpdate":${i.SupportsUpdate},\
"SupportsRename":${i.SupportsRename},"SupportsDeleteFile":${i.SupportsDeleteFile},\
"SupportsUserInfo":${i.SupportsUserInfo},"UserCanWrite":${i.UserCanWrite},\
"UserCanRename":${i.UserCanRename},"UserCanNotWriteRelative":${i.UserCanNotWriteRelative},\
"ReadOnly":${i.ReadOnly},"FileNameMaxLength":${jsonNumber(i.FileNameMaxLength)},\
"HostEditUrl":${text(i.HostEditUrl)},"HostViewUrl":${text(i.HostViewUrl)},\
"UserInfo":${text(i.UserInfo)},"BreadcrumbBrandName":${text(i.BreadcrumbBrandName)}${
    i.DisablePrint === true
      ? ',"DisablePrint":true,"HidePrintOption":true,"DisableExport":true,"HideExportOption":true'
      : ''
  }}`
}

/**
 * Builds CheckFileInfo for `user` holding a token with `permission` on `file`: the write
 * flags (UserCanWrite, UserCanRename, SupportsUpdate, ReadOnly, UserCanNotWriteRelative)
 * follow it, and the caller has narrowed it to their current access. `guest`: a link guest
 * (anonymous, no copies); `viewOnly`: its link denies downloads (no print, no export).
 */
export function presentCheckFileInfo(
  ctx: AdapterContext,
  file: FileRecord,
  user: UserRecord,
  permission: Permission,
  guest = false,
  viewOnly = false,
): CheckFileInfo {
  const canWrite = permission === 'write'
  const extension = splitExtension(file.title).extension
  return {
    BaseFileName: file.title,
    FileExtension: extension,
    OwnerId: file.ownerId,
    Size: file.size,
    UserId: user.id,
    UserFriendlyName: user.displayName || user.userName,
    IsAnonymousUser: guest,
    Version: itemVersion(file),
    LastModifiedTime: lastModifiedTime(file),
    // Microsoft: "a 256 bit SHA-2-encoded hash of the file contents, as a Base64-encoded string".
    SHA256: Buffer.from(file.sha256, 'hex').toString('base64'),
    SupportsLocks: true,
    SupportsGetLock: true,
    SupportsExtendedLockLength: true,
    SupportsUpdate: canWrite,
    SupportsRename: true,
    SupportsDeleteFile: true,
    SupportsUserInfo: true,
    UserCanWrite: canWrite,
    UserCanRename: canWrite,
    // A link guest may not save copies beside the one file the link opens; a signed-in user
    // who may edit the file may: beside it when he may create in its folder, else in his
    // own documents (app/file-changes.ts putRelative).
    UserCanNotWriteRelative: !canWrite || guest,
    ReadOnly: !canWrite,
    // Names are limited in UTF-8 bytes; this is what is left for the name before the extension.
    FileNameMaxLength: MAX_FILE_NAME_BYTES - Buffer.byteLength(extension),
    HostEditUrl: hostPageUrl(ctx, file.id, 'edit'),
    HostViewUrl: hostPageUrl(ctx, file.id, 'view'),
    UserInfo: user.wopiUserInfo,
    BreadcrumbBrandName: 'Folio',
    // A link that denies downloads: the client is asked not to print or export (WOPI's own words).
    ...(viewOnly ? { DisablePrint: true, HidePrintOption: true, DisableExport: true, HideExportOption: true } : {}),
  }
}

/** The PutRelativeFile body for the file that was written. */
export function presentRelativeFile(ctx: AdapterContext, file: FileRecord, token: string) {
  return {
    Name: file.title,
    Url: wopiFileUrl(ctx, file.id, token),
    HostViewUrl: hostPageUrl(ctx, file.id, 'view'),
    HostEditUrl: hostPageUrl(ctx, file.id, 'edit'),
  }
}
