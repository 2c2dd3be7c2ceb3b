import type { ThrottleState } from '../core/accounts/throttle.js'
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
} from '../core/entities.js'

/** One named value of the settings table (the signing secret, for example). */
export interface SettingRecord {
  name: string
  value: string
}

/** One user's portal settings (files/settings). */
export interface UserSettingRecord {
  userId: string
  updateIfExist: boolean
  cultureName: string
}

/** One user's storage quota (their used space is derived from the versions, not moved). */
export interface UserQuotaRecord {
  userId: string
  quotaLimit: number
}

/** The sign-in throttle state of one key (a user name or a client address). */
export interface ThrottleRecord {
  key: string
  state: ThrottleState
}

/**
 * Records of one kind, as a store exports them and another imports them. Together the
 * kinds hold everything a metadata store keeps, so a store copied kind by kind serves the
 * same accounts, sessions, files, versions, locks, shares and trail.
 */
export type TransferBatch =
  | { kind: 'users'; records: UserRecord[] }
  | { kind: 'userSettings'; records: UserSettingRecord[] }
  | { kind: 'userQuotas'; records: UserQuotaRecord[] }
  | { kind: 'settings'; records: SettingRecord[] }
  | { kind: 'sessions'; records: SessionRecord[] }
  | { kind: 'throttle'; records: ThrottleRecord[] }
  | { kind: 'folders'; records: FolderRecord[] }
  | { kind: 'files'; records: FileRecord[] }
  | { kind: 'versions'; records: VersionRecord[] }
  | { kind: 'editing'; records: EditingState[] }
  | { kind: 'shares'; records: ShareRecord[] }
  | { kind: 'shareLinks'; records: ShareLinkRecord[] }
  | { kind: 'folderLinks'; records: FolderLinkRecord[] }
  | { kind: 'audit'; records: AuditEvent[] }

export type TransferKind = TransferBatch['kind']

/**
 * The order kinds are exported in: whatever a record refers to comes before it (a
 * session's user, a version's file, a folder's parent).
 */
export const TRANSFER_KINDS: readonly TransferKind[] = [
  'users',
  'userSettings',
  'userQuotas',
  'settings',
  'sessions',
  'throttle',
  'folders',
  'files',
  'versions',
  'editing',
  'shares',
  'shareLinks',
  'folderLinks',
  'audit',
]

/** A count per kind. */
export type TransferCounts = Record<TransferKind, number>

/** What an import did: records written, and records the store held already (left as they were). */
export interface ImportReport {
  added: TransferCounts
  present: TransferCounts
}

/**
 * Moving a whole store into another one with every id kept (`folio migrate-storage`).
 * Meant for stores no one else writes to meanwhile.
 */
export interface MetadataTransfer {
  /**
   * Every record of the store, kind by kind in TRANSFER_KINDS order, in batches of at most
   * `batchSize` records; folders come parents first and audit events in the order they
   * were appended. Memory stays bounded by the batch size (folders excepted: they are
   * ordered by depth in one read).
   */
  exportRecords(batchSize?: number): AsyncIterable<TransferBatch>
  /**
   * Stores every record of `batches` as it is (ids, version numbers, authors, times,
   * revisions, locks), all in one transaction: when anything fails, nothing was written.
   * A record whose key the store holds already (an id; a file and version number; an
   * item and user of a share) is left untouched and counted as present, so importing
   * the same records again changes nothing. Any other clash (another user with the same
   * name) throws, and nothing is written.
   */
  importRecords(batches: AsyncIterable<TransferBatch>): Promise<ImportReport>
  /** True when the store holds no record of any kind. */
  isEmpty(): Promise<boolean>
}

/** A count of zero for every kind. */
export function emptyCounts(): TransferCounts {
  return {
    users: 0,
    userSettings: 0,
    userQuotas: 0,
    settings: 0,
    sessions: 0,
    throttle: 0,
    folders: 0,
    files: 0,
    versions: 0,
    editing: 0,
    shares: 0,
    shareLinks: 0,
    folderLinks: 0,
    audit: 0,
  }
}
