import type { VersionRecord } from '../entities.js'

/** How many versions a file keeps, and which saves fold into one. */
export interface RetentionPolicy {
  /** A save within this long of the start of the same user's run of saves replaces it; 0: off. */
  squashWindowMs: number
  /** Most versions a file keeps (the new one included); undefined keeps every one. */
  keep: number | undefined
}

/** The meta key holding when the first save folded into a squashed version was made. */
export const SQUASH_STARTED_AT = 'squashStartedAt'

/** The version about to be committed, as the rule needs it. */
export type IncomingVersion = Pick<VersionRecord, 'source' | 'createdBy' | 'createdAt' | 'meta'>

/** True for a save made as an editor closed: ONLYOFFICE status 2, or a WOPI PutFile flagged IsExitSave. */
export function isExitSave(version: Pick<VersionRecord, 'source' | 'meta'>): boolean {
  return version.source === 'exit-save' || (version.source === 'wopi' && version.meta.isExitSave === true)
}

/** When the run of saves a version stands for began (its own time unless it was squashed). */
export function runStartedAt(version: Pick<VersionRecord, 'createdAt' | 'meta'>): number {
  const started = version.meta[SQUASH_STARTED_AT]
  return typeof started === 'number' ? started : version.createdAt
}

/**
 * Whether `incoming` replaces the current version `head` instead of adding one: both are
 * WOPI saves (autosaves of a WOPI client) by the same user, the head is no exit save, and
 * the head's run of saves began at most `squashWindowMs` before the incoming save. Exit
 * saves of ONLYOFFICE, force saves, restores, uploads and copies never squash, and are
 * never squashed away.
 */
export function squashes(head: VersionRecord, incoming: IncomingVersion, policy: RetentionPolicy): boolean {
  if (policy.squashWindowMs <= 0) return false
  if (incoming.source !== 'wopi' || head.source !== 'wopi' || isExitSave(head)) return false
  if (head.createdBy !== incoming.createdBy) return false
  const elapsed = incoming.createdAt - runStartedAt(head)
  return elapsed >= 0 && elapsed <= policy.squashWindowMs
}

/**
 * The version numbers to drop when `incoming` is committed on top of `existing` (every
 * stored version, oldest first; the last one is the current version): the head when the
 * incoming save squashes it, then the oldest others until at most `keep` remain with the
 * new one. The last exit save is never dropped (so `keep` may be exceeded by one).
 */
export function versionsToDrop(
  existing: readonly VersionRecord[],
  incoming: IncomingVersion,
  policy: RetentionPolicy,
): number[] {
  const head = existing.at(-1)
  if (head === undefined) return []
  const drop = squashes(head, incoming, policy) ? [head.version] : []
  if (policy.keep === undefined) return drop
  const lastExit = [...existing].reverse().find(isExitSave)
  const remaining = existing.filter((v) => !drop.includes(v.version))
  let excess = remaining.length + 1 - policy.keep
  for (const version of remaining) {
    if (excess <= 0) break
    if (version === lastExit) continue
    drop.push(version.version)
    excess--
  }
  return drop
}
