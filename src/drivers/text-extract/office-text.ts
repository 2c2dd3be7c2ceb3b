import type { Budget } from './budget.js'
import { createXmlTextScanner, type XmlTextRules } from './xml-text.js'
import { inflateEntry, readZipDirectory, type OpenRange } from './zip-entries.js'

const words = (...names: string[]): ReadonlySet<string> => new Set(names)

const WORD: XmlTextRules = { textIn: words('w:t'), lineAfter: words('w:p'), blankFor: words('w:tab', 'w:br', 'w:cr') }
const SHARED_STRINGS: XmlTextRules = { textIn: words('t'), lineAfter: words('si'), blankFor: words() }
const SHEET: XmlTextRules = { textIn: words('t'), lineAfter: words('row'), blankFor: words('c') }
const SLIDE: XmlTextRules = { textIn: words('a:t'), lineAfter: words('a:p'), blankFor: words('a:br') }
const OPEN_DOCUMENT: XmlTextRules = {
  lineAfter: words('text:p', 'text:h', 'text:line-break'),
  blankFor: words('text:s', 'text:tab'),
}

/** Which members of a package hold its text, and how each is read. */
type PartRules = (name: string) => XmlTextRules | undefined

const wordParts: PartRules = (name) =>
  /^word\/(document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml$/.test(name) ? WORD : undefined
const sheetParts: PartRules = (name) =>
  name === 'xl/sharedStrings.xml' ? SHARED_STRINGS : /^xl\/worksheets\/sheet\d+\.xml$/.test(name) ? SHEET : undefined
const slideParts: PartRules = (name) =>
  /^ppt\/(slides\/slide\d+|notesSlides\/notesSlide\d+)\.xml$/.test(name) ? SLIDE : undefined
const openDocumentParts: PartRules = (name) => (name === 'content.xml' ? OPEN_DOCUMENT : undefined)

/** The zip-packaged formats read here, by lower-case extension. */
export const PACKAGE_FORMATS: ReadonlyMap<string, PartRules> = new Map([
  ['docx', wordParts],
  ['docm', wordParts],
  ['dotx', wordParts],
  ['dotm', wordParts],
  ['xlsx', sheetParts],
  ['xlsm', sheetParts],
  ['xltx', sheetParts],
  ['xltm', sheetParts],
  ['pptx', slideParts],
  ['pptm', slideParts],
  ['ppsx', slideParts],
  ['potx', slideParts],
  ['odt', openDocumentParts],
  ['ott', openDocumentParts],
  ['ods', openDocumentParts],
  ['ots', openDocumentParts],
  ['odp', openDocumentParts],
  ['otp', openDocumentParts],
])

const byName = new Intl.Collator('en', { numeric: true })

/**
 * Reads the text of an Office Open XML or OpenDocument package: the members holding its
 * words (paragraph runs, shared and inline cell strings, slide and notes text, ODF
 * content.xml), in name order (slide2 before slide10), into the budget's sink.
 */
export async function readPackageText(open: OpenRange, size: number, parts: PartRules, budget: Budget): Promise<void> {
  const entries = (await readZipDirectory(open, size, budget))
    .filter((entry) => parts(entry.name) !== undefined)
    .sort((a, b) => byName.compare(a.name, b.name))
  for (const entry of entries) {
    if (budget.done()) return
    const rules = parts(entry.name)
    if (rules === undefined) continue
    const scanner = createXmlTextScanner(rules, budget.sink)
    const decoder = new TextDecoder('utf-8')
    await inflateEntry(open, size, entry, budget, (bytes) => scanner.push(decoder.decode(bytes, { stream: true })))
    scanner.push(decoder.decode())
    scanner.end()
    budget.sink.add('\n')
  }
}
