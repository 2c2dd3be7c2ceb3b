/**
 * A byte count scaled by powers of 1024 to the largest of `unitCount` units it reaches:
 * `value` in that unit and the unit's index (0 = bytes, 1 = the first step of 1024...).
 * Every size shown to people (the portal's contentLength, quota messages, the web
 * interface, link pages) is scaled by this one rule; each writes the unit its own way.
 */
export function scaleBytes(bytes: number, unitCount: number): { value: number; unit: number } {
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < unitCount - 1) {
    value /= 1024
    unit++
  }
  return { value, unit }
}
