import { parseAuditAction } from '../../core/audit.js'
import type {
  AuditEvent,
  EditingState,
  FileRecord,
  FolderRecord,
  SessionRecord,
  ShareLinkRecord,
  FolderLinkRecord,
  ShareRecord,
  UserRecord,
  VersionRecord,
} from '../../core/entities.js'
import {
  emptyCounts,
  type ImportReport,
  type SettingRecord,
  type ThrottleRecord,
  type UserSettingRecord,
  type UserQuotaRecord,
  type TransferBatch,
  type TransferKind,
} from '../../ports/metadata-transfer.js'
import { toState } from './editing-rows.js'
import { toFile, toVersion } from './file-rows.js'

/**
 * How each kind of record of a transfer (`folio migrate-storage`) lies in its table, the
 * same for every SQL driver: the columns written, the key that says "already there" (the
 * conflict target of the insert) and the order rows are read in. A dialect only brings
 * its placeholders and its boolean type.
 */

/** A row as a driver reads it; values are checked as they are taken out. */
export type Row = Record<string, unknown>

/** What a dialect stores for true and false (SQLite: 1 and 0; PostgreSQL: booleans). */
export type Flag = (value: boolean) => unknown

export interface TransferTable {
  kind: TransferKind
  table: string
  /** Columns an import writes, in the order of `values`. */
  columns: readonly string[]
  /** The key an existing row is recognised by. */
  conflict: readonly string[]
  /** Columns rows are read in order of (unique together): pages follow on from the last row. */
  order: readonly string[]
  /**
   * A query returning every row at once in import order, instead of paging by `order`
   * (folders: parents first).
   */
  readAll?: string
}

function text(row: Row, column: string): string {
  const value = row[column]
  if (typeof value !== 'string') throw new Error(`column ${column} is not text`)
  return value
}

function textOrNull(row: Row, column: string): string | null {
  return row[column] === null ? null : text(row, column)
}

function integer(row: Row, column: string): number {
  const value = row[column]
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new Error(`column ${column} is not an integer`)
  }
  return value
}

function integerOrNull(row: Row, column: string): number | null {
  return row[column] === null ? null : integer(row, column)
}

function flag(row: Row, column: string): boolean {
  const value = row[column]
  if (value === true || value === 1) return true
  if (value === false || value === 0) return false
  throw new Error(`column ${column} is not a flag`)
}

const FOLDERS_PARENTS_FIRST = `WITH RECURSIVE tree (id, depth) AS (
    SELECT id, 0 FROM folders WHERE parent_id IS NULL
    UNION ALL SELECT folders.id, tree.depth + 1 FROM folders JOIN tree ON folders.parent_id = tree.id)
  SELECT folders.* FROM folders JOIN tree ON tree.id = folders.id ORDER BY tree.depth, folders.id`

/** The tables of a transfer, in TRANSFER_KINDS order. */
export const TRANSFER_TABLES: readonly TransferTable[] = [
  {
    kind: 'users',
    table: 'users',
    columns: [
      'id',
      'user_name',
      'user_name_key',
      'display_name',
      'email',
      'is_admin',
      'password_hash',
      'wopi_user_info',
      'token_generation',
      'created_at',
      'updated_at',
      'disabled',
    ],
    conflict: ['id'],
    order: ['id'],
  },
  {
    kind: 'userSettings',
    table: 'user_settings',
    columns: ['user_id', 'update_if_exist', 'culture_name'],
    conflict: ['user_id'],
    order: ['user_id'],
  },
  {
    kind: 'userQuotas',
    table: 'user_quotas',
    columns: ['user_id', 'quota_limit'],
    conflict: ['user_id'],
    order: ['user_id'],
  },
  { kind: 'settings', table: 'settings', columns: ['name', 'value'], conflict: ['name'], order: ['name'] },
  {
    kind: 'sessions',
    table: 'sessions',
    columns: ['token_hash', 'user_id', 'created_at', 'expires_at'],
    conflict: ['token_hash'],
    order: ['token_hash'],
  },
  {
    kind: 'throttle',
    table: 'login_throttle',
    columns: ['key', 'failures', 'window_started_at', 'last_attempt_at', 'blocked_until'],
    conflict: ['key'],
    order: ['key'],
  },
  {
    kind: 'folders',
    table: 'folders',
    columns: [
      'id',
      'owner_id',
      'parent_id',
      'title',
      'title_key',
      'root_type',
      'created_at',
      'created_by',
      'updated_at',
      'updated_by',
      'revision',
      'trashed_at',
      'origin_folder_id',
    ],
    conflict: ['id'],
    order: ['id'],
    readAll: FOLDERS_PARENTS_FIRST,
  },
  {
    kind: 'files',
    table: 'files',
    columns: [
      'id',
      'owner_id',
      'folder_id',
      'title',
      'title_key',
      'version',
      'size',
      'sha256',
      'blob_key',
      'created_at',
      'created_by',
      'updated_at',
      'updated_by',
      'lock_id',
      'lock_expires_at',
      'lock_user_id',
      'lock_locked_at',
      'key_version',
      'revision',
      'trashed_at',
      'origin_folder_id',
    ],
    conflict: ['id'],
    order: ['id'],
  },
  {
    kind: 'versions',
    table: 'versions',
    columns: ['file_id', 'version', 'blob_key', 'size', 'sha256', 'created_at', 'created_by', 'source', 'meta'],
    conflict: ['file_id', 'version'],
    order: ['file_id', 'version'],
  },
  {
    kind: 'editing',
    table: 'editing',
    columns: [
      'file_id',
      'document_key',
      'editors',
      'updated_at',
      'error_status',
      'error_key',
      'error_message',
      'error_at',
    ],
    conflict: ['file_id'],
    order: ['file_id'],
  },
  {
    kind: 'shares',
    table: 'shares',
    columns: ['item_kind', 'item_id', 'user_id', 'access', 'granted_by', 'granted_at'],
    conflict: ['item_kind', 'item_id', 'user_id'],
    order: ['item_kind', 'item_id', 'user_id'],
  },
  {
    kind: 'shareLinks',
    table: 'share_links',
    columns: ['file_id', 'key_hash', 'access', 'created_at', 'revoked_at'],
    conflict: ['file_id'],
    order: ['file_id'],
  },
  {
    kind: 'folderLinks',
    table: 'folder_links',
    columns: ['folder_id', 'key_hash', 'access', 'deny_download', 'expires_at', 'created_at', 'revoked_at'],
    conflict: ['folder_id'],
    order: ['folder_id'],
  },
  {
    kind: 'audit',
    table: 'audit_events',
    // seq is left to the target, which numbers the events in the order they arrive.
    columns: [
      'id',
      'at',
      'action',
      'actor_id',
      'actor_name',
      'address',
      'target_type',
      'target_id',
      'target_name',
      'detail',
    ],
    conflict: ['id'],
    order: ['seq'],
  },
]

/** The batch of `kind` made of `rows` read from its table. */
export function batchFromRows(kind: TransferKind, rows: Row[]): TransferBatch {
  switch (kind) {
    case 'users':
      return { kind, records: rows.map(toUser) }
    case 'userSettings':
      return { kind, records: rows.map(toUserSetting) }
    case 'userQuotas':
      return { kind, records: rows.map(toUserQuota) }
    case 'settings':
      return { kind, records: rows.map(toSetting) }
    case 'sessions':
      return { kind, records: rows.map(toSession) }
    case 'throttle':
      return { kind, records: rows.map(toThrottle) }
    case 'folders':
      return { kind, records: rows.map(toFolder) }
    case 'files':
      return { kind, records: rows.map(toFileRecord) }
    case 'versions':
      return { kind, records: rows.map(toVersionRecord) }
    case 'editing':
      return { kind, records: rows.map(toEditing) }
    case 'shares':
      return { kind, records: rows.map(toShare) }
    case 'shareLinks':
      return { kind, records: rows.map(toShareLink) }
    case 'folderLinks':
      return { kind, records: rows.map(toFolderLinkRecord) }
    case 'audit':
      return { kind, records: rows.map(toAudit) }
  }
}

/** The column values of each record of `batch`, in the order of its table's `columns`. */
export function rowValues(batch: TransferBatch, asFlag: Flag): unknown[][] {
  switch (batch.kind) {
    case 'users':
      return batch.records.map((u) => [
        u.id,
        u.userName,
        u.userName.toLowerCase(),
        u.displayName,
        u.email,
        asFlag(u.isAdmin),
        u.passwordHash,
        u.wopiUserInfo,
        u.tokenGeneration,
        u.createdAt,
        u.updatedAt,
        asFlag(u.disabled),
      ])
    case 'userSettings':
      return batch.records.map((u) => [u.userId, asFlag(u.updateIfExist), u.cultureName])
    case 'userQuotas':
      return batch.records.map((u) => [u.userId, u.quotaLimit])
    case 'settings':
      return batch.records.map((s) => [s.name, s.value])
    case 'sessions':
      return batch.records.map((s) => [s.tokenHash, s.userId, s.createdAt, s.expiresAt])
    case 'throttle':
      return batch.records.map((t) => [
        t.key,
        t.state.failures,
        t.state.windowStartedAt,
        t.state.lastAttemptAt,
        t.state.blockedUntil,
      ])
    case 'folders':
      return batch.records.map((f) => [
        f.id,
        f.ownerId,
        f.parentId,
        f.title,
        f.title.toLowerCase(),
        f.rootType,
        f.createdAt,
        f.createdBy,
        f.updatedAt,
        f.updatedBy,
        f.revision,
        f.trashedAt,
        f.originFolderId,
      ])
    case 'files':
      return batch.records.map((f) => [
        f.id,
        f.ownerId,
        f.folderId,
        f.title,
        f.title.toLowerCase(),
        f.version,
        f.size,
        f.sha256,
        f.blobKey,
        f.createdAt,
        f.createdBy,
        f.updatedAt,
        f.updatedBy,
        f.lock?.lockId ?? null,
        f.lock?.expiresAt ?? null,
        f.lock?.holderId ?? null,
        f.lock?.lockedAt ?? null,
        f.keyVersion,
        f.revision,
        f.trashedAt,
        f.originFolderId,
      ])
    case 'versions':
      return batch.records.map((v) => [
        v.fileId,
        v.version,
        v.blobKey,
        v.size,
        v.sha256,
        v.createdAt,
        v.createdBy,
        v.source,
        JSON.stringify(v.meta),
      ])
    case 'editing':
      return batch.records.map((e) => [
        e.fileId,
        e.documentKey,
        JSON.stringify(e.editors),
        e.updatedAt,
        e.lastError?.status ?? null,
        e.lastError?.documentKey ?? null,
        e.lastError?.message ?? null,
        e.lastError?.at ?? null,
      ])
    case 'shares':
      return batch.records.map((s) => [s.itemKind, s.itemId, s.userId, s.access, s.grantedBy, s.grantedAt])
    case 'shareLinks':
      return batch.records.map((l) => [l.fileId, l.keyHash, l.access, l.createdAt, l.revokedAt])
    case 'folderLinks':
      return batch.records.map((l) => [
        l.folderId,
        l.keyHash,
        l.access,
        asFlag(l.denyDownload),
        l.expiresAt,
        l.createdAt,
        l.revokedAt,
      ])
    case 'audit':
      return batch.records.map((a) => [
        a.id,
        a.at,
        a.action,
        a.actorId,
        a.actorName,
        a.address,
        a.targetType,
        a.targetId,
        a.targetName,
        a.detail,
      ])
  }
}

function toUserSetting(row: Row): UserSettingRecord {
  return {
    userId: text(row, 'user_id'),
    updateIfExist: flag(row, 'update_if_exist'),
    cultureName: text(row, 'culture_name'),
  }
}

function toUserQuota(row: Row): UserQuotaRecord {
  return { userId: text(row, 'user_id'), quotaLimit: integer(row, 'quota_limit') }
}

function toSetting(row: Row): SettingRecord {
  return { name: text(row, 'name'), value: text(row, 'value') }
}

function toUser(row: Row): UserRecord {
  return {
    id: text(row, 'id'),
    userName: text(row, 'user_name'),
    displayName: text(row, 'display_name'),
    email: text(row, 'email'),
    isAdmin: flag(row, 'is_admin'),
    passwordHash: text(row, 'password_hash'),
    wopiUserInfo: text(row, 'wopi_user_info'),
    tokenGeneration: integer(row, 'token_generation'),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
    disabled: flag(row, 'disabled'),
  }
}

function toSession(row: Row): SessionRecord {
  return {
    tokenHash: text(row, 'token_hash'),
    userId: text(row, 'user_id'),
    createdAt: integer(row, 'created_at'),
    expiresAt: integer(row, 'expires_at'),
  }
}

function toThrottle(row: Row): ThrottleRecord {
  return {
    key: text(row, 'key'),
    state: {
      failures: integer(row, 'failures'),
      windowStartedAt: integer(row, 'window_started_at'),
      lastAttemptAt: integer(row, 'last_attempt_at'),
      blockedUntil: integer(row, 'blocked_until'),
    },
  }
}

function toFolder(row: Row): FolderRecord {
  const rootType = textOrNull(row, 'root_type')
  if (rootType !== null && rootType !== 'my' && rootType !== 'trash') {
    throw new Error(`folder ${text(row, 'id')} has unknown root type ${rootType}`)
  }
  return {
    id: text(row, 'id'),
    ownerId: text(row, 'owner_id'),
    parentId: textOrNull(row, 'parent_id'),
    title: text(row, 'title'),
    rootType,
    createdAt: integer(row, 'created_at'),
    createdBy: text(row, 'created_by'),
    updatedAt: integer(row, 'updated_at'),
    updatedBy: text(row, 'updated_by'),
    revision: integer(row, 'revision'),
    trashedAt: integerOrNull(row, 'trashed_at'),
    originFolderId: textOrNull(row, 'origin_folder_id'),
  }
}

function toFileRecord(row: Row): FileRecord {
  return toFile({
    id: text(row, 'id'),
    owner_id: text(row, 'owner_id'),
    title: text(row, 'title'),
    title_key: text(row, 'title_key'),
    version: integer(row, 'version'),
    size: integer(row, 'size'),
    sha256: text(row, 'sha256'),
    blob_key: text(row, 'blob_key'),
    created_at: integer(row, 'created_at'),
    created_by: text(row, 'created_by'),
    updated_at: integer(row, 'updated_at'),
    updated_by: text(row, 'updated_by'),
    lock_id: textOrNull(row, 'lock_id'),
    lock_expires_at: integerOrNull(row, 'lock_expires_at'),
    lock_user_id: textOrNull(row, 'lock_user_id'),
    lock_locked_at: integerOrNull(row, 'lock_locked_at'),
    key_version: integer(row, 'key_version'),
    revision: integer(row, 'revision'),
    folder_id: text(row, 'folder_id'),
    trashed_at: integerOrNull(row, 'trashed_at'),
    origin_folder_id: textOrNull(row, 'origin_folder_id'),
  })
}

function toVersionRecord(row: Row): VersionRecord {
  return toVersion({
    file_id: text(row, 'file_id'),
    version: integer(row, 'version'),
    blob_key: text(row, 'blob_key'),
    size: integer(row, 'size'),
    sha256: text(row, 'sha256'),
    created_at: integer(row, 'created_at'),
    created_by: text(row, 'created_by'),
    source: text(row, 'source'),
    meta: text(row, 'meta'),
  })
}

function toEditing(row: Row): EditingState {
  return toState({
    file_id: text(row, 'file_id'),
    document_key: text(row, 'document_key'),
    editors: text(row, 'editors'),
    updated_at: integer(row, 'updated_at'),
    error_status: integerOrNull(row, 'error_status'),
    error_key: textOrNull(row, 'error_key'),
    error_message: textOrNull(row, 'error_message'),
    error_at: integerOrNull(row, 'error_at'),
  })
}

function toShare(row: Row): ShareRecord {
  const itemKind = text(row, 'item_kind')
  if (itemKind !== 'file' && itemKind !== 'folder') throw new Error(`share of unknown item kind ${itemKind}`)
  return {
    itemKind,
    itemId: text(row, 'item_id'),
    userId: text(row, 'user_id'),
    access: integer(row, 'access'),
    grantedBy: text(row, 'granted_by'),
    grantedAt: integer(row, 'granted_at'),
  }
}

function toShareLink(row: Row): ShareLinkRecord {
  return {
    fileId: text(row, 'file_id'),
    keyHash: text(row, 'key_hash'),
    access: integer(row, 'access'),
    createdAt: integer(row, 'created_at'),
    revokedAt: integerOrNull(row, 'revoked_at'),
  }
}

function toFolderLinkRecord(row: Row): FolderLinkRecord {
  return {
    folderId: text(row, 'folder_id'),
    keyHash: text(row, 'key_hash'),
    access: integer(row, 'access'),
    denyDownload: flag(row, 'deny_download'),
    expiresAt: integerOrNull(row, 'expires_at'),
    createdAt: integer(row, 'created_at'),
    revokedAt: integerOrNull(row, 'revoked_at'),
  }
}

function toAudit(row: Row): AuditEvent {
  const targetType = text(row, 'target_type')
  return {
    id: text(row, 'id'),
    at: integer(row, 'at'),
    action: parseAuditAction(text(row, 'action')),
    actorId: text(row, 'actor_id'),
    actorName: text(row, 'actor_name'),
    address: text(row, 'address'),
    targetType: targetType === 'user' || targetType === 'file' || targetType === 'folder' ? targetType : '',
    targetId: text(row, 'target_id'),
    targetName: text(row, 'target_name'),
    detail: text(row, 'detail'),
  }
}

/** The SQL of a page of `table` after the row whose `order` values are `after` (none: the first page). */
export function pageQuery(table: TransferTable, placeholder: (index: number) => string, hasCursor: boolean): string {
  const order = table.order.join(', ')
  const cursor = table.order.map((_, index) => placeholder(index + 1)).join(', ')
  const limit = placeholder(hasCursor ? table.order.length + 1 : 1)
  const where = hasCursor ? `WHERE (${order}) > (${cursor})` : ''
  return `SELECT * FROM ${table.table} ${where} ORDER BY ${order} LIMIT ${limit}`
}

/** The INSERT of `rows` rows into `table` that leaves rows with a known key alone. */
export function insertQuery(table: TransferTable, rows: number, placeholder: (index: number) => string): string {
  const width = table.columns.length
  const tuples: string[] = []
  for (let r = 0; r < rows; r++) {
    const cells = table.columns.map((_, c) => placeholder(r * width + c + 1))
    tuples.push(`(${cells.join(', ')})`)
  }
  return `INSERT INTO ${table.table} (${table.columns.join(', ')}) VALUES ${tuples.join(', ')}
    ON CONFLICT (${table.conflict.join(', ')}) DO NOTHING`
}

/** The table of `kind`. */
export function transferTable(kind: TransferKind): TransferTable {
  const table = TRANSFER_TABLES.find((candidate) => candidate.kind === kind)
  if (table === undefined) throw new Error(`no table for ${kind}`)
  return table
}

/** The tables whose rows make a store "not empty" (every table a transfer writes). */
export const ALL_TABLES: readonly string[] = TRANSFER_TABLES.map((table) => table.table)

/** One statement of a driver: the rows it read, or how many rows it wrote. */
export interface TransferSql {
  read(sql: string, params: unknown[]): Promise<Row[]>
  write(sql: string, params: unknown[]): Promise<number>
  placeholder(index: number): string
  flag: Flag
}

/** Most bound values in one INSERT (SQLite allows 32,766, PostgreSQL 65,535). */
const MAX_PARAMS = 30_000

/** Every record, kind by kind, in pages of `batchSize` (see MetadataTransfer.exportRecords). */
export async function* exportTables(sql: TransferSql, batchSize: number): AsyncGenerator<TransferBatch> {
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new Error('batchSize must be a positive integer')
  for (const table of TRANSFER_TABLES) {
    if (table.readAll !== undefined) {
      const rows = await sql.read(table.readAll, [])
      for (let start = 0; start < rows.length; start += batchSize) {
        yield batchFromRows(table.kind, rows.slice(start, start + batchSize))
      }
      continue
    }
    let cursor: unknown[] | undefined
    for (;;) {
      const query = pageQuery(table, sql.placeholder, cursor !== undefined)
      const rows = await sql.read(query, [...(cursor ?? []), batchSize])
      const last = rows.at(-1)
      if (last === undefined) break
      yield batchFromRows(table.kind, rows)
      if (rows.length < batchSize) break
      cursor = table.order.map((column) => last[column])
    }
  }
}

/**
 * Writes every batch with inserts that leave rows of a known key alone, and counts what
 * was added and what was there already. The caller runs it inside one transaction.
 */
export async function importTables(sql: TransferSql, batches: AsyncIterable<TransferBatch>): Promise<ImportReport> {
  const report: ImportReport = { added: emptyCounts(), present: emptyCounts() }
  for await (const batch of batches) {
    const table = transferTable(batch.kind)
    const rows = rowValues(batch, sql.flag)
    const chunk = Math.max(1, Math.floor(MAX_PARAMS / table.columns.length))
    for (let start = 0; start < rows.length; start += chunk) {
      const part = rows.slice(start, start + chunk)
      const added = await sql.write(insertQuery(table, part.length, sql.placeholder), part.flat())
      report.added[batch.kind] += added
      report.present[batch.kind] += part.length - added
    }
  }
  return report
}

/** True when no table a transfer writes holds a row. */
export async function tablesEmpty(sql: TransferSql): Promise<boolean> {
  for (const table of ALL_TABLES) {
    if ((await sql.read(`SELECT 1 AS found FROM ${table} LIMIT 1`, [])).length > 0) return false
  }
  return true
}
