/** ISO 8601 with an explicit offset ('+00:00'), the form ONLYOFFICE's portal uses. */
export function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00')
}
