/**
 * Parsers for human-friendly setting values. Pure; used by the config schema.
 */

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
}

/** '100MiB', '1.5 GB', '4096' -> bytes. Undefined when not a size. */
export function parseByteSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text)
  if (!match) return undefined
  const unit = SIZE_UNITS[(match[2] ?? '').toLowerCase()]
  if (unit === undefined) return undefined
  const bytes = Math.floor(Number(match[1]) * unit)
  return Number.isSafeInteger(bytes) ? bytes : undefined
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  '': 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
}

/** '10h', '30m', '45s', '3600' (seconds) -> milliseconds. Undefined when not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|)\s*$/i.exec(text)
  if (!match) return undefined
  const unit = DURATION_UNITS[(match[2] ?? '').toLowerCase()]
  if (unit === undefined) return undefined
  const ms = Math.round(Number(match[1]) * unit)
  return Number.isSafeInteger(ms) ? ms : undefined
}

/** 'host:port' or '[v6]:port' -> its parts (port 1-65535). Undefined when not such an address. */
export function parseHostPort(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text.trim())
  if (!match) return undefined
  const port = Number(match[3])
  if (port < 1 || port > 65535) return undefined
  return { host: match[1] ?? match[2] ?? '', port }
}
