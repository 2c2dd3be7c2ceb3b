/**
 * The shapes ONLYOFFICE's apps decode, written down from their model classes, and a check of
 * a reply against one. Each parser fails differently, so each has its own kinds:
 * - kotlinx (Android's sign-in models): a present field must have its type; `null` only
 *   where the model says `?` (a null in a non-null field fails the whole reply);
 * - Gson (Android's file models): lenient about numbers and strings, but a date must start
 *   `yyyy-MM-dd'T'HH:mm:ss` (the pattern the app gives Gson);
 * - Codable (iOS's editor config): every field optional, a present one of its exact type.
 * Fields a model has and a reply leaves out take the model's default, so they pass.
 */

export type Kind =
  'string' | 'string?' | 'boolean' | 'int' | 'list' | 'object' | 'object?' | 'gson-string' | 'gson-int' | 'gson-date'

export type Model = Record<string, Kind>

const GSON_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/

function fits(kind: Kind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string'
    case 'string?':
      return value === null || typeof value === 'string'
    case 'boolean':
      return typeof value === 'boolean'
    case 'int':
      return typeof value === 'number' && Number.isInteger(value)
    case 'list':
      return Array.isArray(value)
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    case 'object?':
      return value === null || (typeof value === 'object' && !Array.isArray(value))
    // Gson reads a number into a String field, and a numeric string into an int one.
    case 'gson-string':
      return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    case 'gson-int':
      return typeof value === 'number' || (typeof value === 'string' && /^-?\d+$/.test(value))
    case 'gson-date':
      return typeof value === 'string' && GSON_DATE.test(value)
  }
}

/** Every field of `value` the model names whose value the app's parser would refuse. */
export function misfits(value: unknown, model: Model, where = 'response'): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${where} is not an object`]
  const problems: string[] = []
  for (const [field, kind] of Object.entries(model)) {
    if (!Object.hasOwn(value, field)) continue
    const found: unknown = Reflect.get(value, field)
    if (!fits(kind, found)) problems.push(`${where}.${field}: ${JSON.stringify(found)} is not ${kind}`)
  }
  return problems
}

/** Like misfits, and the fields the app cannot do without must be there. */
export function misfitsRequiring(value: unknown, model: Model, required: string[], where = 'response'): string[] {
  const missing =
    typeof value === 'object' && value !== null
      ? required.filter((field) => !Object.hasOwn(value, field)).map((field) => `${where}.${field} is missing`)
      : []
  return [...missing, ...misfits(value, model, where)]
}

// ------------------------------------------------------------------ Android (kotlinx)

/** app/documents/core/model/login/Capabilities.kt */
export const ANDROID_CAPABILITIES: Model = {
  ldapEnabled: 'boolean',
  ssoUrl: 'string',
  ssoLabel: 'string',
  providers: 'list',
}

/** app/documents/core/model/login/Token.kt */
export const ANDROID_TOKEN: Model = {
  token: 'string?',
  expires: 'string',
  sms: 'boolean',
  phoneNoise: 'string',
  tfa: 'boolean',
  tfaKey: 'string',
}

/** app/documents/core/model/login/Settings.kt (settings/version/build) */
export const ANDROID_VERSIONS: Model = {
  communityServer: 'string?',
  documentServer: 'string?',
  mailServer: 'string?',
  docSpace: 'string?',
}

/** app/documents/core/model/login/AllSettings.kt (settings) */
export const ANDROID_ALL_SETTINGS: Model = { personal: 'boolean', docSpace: 'boolean' }

/** app/documents/core/model/login/User.kt */
export const ANDROID_USER: Model = {
  id: 'string',
  userName: 'string',
  isVisitor: 'boolean',
  firstName: 'string',
  lastName: 'string',
  email: 'string?',
  birthday: 'string',
  sex: 'string',
  status: 'int',
  activationStatus: 'int',
  terminated: 'string?',
  department: 'string',
  workFrom: 'string',
  location: 'string',
  notes: 'string',
  displayName: 'string',
  title: 'string',
  contacts: 'list',
  groups: 'list',
  avatarMedium: 'string',
  avatarMax: 'string',
  avatar: 'string',
  isOnline: 'boolean',
  isAdmin: 'boolean',
  isRoomAdmin: 'boolean',
  isGuest: 'boolean',
  isLDAP: 'boolean',
  listAdminModules: 'list',
  isOwner: 'boolean',
  cultureName: 'string',
  isSSO: 'boolean',
  avatarSmall: 'string',
  hasAvatar: 'boolean',
  profileUrl: 'string',
  mobilePhone: 'string',
  shared: 'boolean',
}

// ------------------------------------------------------------------ Android (Gson)

/** .../manager/models/explorer/Item.kt: what every file and folder has. */
const ANDROID_ITEM: Model = {
  id: 'gson-string',
  title: 'gson-string',
  access: 'gson-int',
  shared: 'boolean',
  rootFolderType: 'gson-string',
  created: 'gson-date',
  updated: 'gson-date',
  createdBy: 'object',
  updatedBy: 'object',
}

/** .../manager/models/explorer/CloudFile.kt */
export const ANDROID_FILE: Model = {
  ...ANDROID_ITEM,
  folderId: 'gson-string',
  version: 'gson-int',
  versionGroup: 'gson-string',
  contentLength: 'gson-string',
  pureContentLength: 'gson-int',
  fileStatus: 'gson-int',
  viewUrl: 'gson-string',
  webUrl: 'gson-string',
  fileType: 'gson-string',
  fileExst: 'gson-string',
  comment: 'gson-string',
  thumbnailUrl: 'gson-string',
  locked: 'boolean',
  denyDownload: 'boolean',
}

/** .../manager/models/explorer/CloudFolder.kt */
export const ANDROID_FOLDER: Model = {
  ...ANDROID_ITEM,
  parentId: 'gson-string',
  filesCount: 'gson-int',
  foldersCount: 'gson-int',
  isShareable: 'boolean',
}

/** .../manager/models/explorer/Explorer.kt */
export const ANDROID_EXPLORER: Model = {
  files: 'list',
  folders: 'list',
  current: 'object',
  pathParts: 'list',
  startIndex: 'gson-int',
  count: 'gson-int',
  total: 'gson-int',
}

/** .../manager/models/explorer/Operation.kt */
export const ANDROID_OPERATION: Model = {
  id: 'gson-string',
  operation: 'gson-int',
  progress: 'gson-int',
  error: 'gson-string',
  processed: 'gson-string',
  finished: 'boolean',
  url: 'gson-string',
  files: 'list',
  folders: 'list',
}

/** Every problem of a folder listing, its current folder and each item. */
export function androidExplorerMisfits(explorer: unknown): string[] {
  const problems = misfitsRequiring(explorer, ANDROID_EXPLORER, ['files', 'folders', 'current'])
  if (typeof explorer !== 'object' || explorer === null) return problems
  const files: unknown = Reflect.get(explorer, 'files')
  const folders: unknown = Reflect.get(explorer, 'folders')
  problems.push(...misfits(Reflect.get(explorer, 'current'), ANDROID_FOLDER, 'current'))
  if (Array.isArray(files)) files.forEach((f, i) => problems.push(...misfits(f, ANDROID_FILE, `files[${i}]`)))
  if (Array.isArray(folders)) folders.forEach((f, i) => problems.push(...misfits(f, ANDROID_FOLDER, `folders[${i}]`)))
  return problems
}

// ------------------------------------------------------------------ iOS (Codable)

/** Onlyoffice/Model/OnlyofficeDocumentConfig.swift: OnlyofficeDocumentConfig */
export const IOS_CONFIG: Model = {
  document: 'object',
  editorConfig: 'object',
  token: 'string',
  documentType: 'string',
  type: 'string',
  startFilling: 'boolean',
  fillingSessionId: 'string',
  url: 'string',
  size: 'int',
  updated: 'int',
  fileId: 'string',
  canShareable: 'boolean',
  editorType: 'int',
}

/** ... OnlyofficeDocument */
export const IOS_DOCUMENT: Model = {
  info: 'object',
  permissions: 'object',
  referenceData: 'object',
  fileType: 'string',
  key: 'string',
  title: 'string',
  url: 'string',
  supportShare: 'boolean',
  favorite: 'boolean',
  denyDownload: 'boolean',
}

/** ... OnlyofficeDocumentPermissions */
export const IOS_PERMISSIONS: Model = {
  changeHistory: 'boolean',
  chat: 'boolean',
  comment: 'boolean',
  download: 'boolean',
  edit: 'boolean',
  copy: 'boolean',
  fillForms: 'boolean',
  print: 'boolean',
  modifyFilter: 'boolean',
  rename: 'boolean',
  review: 'boolean',
  commentGroups: 'object',
  deleteCommentAuthorOnly: 'boolean',
  editCommentAuthorOnly: 'boolean',
  modifyContentControl: 'boolean',
  protect: 'boolean',
  reviewGroups: 'list',
  userInfoGroups: 'list',
}

/** ... OnlyofficeDocumentEditorConfig and OnlyofficeDocumentUser */
export const IOS_EDITOR_CONFIG: Model = {
  customization: 'object',
  user: 'object',
  callbackUrl: 'string',
  lang: 'string',
  mode: 'string',
}
export const IOS_USER: Model = { id: 'string', name: 'string', image: 'string', roles: 'list' }

/** DocumentServer/Models/DocumentServerVersionResponse.swift */
export const IOS_DOCSERVICE_VERSION: Model = { docServiceUrlApi: 'string', version: 'string' }

/** Every problem iOS's strict decoding of an editor config would hit. */
export function iosConfigMisfits(config: unknown): string[] {
  const problems = misfits(config, IOS_CONFIG, 'config')
  if (typeof config !== 'object' || config === null) return problems
  const document: unknown = Reflect.get(config, 'document')
  const editorConfig: unknown = Reflect.get(config, 'editorConfig')
  problems.push(...misfits(document, IOS_DOCUMENT, 'document'))
  if (typeof document === 'object' && document !== null) {
    problems.push(...misfits(Reflect.get(document, 'permissions'), IOS_PERMISSIONS, 'document.permissions'))
  }
  if (editorConfig !== undefined) {
    problems.push(...misfits(editorConfig, IOS_EDITOR_CONFIG, 'editorConfig'))
    if (typeof editorConfig === 'object' && editorConfig !== null && Reflect.get(editorConfig, 'user') !== undefined) {
      problems.push(...misfits(Reflect.get(editorConfig, 'user'), IOS_USER, 'editorConfig.user'))
    }
  }
  return problems
}
