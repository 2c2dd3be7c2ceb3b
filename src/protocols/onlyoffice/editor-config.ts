import type { AdapterContext } from '../../app/index.js'
import { documentKey } from '../../core/documents/document-key.js'
import { documentTypeOf, isEditableType, type DocumentType } from '../../core/documents/file-types.js'
import { DomainError } from '../../core/errors.js'
import { extensionOf, splitExtension } from '../../core/names/file-names.js'
import type { FileRecord, UserRecord } from '../../core/entities.js'
import { allows, editsInEditor, type AccessLevel } from '../../core/sharing/access-levels.js'
import { signDocsToken } from './jwt.js'
import { callbackLink, downloadLink } from './links.js'

/**
 * The configuration handed to `new DocsAPI.DocEditor(...)`
 * (https://api.onlyoffice.com/docs/docs-api/usage-api/advanced-parameters/). Folio
 * builds it in one pure step and signs it in a second, so the rules can be tested
 * without a server.
 */

/** `editorConfig.mode`. */
export type EditorMode = 'edit' | 'view'

/** `document.permissions`: what the editor lets the user do. */
export interface EditorPermissions {
  edit: boolean
  review: boolean
  comment: boolean
  fillForms: boolean
  download: boolean
  print: boolean
  copy: boolean
}

/** The config object the editor page passes to `new DocsAPI.DocEditor`. */
export interface EditorConfig {
  documentType: DocumentType
  document: {
    fileType: string
    key: string
    title: string
    url: string
    permissions: EditorPermissions
  }
  editorConfig: {
    /** Only in edit mode: a viewer never saves, so Docs gets nothing to call back. */
    callbackUrl?: string
    mode: EditorMode
    user: { id: string; name: string }
    lang: string
    customization: { forcesave: boolean }
  }
  /** HS256 JWT over everything above, when a secret is set. */
  token?: string
}

/** The facts buildEditorConfig needs (no context: links are made by the caller). */
export interface EditorConfigInput {
  file: Pick<FileRecord, 'id' | 'title' | 'keyVersion'>
  user: { id: string; name: string }
  /** What the caller asked for; edit is granted only when allowed and the format can be saved. */
  requestedMode: EditorMode
  /** The user's access to the file: it decides the mode and document.permissions. */
  access: AccessLevel
  downloadUrl: string
  callbackUrl: string
  lang: string
  /** A link that denies downloads: no download, print or copy in the editor (as Workspace). */
  denyDownload?: boolean
}

/** Docs shows at most 128 characters of the title. */
const MAX_TITLE_LENGTH = 128

/**
 * The mode the editor opens in: edit only when asked for, saveable, and the access allows
 * some change (editing, reviewing, commenting or filling forms all happen in edit mode).
 */
export function effectiveMode(extension: string, requested: EditorMode, access: AccessLevel): EditorMode {
  return requested === 'edit' && editsInEditor(access) && isEditableType(extension) ? 'edit' : 'view'
}

function shortTitle(title: string): string {
  const chars = [...title]
  if (chars.length <= MAX_TITLE_LENGTH) return title
  const { base, extension } = splitExtension(title)
  const room = MAX_TITLE_LENGTH - [...extension].length
  return room > 0 ? [...base].slice(0, room).join('') + extension : chars.slice(0, MAX_TITLE_LENGTH).join('')
}

/**
 * Builds the unsigned config. Throws NOT_SUPPORTED for a format Docs cannot open.
 * The key is the file's current document key: the same for every co-editor, new after
 * each exit save, unchanged by force saves.
 */
export function buildEditorConfig(input: EditorConfigInput): EditorConfig {
  const extension = extensionOf(input.file.title)
  const documentType = documentTypeOf(extension)
  if (!documentType) {
    throw new DomainError('NOT_SUPPORTED', `ONLYOFFICE Docs cannot open .${extension || '(none)'} files`)
  }
  const mode = effectiveMode(extension, input.requestedMode, input.access)
  const editing = mode === 'edit'
  const editorConfig: EditorConfig['editorConfig'] = {
    mode,
    user: { id: input.user.id, name: input.user.name },
    lang: input.lang,
    // Makes the Save button send status 6 (forcesavetype 1).
    customization: { forcesave: true },
  }
  if (editing) editorConfig.callbackUrl = input.callbackUrl
  return {
    documentType,
    document: {
      fileType: extension,
      key: documentKey(input.file.id, input.file.keyVersion),
      title: shortTitle(input.file.title),
      url: input.downloadUrl,
      permissions: {
        edit: editing && allows(input.access, 'edit'),
        review: editing && allows(input.access, 'review'),
        comment: editing && allows(input.access, 'comment'),
        fillForms: editing && allows(input.access, 'fillForms'),
        download: input.denyDownload !== true,
        print: input.denyDownload !== true,
        copy: input.denyDownload !== true,
      },
    },
    editorConfig,
  }
}

/**
 * Adds `token`, an HS256 JWT over the whole config. Docs (7.1+) refuses a token
 * without key, url, permissions, callbackUrl and mode, and one with a top-level
 * url, payload or key; the claims are the config itself, so neither can happen.
 */
export async function signEditorConfig(config: EditorConfig, secret: string, now: number): Promise<EditorConfig> {
  const claims = {
    documentType: config.documentType,
    document: config.document,
    editorConfig: config.editorConfig,
  }
  return { ...claims, token: await signDocsToken(claims, secret, now) }
}

/**
 * The signed config for `user` opening `file` with `access` (the caller has asked the
 * access policy). Every co-editor of one version gets the same document key.
 */
export async function editorConfigFor(
  ctx: AdapterContext,
  file: FileRecord,
  user: Pick<UserRecord, 'id' | 'displayName' | 'tokenGeneration'>,
  requestedMode: EditorMode,
  access: AccessLevel,
  /** The share link's key hash when opened through a link (its links are tied to it). */
  link?: string,
  /** The link denies downloads. */
  denyDownload = false,
): Promise<EditorConfig> {
  const docs = ctx.config.docs
  if (!docs) throw new DomainError('NOT_SUPPORTED', 'ONLYOFFICE Docs is not configured (FOLIO_DOCS_URL)')
  const config = buildEditorConfig({
    file,
    user: { id: user.id, name: user.displayName },
    requestedMode,
    access,
    // Pinned to the version being opened: the key and the bytes belong together.
    downloadUrl: downloadLink(ctx, file.id, user, file.version, link),
    callbackUrl: callbackLink(ctx, file.id, user.id, link),
    lang: 'en',
    denyDownload,
  })
  return docs.jwtSecret === undefined ? config : signEditorConfig(config, docs.jwtSecret, ctx.clock.now())
}
