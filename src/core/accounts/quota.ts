import { scaleBytes } from '../units/byte-scale.js'
import { DomainError } from '../errors.js'

/**
 * Storage quotas: the rule every write of file contents is held to, and sizes in the
 * words people type and read ('500MiB', '2GB'). Pure: the figures come from the store.
 */

/** A user's storage as the quota rule needs it. */
export interface QuotaFigures {
  /** Bytes the user's files hold now (every stored version, trash included). */
  usedSpace: number
  /** The admin's limit in bytes; undefined: no limit. */
  quotaLimit: number | undefined
}

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
}

/**
 * Reads a size: a whole number of bytes, or a number with a unit (B, KB, MB, GB, TB in
 * powers of 1000; KiB, MiB, GiB, TiB in powers of 1024), any case, a space allowed
 * between; 'none' (or -1) is no limit (undefined). INVALID_INPUT otherwise.
 */
export function parseByteSize(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase()
  if (trimmed === 'none' || trimmed === '-1') return undefined
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(trimmed)
  const unit = UNITS[match?.[2] || 'b']
  if (!match || unit === undefined) {
    throw new DomainError('INVALID_INPUT', `"${text}" is not a size: write for example 500MiB, 2GB, 1048576 or none`, {
      field: 'quota',
    })
  }
  return checkedLimit(Math.round(Number(match[1]) * unit))
}

/** A limit in bytes as given through the API: -1 is none, otherwise a whole number of bytes. */
export function checkedLimit(bytes: number): number | undefined {
  if (bytes === -1) return undefined
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new DomainError('INVALID_INPUT', 'quota is a whole number of bytes from 0 up, or -1 for no limit', {
      field: 'quota',
    })
  }
  return bytes
}

/** A byte count for people: '0 B', '512 B', '1.5 KiB', '2 GiB' (powers of 1024). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  const { value, unit } = scaleBytes(bytes, units.length)
  const shown = unit === 0 || value >= 100 ? Math.round(value).toString() : Number(value.toFixed(1)).toString()
  return `${shown} ${units[unit]}`
}

/**
 * The one quota rule: QUOTA_EXCEEDED when writing `adding` bytes (while `freeing` bytes of
 * older versions go in the same change) would take the user past the limit. A user at or
 * above the limit may still write what frees at least as much as it adds.
 */
export function assertWithinQuota(figures: QuotaFigures, adding: number, freeing = 0): void {
  const { usedSpace, quotaLimit } = figures
  if (quotaLimit === undefined || adding <= freeing) return
  const after = usedSpace + adding - freeing
  if (after <= quotaLimit) return
  throw new DomainError(
    'QUOTA_EXCEEDED',
    `storage quota exceeded: ${formatBytes(usedSpace)} of ${formatBytes(quotaLimit)} used, ` +
      `${formatBytes(adding - freeing)} more does not fit; delete files (and empty the trash) or ask an admin for more`,
  )
}
