/**
 * Every rule about file names lives here: what is legal, how to repair a name, how to split
 * off the extension, how WOPI SuggestedTarget resolves, and how conflict suffixes are built.
 *
 * A legal name is one that POSIX and Windows filesystems, object-store keys and download
 * clients can all hold as a single path segment:
 * - not empty, and not '.' or '..' (those are path traversal; 'a..b.docx' is fine);
 * - no path separator '/' or '\';
 * - no control character U+0000–U+001F or U+007F;
 * - none of the characters Windows forbids: < > : " / \ | ? *;
 * - not a Windows device name (CON, PRN, AUX, NUL, COM1–COM9, LPT1–LPT9, COM¹²³, LPT¹²³),
 *   in any letter case, with or without extension: Windows looks at the part before the
 *   first dot with trailing spaces dropped, so 'con.txt', 'NUL.tar.gz' and 'Aux .docx' count;
 * - no leading space and no trailing dot or space (Windows drops those silently, and a
 *   leading space makes two names look identical in a listing);
 * - at most 255 bytes in UTF-8 (ext4's limit per segment; it also keeps NTFS's 255 UTF-16
 *   units);
 * - no unpaired UTF-16 surrogate (it has no UTF-8 form);
 * - in Unicode NFC (composed) form, so 'café' typed on two systems is one name, not two
 *   that look alike (normalizeFileName composes a name before it is checked or stored);
 * - no bidirectional control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069): they
 *   reorder what is displayed ('invoice\u202ecod.exe' shows as 'invoiceexe.doc');
 * - no invisible format character (U+00AD, U+180E, U+200B–U+200D, U+2060–U+2064, U+FEFF):
 *   they make two different names display the same.
 * Anything else is legal, including Cyrillic, CJK and emoji.
 */
import { DomainError } from '../errors.js'

/** Longest legal file name, in UTF-8 bytes. */
export const MAX_FILE_NAME_BYTES = 255

/** Outcome of validateFileName; `reason` is short English meant for logs and error headers. */
export type FileNameCheck = { ok: true } | { ok: false; reason: string }

const SEPARATOR = /[/\\]/
const CONTROL = /[\u0000-\u001f\u007f]/
const CONTROL_ALL = /[\u0000-\u001f\u007f]/g
const WINDOWS_FORBIDDEN = /[<>:"|?*]/
const FORBIDDEN_ALL = /[<>:"/\\|?*]/g
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const LONE_SURROGATE_ALL = new RegExp(LONE_SURROGATE.source, 'g')
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
const INVISIBLE = /[\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff]/
const HIDDEN_ALL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff]/g
const DEVICE_NAME = /^(?:con|prn|aux|nul|com[1-9\u00b9\u00b2\u00b3]|lpt[1-9\u00b9\u00b2\u00b3])$/i
const EXISTING_SUFFIX = /^(.+) \((\d+)\)$/

/** Number of bytes `text` takes in UTF-8 (a lone surrogate counts as U+FFFD, 3 bytes). */
function utf8Length(text: string): number {
  let bytes = 0
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4
  }
  return bytes
}

/** Longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, cut between code points. */
function cutToBytes(text: string, maxBytes: number): string {
  let bytes = 0
  let end = 0
  for (const ch of text) {
    const size = utf8Length(ch)
    if (bytes + size > maxBytes) break
    bytes += size
    end += ch.length
  }
  return text.slice(0, end)
}

function isDeviceName(name: string): boolean {
  const firstDot = name.indexOf('.')
  const stem = firstDot === -1 ? name : name.slice(0, firstDot)
  return DEVICE_NAME.test(stem.replace(/ +$/, ''))
}

/**
 * `name` in Unicode NFC form (what every name is stored as). Callers that take a name
 * as typed should pass it through this before validateFileName.
 */
export function normalizeFileName(name: string): string {
  return name.normalize('NFC')
}

/** Checks `name` against the rules in this module's header; returns the first one broken. */
export function validateFileName(name: string): FileNameCheck {
  if (name === '') return { ok: false, reason: 'name is empty' }
  if (name === '.' || name === '..') return { ok: false, reason: 'name is "." or ".."' }
  if (LONE_SURROGATE.test(name)) {
    return { ok: false, reason: 'name contains an unpaired UTF-16 surrogate' }
  }
  if (name !== name.normalize('NFC')) {
    return { ok: false, reason: 'name is not in Unicode NFC form' }
  }
  if (BIDI_CONTROL.test(name)) {
    return { ok: false, reason: 'name contains a bidirectional control character' }
  }
  if (INVISIBLE.test(name)) {
    return { ok: false, reason: 'name contains an invisible format character' }
  }
  if (SEPARATOR.test(name)) return { ok: false, reason: 'name contains a path separator' }
  if (CONTROL.test(name)) return { ok: false, reason: 'name contains a control character' }
  if (WINDOWS_FORBIDDEN.test(name)) {
    return { ok: false, reason: 'name contains one of the characters < > : " | ? *' }
  }
  if (isDeviceName(name)) {
    return { ok: false, reason: 'name is a reserved Windows device name' }
  }
  if (name.startsWith(' ')) return { ok: false, reason: 'name starts with a space' }
  if (name.endsWith('.') || name.endsWith(' ')) {
    return { ok: false, reason: 'name ends with a dot or a space' }
  }
  if (utf8Length(name) > MAX_FILE_NAME_BYTES) {
    return { ok: false, reason: `name is longer than ${MAX_FILE_NAME_BYTES} bytes in UTF-8` }
  }
  return { ok: true }
}

/** Drops leading spaces and trailing dots and spaces. */
function trimEdges(name: string): string {
  return name.replace(/^ +/, '').replace(/[. ]+$/, '')
}

/** Cuts a name to MAX_FILE_NAME_BYTES, keeping the extension if some of the base still fits. */
function fitToLimit(name: string): string {
  if (utf8Length(name) <= MAX_FILE_NAME_BYTES) return name
  const { base, extension } = splitExtension(name)
  const room = MAX_FILE_NAME_BYTES - utf8Length(extension)
  const shortBase = room > 0 ? cutToBytes(base, room) : ''
  if (extension !== '' && shortBase !== '') return shortBase + extension
  return cutToBytes(name, MAX_FILE_NAME_BYTES)
}

/**
 * Repairs a name so it passes validateFileName, or returns undefined when nothing usable is
 * left (empty, only dots and spaces, only control characters). The name is composed to NFC;
 * unpaired surrogates and the characters < > : " / \ | ? * become '_'; control characters,
 * bidirectional controls and invisible format characters are removed; leading spaces and
 * trailing dots and spaces are dropped; a device name gets a '_' prefix; an over-long name is
 * cut to 255 UTF-8 bytes between code points, keeping its extension. A legal name is
 * returned unchanged.
 */
export function sanitizeFileName(name: string): string | undefined {
  let result = name
    .replace(LONE_SURROGATE_ALL, '_')
    .replace(CONTROL_ALL, '')
    .replace(HIDDEN_ALL, '')
    .replace(FORBIDDEN_ALL, '_')
    // Last: removing a character can bring a letter and a combining mark together.
    .normalize('NFC')
  // Cutting can expose a trailing dot/space or turn 'CONSOLE.x' into 'CON.x'; a few rounds
  // settle it because each round only shortens the base or adds the one-byte prefix once.
  for (let round = 0; round < 3; round++) {
    result = trimEdges(result)
    if (result === '') return undefined
    if (isDeviceName(result)) result = `_${result}`
    result = fitToLimit(result)
    if (validateFileName(result).ok) return result
  }
  return undefined
}

/**
 * Splits at the last dot. The extension keeps its dot: 'Report.docx' -> 'Report' + '.docx',
 * 'archive.tar.gz' -> 'archive.tar' + '.gz'. A leading dot does not start an extension
 * ('.bashrc' has none), and neither does a final dot ('name.' has none).
 */
export function splitExtension(name: string): { base: string; extension: string } {
  const dot = name.lastIndexOf('.')
  if (dot <= 0 || dot === name.length - 1) return { base: name, extension: '' }
  return { base: name.slice(0, dot), extension: name.slice(dot) }
}

/** The extension in lower case without its dot, '' when there is none ('A.DOCX' -> 'docx'). */
export function extensionOf(name: string): string {
  return splitExtension(name).extension.slice(1).toLowerCase()
}

/**
 * The name WOPI PutRelativeFile asks for. `suggested` is X-WOPI-SuggestedTarget already
 * UTF-7 decoded: when it starts with '.' it is only an extension, put after the original
 * name's base ('Report.docx' + '.pdf' -> 'Report.pdf'); otherwise it is the full name.
 * The result is not yet validated: pass it through candidateNames.
 */
export function resolveSuggestedTarget(originalName: string, suggested: string): string {
  if (suggested.startsWith('.')) return splitExtension(originalName).base + suggested
  return suggested
}

/**
 * `name` with ' (n)' before its extension: ('Report.docx', 2) -> 'Report (2).docx'. An
 * existing ' (k)' is replaced, not stacked: ('Report (2).docx', 3) -> 'Report (3).docx'.
 * The base is shortened (between code points) so the result stays within 255 UTF-8 bytes;
 * if even that cannot keep the extension, the suffix goes at the very end.
 * Throws INVALID_INPUT when n is not a positive integer.
 */
export function withConflictSuffix(name: string, n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new DomainError('INVALID_INPUT', `conflict suffix must be a positive integer: ${n}`)
  }
  const { base, extension } = splitExtension(name)
  const stem = EXISTING_SUFFIX.exec(base)?.[1] ?? base
  const suffix = ` (${n})`
  const room = MAX_FILE_NAME_BYTES - utf8Length(suffix + extension)
  const shortStem = room > 0 ? cutToBytes(stem, room) : ''
  if (shortStem !== '') return shortStem + suffix + extension
  return cutToBytes(stem + extension, MAX_FILE_NAME_BYTES - utf8Length(suffix)) + suffix
}

/**
 * The names to try, in order, when storing a file called `name`: its sanitized form, then
 * that form with ' (2)', ' (3)', … At most `limit` distinct names, each of which passes
 * validateFileName. Yields nothing when the name cannot be sanitized; the caller then
 * reports NAME_INVALID (or NAME_TAKEN when every candidate is in use).
 */
export function* candidateNames(name: string, limit = 1000): Generator<string> {
  const first = sanitizeFileName(name)
  if (first === undefined || limit < 1) return
  const seen = new Set<string>([first])
  yield first
  // n may hit the name's own ' (k)' once, hence the + 1.
  for (let n = 2; seen.size < limit && n <= limit + 1; n++) {
    const candidate = withConflictSuffix(first, n)
    if (seen.has(candidate)) continue
    seen.add(candidate)
    yield candidate
  }
}
