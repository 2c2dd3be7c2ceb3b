/** ISO 8601 with an explicit offset ('+00:00'), the form ONLYOFFICE's portal uses. */
export function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00')
}

let lastHttpDate = { ms: NaN, text: '' }

/**
 * The HTTP date (RFC 9110 IMF-fixdate) of `ms`, as Date.toUTCString writes it. The last
 * answer is kept: an editor polling one file asks for the same instant on every GetFile,
 * and formatting a date was about 2% of a GetFile's CPU in perf profiles.
 */
export function httpDate(ms: number): string {
  if (ms !== lastHttpDate.ms) lastHttpDate = { ms, text: new Date(ms).toUTCString() }
  return lastHttpDate.text
}
