import type Database from 'better-sqlite3'
import type { WalIndexHeader } from './wal-index-header.js'

/**
 * Read results remembered over one connection, each under a group (a file) and a key
 * within it (a user), that can never be answered from before a commit.
 */
export interface CommitCheckedMemo<T> {
  /** The result for (group, key): `read` runs unless a result still current is known. */
  read(group: string, key: string, read: () => T | undefined): T | undefined
  /**
   * Some remembered result of `group`, without the commit check: it may be from before a
   * commit, so a caller may rely on it only where a later check (a row's revision matched
   * by a write) proves it still current.
   */
  peek(group: string): T | undefined
  /**
   * This connection has just committed `changes` row changes (INSERT, UPDATE and DELETE
   * rows, as total_changes() counts them) whose whole effect on the remembered results of
   * `group` is `patch`. Called synchronously right after the COMMIT returned, before any
   * other read, so the results stay usable (a lock cycle hits on every call). A change
   * not reported this way makes the memo forget everything at its next use.
   */
  committedOwn(changes: number, group: string, patch: (value: T) => T): void
}

/**
 * A memo of read results over one connection that can never answer from before a
 * commit: before every use it asks SQLite whether anything was committed since the
 * remembered results were read, and forgets them all if so. Two counters tell:
 * `PRAGMA data_version` moves when any other connection commits (another FOLIO_WORKERS
 * process, another instance on the same file, a second connection in this process), and
 * `total_changes()` moves with every row this connection itself inserts, updates or
 * deletes, unless that change was reported with its exact effect (committedOwn). The
 * check costs two tiny statements, a fraction of the recursive access read it saves on
 * every WOPI call (measured in a tight loop: ~1.5 µs against ~8-15 µs). Given `walIndex`,
 * data_version is asked only when the WAL-index header changed since it was last asked
 * (wal-index-header.ts): one pread instead of a read transaction's four lock calls.
 *
 * Both counters are read before the query whose result is kept, so a commit landing
 * between them only makes the next use miss, never hit. A key is kept only from its second
 * read since the memo last forgot everything, so one-off reads cost no data_version check.
 * Inside a transaction the memo is bypassed: what a transaction reads may be rolled back.
 */
export function createCommitCheckedMemo<T>(
  db: Database.Database,
  maxEntries: number,
  walIndex?: WalIndexHeader,
): CommitCheckedMemo<T> {
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck()
  const totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck()
  const groups = new Map<string, Map<string, T>>()
  let size = 0
  // (group, key) pairs read since everything was last forgotten: a second read is kept.
  const asked = new Set<string>()
  // The counter values the remembered results are current for; -1: none yet.
  let changes = -1
  let version = -1

  /**
   * data_version now. Skipped while the WAL-index header is unchanged since the last time
   * it was asked: nothing committed since, so it would answer the same. The header is read
   * before data_version, so a commit between the two shows in data_version now and in the
   * header next time, never in the header alone.
   */
  const versionNow = (): number => {
    if (walIndex?.unchanged() === true) return version
    walIndex?.remember()
    return dataVersion.get() ?? -1
  }

  const forget = () => {
    groups.clear()
    size = 0
  }

  const remember = (group: string, key: string, value: T) => {
    if (size >= maxEntries) forget()
    let entries = groups.get(group)
    if (entries === undefined) {
      entries = new Map()
      groups.set(group, entries)
    }
    if (!entries.has(key)) size++
    entries.set(key, value)
  }

  return {
    read(group, key, read) {
      if (db.inTransaction) return read()
      const changesNow = totalChanges.get() ?? -1
      if (changesNow !== changes) {
        forget()
        asked.clear()
        changes = changesNow
        version = -1
      }
      const known = groups.get(group)?.get(key)
      if (known === undefined) {
        // Built only when nothing is remembered: an editor polling one file skips it.
        // The length prefix keeps the pair unambiguous whatever the strings hold.
        const pair = `${group.length}:${group}${key}`
        if (!asked.has(pair)) {
          if (asked.size >= maxEntries) asked.clear()
          asked.add(pair)
          return read()
        }
      }
      const current = versionNow()
      if (current !== version) {
        forget()
        version = current
      } else if (known !== undefined) {
        return known
      }
      const value = read()
      if (value !== undefined) remember(group, key, value)
      return value
    },

    peek(group) {
      const entries = groups.get(group)
      if (entries === undefined) return undefined
      for (const value of entries.values()) return value
      return undefined
    },

    committedOwn(count, group, patch) {
      if (count === 0) return
      const entries = groups.get(group)
      if (entries !== undefined) for (const [key, value] of entries) entries.set(key, patch(value))
      // Counted only once every entry is patched: a patch that throws leaves the change
      // unaccounted for, and the next read forgets everything.
      changes += count
    },
  }
}
