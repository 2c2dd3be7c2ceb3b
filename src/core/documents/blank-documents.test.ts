import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join, posix } from 'node:path'
import { describe, test } from 'node:test'

import { strFromU8, unzipSync } from 'fflate'

import { blankDocument } from './blank-documents.js'

// ---------------------------------------------------------------- a strict little XML reader

interface XmlElement {
  /** Qualified name as written, e.g. 'p:sldId'. */
  name: string
  /** Namespace URI the prefix (or default namespace) resolves to; '' when none. */
  ns: string
  local: string
  attrs: Map<string, string>
  /** Attribute namespace URIs, keyed like attrs ('' for unprefixed attributes). */
  attrNs: Map<string, string>
  children: XmlElement[]
}

const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?$/
const XML_NS = 'http://www.w3.org/XML/1998/namespace'

/**
 * Parses the subset of XML that OOXML parts use and throws on anything that is
 * not well-formed: unbalanced or crossed tags, bad names, duplicate or unquoted
 * attributes, raw '<' or stray '&', undeclared namespace prefixes, text or a
 * second element outside the root.
 */
function parseXml(text: string): XmlElement {
  let pos = 0
  const stack: Array<{ element: XmlElement; scope: Map<string, string> }> = []
  let root: XmlElement | undefined
  const fail = (message: string): never => {
    throw new Error(`${message} at offset ${pos}: ${JSON.stringify(text.slice(pos, pos + 40))}`)
  }

  if (text.startsWith('<?xml')) {
    const end = text.indexOf('?>')
    if (end < 0) fail('unterminated XML declaration')
    pos = end + 2
  }

  while (pos < text.length) {
    const lt = text.indexOf('<', pos)
    const chunk = text.slice(pos, lt < 0 ? text.length : lt)
    checkText(chunk, stack.length > 0, fail)
    if (lt < 0) break
    pos = lt

    if (text.startsWith('<!--', pos)) {
      const end = text.indexOf('-->', pos)
      if (end < 0) fail('unterminated comment')
      pos = end + 3
      continue
    }
    if (text.startsWith('<![CDATA[', pos)) {
      if (stack.length === 0) fail('CDATA outside the root')
      const end = text.indexOf(']]>', pos)
      if (end < 0) fail('unterminated CDATA')
      pos = end + 3
      continue
    }
    if (text.startsWith('<?', pos) || text.startsWith('<!', pos)) fail('unexpected markup')

    const gt = text.indexOf('>', pos)
    if (gt < 0) fail('unterminated tag')
    const tag = text.slice(pos + 1, gt)

    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim()
      const open = stack.pop()
      if (open === undefined || open.element.name !== name) {
        fail(`closing </${name}> does not match <${open?.element.name ?? 'nothing'}>`)
      }
      pos = gt + 1
      continue
    }

    if (root !== undefined && stack.length === 0) fail('a second root element')
    const selfClosing = tag.endsWith('/')
    const body = selfClosing ? tag.slice(0, -1) : tag
    const nameMatch = /^[^\s/>]+/.exec(body)
    const name = nameMatch?.[0] ?? ''
    if (!NAME.test(name)) fail(`bad element name ${JSON.stringify(name)}`)

    const raw = new Map<string, string>()
    const attrPattern = /\s+([^\s=]+)\s*=\s*("([^"<]*)"|'([^'<]*)')/y
    let attrPos = name.length
    while (attrPos < body.trimEnd().length) {
      attrPattern.lastIndex = attrPos
      const match = attrPattern.exec(body)
      if (match === null) fail(`malformed attributes in <${name}>`)
      const [whole, attrName = '', , doubleQuoted, singleQuoted] = match ?? []
      if (!NAME.test(attrName)) fail(`bad attribute name ${attrName}`)
      if (raw.has(attrName)) fail(`duplicate attribute ${attrName}`)
      const value = doubleQuoted ?? singleQuoted ?? ''
      checkText(value, true, fail)
      raw.set(attrName, value)
      attrPos += (whole ?? '').length
    }

    const parentScope = stack.at(-1)?.scope ?? new Map([['xml', XML_NS]])
    const scope = new Map(parentScope)
    for (const [attrName, value] of raw) {
      if (attrName === 'xmlns') scope.set('', value)
      else if (attrName.startsWith('xmlns:')) scope.set(attrName.slice(6), value)
    }
    const resolve = (qname: string, isAttr: boolean): [string, string] => {
      const colon = qname.indexOf(':')
      if (colon < 0) return [isAttr ? '' : (scope.get('') ?? ''), qname]
      const prefix = qname.slice(0, colon)
      const uri = scope.get(prefix)
      if (uri === undefined) fail(`undeclared prefix ${prefix}: in ${qname}`)
      return [uri ?? '', qname.slice(colon + 1)]
    }

    const [ns, local] = resolve(name, false)
    const attrs = new Map<string, string>()
    const attrNs = new Map<string, string>()
    for (const [attrName, value] of raw) {
      if (attrName === 'xmlns' || attrName.startsWith('xmlns:')) continue
      attrs.set(attrName, value)
      attrNs.set(attrName, resolve(attrName, true)[0])
    }
    const element: XmlElement = { name, ns, local, attrs, attrNs, children: [] }
    const parent = stack.at(-1)
    if (parent === undefined) root = element
    else parent.element.children.push(element)
    if (!selfClosing) stack.push({ element, scope })
    pos = gt + 1
  }

  if (stack.length > 0) fail(`<${stack.at(-1)?.element.name}> is never closed`)
  if (root === undefined) fail('no root element')
  return root ?? fail('no root element')
}

function checkText(chunk: string, insideRoot: boolean, fail: (message: string) => never): void {
  if (!insideRoot && chunk.trim() !== '') fail('text outside the root element')
  if (chunk.includes('>') && chunk.includes(']]>')) fail("']]>' in text")
  const stray = /&(?!(?:lt|gt|amp|quot|apos|#\d+|#x[0-9A-Fa-f]+);)/.exec(chunk)
  if (stray !== null) fail('stray & (not an entity reference)')
}

function* walk(element: XmlElement): Generator<XmlElement> {
  yield element
  for (const child of element.children) yield* walk(child)
}

function findAll(root: XmlElement, local: string): XmlElement[] {
  return [...walk(root)].filter((element) => element.local === local)
}

// ---------------------------------------------------------------- package helpers

const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const CT = 'application/vnd.openxmlformats-officedocument.'

interface Package {
  files: Map<string, string>
  xml: Map<string, XmlElement>
  /** Part name (no leading slash) → content type. */
  types: Map<string, string>
}

function openPackage(bytes: Uint8Array): Package {
  const entries = unzipSync(bytes)
  const files = new Map(Object.entries(entries).map(([path, data]) => [path, strFromU8(data)]))
  const xml = new Map<string, XmlElement>()
  for (const [path, text] of files) {
    try {
      xml.set(path, parseXml(text))
    } catch (error) {
      throw new Error(`${path} is not well-formed: ${String(error)}`)
    }
  }
  const typesRoot = xml.get('[Content_Types].xml')
  assert.ok(typesRoot, '[Content_Types].xml is missing')
  const defaults = new Map<string, string>()
  const types = new Map<string, string>()
  for (const entry of typesRoot.children) {
    if (entry.local === 'Default') {
      defaults.set(entry.attrs.get('Extension') ?? '', entry.attrs.get('ContentType') ?? '')
    } else if (entry.local === 'Override') {
      const part = (entry.attrs.get('PartName') ?? '').replace(/^\//, '')
      types.set(part, entry.attrs.get('ContentType') ?? '')
    }
  }
  for (const path of files.keys()) {
    if (path === '[Content_Types].xml' || types.has(path)) continue
    const extension = path.slice(path.lastIndexOf('.') + 1)
    const fallback = defaults.get(extension)
    if (fallback !== undefined) types.set(path, fallback)
  }
  return { files, xml, types }
}

function relsPathOf(part: string): string {
  return posix.join(posix.dirname(part), '_rels', `${posix.basename(part)}.rels`)
}

interface Relationship {
  type: string
  /** Part name of the target, resolved against the source part's folder. */
  target: string
}

/** Relationships of a part ('' for the package), by Id. */
function relationshipsOf(pkg: Package, part: string): Map<string, Relationship> {
  const relsPath = part === '' ? '_rels/.rels' : relsPathOf(part)
  const root = pkg.xml.get(relsPath)
  const result = new Map<string, Relationship>()
  if (root === undefined) return result
  const base = part === '' ? '' : posix.dirname(part)
  for (const rel of root.children) {
    const id = rel.attrs.get('Id') ?? ''
    const target = rel.attrs.get('Target') ?? ''
    const type = rel.attrs.get('Type') ?? ''
    assert.ok(!result.has(id), `${relsPath}: duplicate Id ${id}`)
    if (rel.attrs.get('TargetMode') === 'External') continue
    result.set(id, {
      type,
      target: target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(base, target)),
    })
  }
  return result
}

function mainPartOf(pkg: Package): string {
  const main = [...relationshipsOf(pkg, '').values()].find((rel) => rel.type.endsWith('/officeDocument'))
  assert.ok(main, 'no officeDocument relationship in _rels/.rels')
  return main.target
}

function xmlOf(pkg: Package, part: string): XmlElement {
  const root = pkg.xml.get(part)
  assert.ok(root, `${part} is missing`)
  return root
}

// ---------------------------------------------------------------- the tests

const FORMATS = [
  {
    extension: 'docx',
    mainType: `${CT}wordprocessingml.document.main+xml`,
    root: ['http://schemas.openxmlformats.org/wordprocessingml/2006/main', 'document'],
  },
  {
    extension: 'xlsx',
    mainType: `${CT}spreadsheetml.sheet.main+xml`,
    root: ['http://schemas.openxmlformats.org/spreadsheetml/2006/main', 'workbook'],
  },
  {
    extension: 'pptx',
    mainType: `${CT}presentationml.presentation.main+xml`,
    root: ['http://schemas.openxmlformats.org/presentationml/2006/main', 'presentation'],
  },
] as const

for (const format of FORMATS) {
  describe(`blank ${format.extension}`, () => {
    const bytes = blankDocument(format.extension)
    assert.ok(bytes, `no blank ${format.extension}`)
    const pkg = openPackage(bytes)

    test('is a zip whose every part is well-formed XML (checked when the package is read)', () => {
      assert.ok(pkg.files.size >= 5)
      assert.equal(strFromU8(bytes.subarray(0, 2)), 'PK')
      assert.equal([...pkg.files.keys()][0], '[Content_Types].xml')
    })

    test('every Override names a part that exists, and every part has a content type', () => {
      const typesRoot = xmlOf(pkg, '[Content_Types].xml')
      for (const override of findAll(typesRoot, 'Override')) {
        const part = (override.attrs.get('PartName') ?? '').replace(/^\//, '')
        assert.ok(pkg.files.has(part), `Override for missing part /${part}`)
      }
      for (const path of pkg.files.keys()) {
        if (path === '[Content_Types].xml') continue
        assert.ok(pkg.types.has(path), `${path} has no content type`)
      }
    })

    test('every relationship in every .rels file points at an existing part', () => {
      for (const relsPath of pkg.files.keys()) {
        if (!relsPath.endsWith('.rels')) continue
        const source = relsPath === '_rels/.rels' ? '' : relsPath.replace(/_rels\/(.*)\.rels$/, '$1')
        assert.ok(source === '' || pkg.files.has(source), `${relsPath} belongs to no part`)
        for (const [id, rel] of relationshipsOf(pkg, source)) {
          assert.ok(pkg.files.has(rel.target), `${relsPath} ${id} → missing ${rel.target}`)
        }
      }
    })

    test('every r:id-style reference inside a part names one of its relationships', () => {
      for (const [part, root] of pkg.xml) {
        const rels = relationshipsOf(pkg, part)
        for (const element of walk(root)) {
          for (const [name, value] of element.attrs) {
            if (element.attrNs.get(name) !== REL_NS) continue
            assert.ok(rels.has(value), `${part}: <${element.name} ${name}="${value}"> dangles`)
          }
        }
      }
    })

    test('the main part has the right content type and root element', () => {
      const main = mainPartOf(pkg)
      assert.equal(pkg.types.get(main), format.mainType)
      const root = xmlOf(pkg, main)
      assert.deepEqual([root.ns, root.local], format.root)
      assert.ok(pkg.types.get('docProps/core.xml')?.endsWith('core-properties+xml'))
      assert.ok(pkg.types.get('docProps/app.xml')?.endsWith('extended-properties+xml'))
    })
  })
}

describe('blank document specifics', () => {
  test('docx: one empty paragraph on an A4 page, with styles and settings wired in', () => {
    const pkg = openPackage(blankOrFail('docx'))
    const body = xmlOf(pkg, 'word/document.xml').children[0]
    assert.equal(body?.local, 'body')
    assert.deepEqual(
      body.children.map((child) => child.local),
      ['p', 'sectPr'],
    )
    assert.equal(body.children[0]?.children.length, 0, 'the paragraph has no runs')
    const pageSize = findAll(body, 'pgSz')[0]
    assert.equal(pageSize?.attrs.get('w:w'), '11906')
    assert.equal(pageSize?.attrs.get('w:h'), '16838')
    assert.equal(findAll(body, 'pgMar').length, 1)

    const types = [...relationshipsOf(pkg, 'word/document.xml').values()].map((rel) => rel.type)
    assert.ok(types.some((type) => type.endsWith('/styles')))
    assert.ok(types.some((type) => type.endsWith('/settings')))
    const styles = xmlOf(pkg, 'word/styles.xml')
    assert.equal(findAll(styles, 'docDefaults').length, 1)
    const normal = findAll(styles, 'style').find((s) => s.attrs.get('w:styleId') === 'Normal')
    assert.equal(normal?.attrs.get('w:default'), '1')
  })

  test('xlsx: one empty sheet called Sheet1 and a complete minimal stylesheet', () => {
    const pkg = openPackage(blankOrFail('xlsx'))
    const workbook = xmlOf(pkg, 'xl/workbook.xml')
    const sheets = findAll(workbook, 'sheet')
    assert.equal(sheets.length, 1)
    assert.equal(sheets[0]?.attrs.get('name'), 'Sheet1')
    const sheetRel = relationshipsOf(pkg, 'xl/workbook.xml').get(sheets[0]?.attrs.get('r:id') ?? '')
    assert.equal(sheetRel?.target, 'xl/worksheets/sheet1.xml')
    assert.equal(pkg.types.get('xl/worksheets/sheet1.xml'), `${CT}spreadsheetml.worksheet+xml`)
    const sheetData = findAll(xmlOf(pkg, 'xl/worksheets/sheet1.xml'), 'sheetData')
    assert.equal(sheetData.length, 1)
    assert.equal(sheetData[0]?.children.length, 0)

    const styles = xmlOf(pkg, 'xl/styles.xml')
    const patterns = findAll(styles, 'patternFill').map((fill) => fill.attrs.get('patternType'))
    assert.deepEqual(patterns.slice(0, 2), ['none', 'gray125'])
    for (const list of ['fonts', 'fills', 'borders', 'cellStyleXfs', 'cellXfs', 'cellStyles']) {
      const element = findAll(styles, list)[0]
      assert.ok(element, `styles.xml lacks <${list}>`)
      assert.equal(element.attrs.get('count'), String(element.children.length), `${list} count`)
      assert.ok(element.children.length >= 1)
    }
  })

  test('pptx: 16:9 deck of one slide → layout → master → complete theme', () => {
    const pkg = openPackage(blankOrFail('pptx'))
    const presentation = xmlOf(pkg, 'ppt/presentation.xml')
    const size = findAll(presentation, 'sldSz')[0]
    assert.equal(size?.attrs.get('cx'), '12192000')
    assert.equal(size?.attrs.get('cy'), '6858000')
    assert.equal(findAll(presentation, 'notesSz').length, 1)

    const presRels = relationshipsOf(pkg, 'ppt/presentation.xml')
    const relTarget = (rels: typeof presRels, element: XmlElement | undefined): string => {
      const rel = rels.get(element?.attrs.get('r:id') ?? '')
      assert.ok(rel, `no relationship for <${element?.name}>`)
      return rel.target
    }
    const masterIds = findAll(presentation, 'sldMasterId')
    assert.equal(masterIds.length, 1)
    const masterPart = relTarget(presRels, masterIds[0])
    assert.equal(pkg.types.get(masterPart), `${CT}presentationml.slideMaster+xml`)
    const slideIds = findAll(presentation, 'sldId')
    assert.equal(slideIds.length, 1)
    const slidePart = relTarget(presRels, slideIds[0])
    assert.equal(pkg.types.get(slidePart), `${CT}presentationml.slide+xml`)

    // Master ids start at 2^31 and layout ids must not collide with them.
    const masterId = Number(masterIds[0]?.attrs.get('id'))
    assert.ok(masterId >= 2147483648)
    const master = xmlOf(pkg, masterPart)
    const masterRels = relationshipsOf(pkg, masterPart)
    const layoutIds = findAll(master, 'sldLayoutId')
    assert.equal(layoutIds.length, 1)
    assert.ok(Number(layoutIds[0]?.attrs.get('id')) > masterId)
    const layoutPart = relTarget(masterRels, layoutIds[0])
    assert.equal(pkg.types.get(layoutPart), `${CT}presentationml.slideLayout+xml`)
    assert.match(xmlOf(pkg, layoutPart).attrs.get('type') ?? '', /^(blank|title)$/)

    const slideLayout = [...relationshipsOf(pkg, slidePart).values()].find((rel) => rel.type.endsWith('/slideLayout'))
    assert.equal(slideLayout?.target, layoutPart)
    const layoutMaster = [...relationshipsOf(pkg, layoutPart).values()].find((rel) => rel.type.endsWith('/slideMaster'))
    assert.equal(layoutMaster?.target, masterPart)
    const themeRel = [...masterRels.values()].find((rel) => rel.type.endsWith('/theme'))
    assert.ok(themeRel)
    assert.equal(pkg.types.get(themeRel.target), `${CT}theme+xml`)
    // Nothing on the slide holds text.
    assert.equal(findAll(xmlOf(pkg, slidePart), 't').length, 0)

    const theme = xmlOf(pkg, themeRel.target)
    const colorScheme = findAll(theme, 'clrScheme')[0]
    assert.deepEqual(
      colorScheme?.children.map((child) => child.local),
      [
        'dk1',
        'lt1',
        'dk2',
        'lt2',
        'accent1',
        'accent2',
        'accent3',
        'accent4',
        'accent5',
        'accent6',
        'hlink',
        'folHlink',
      ],
    )
    for (const font of ['majorFont', 'minorFont']) {
      const element = findAll(theme, font)[0]
      assert.deepEqual(
        element?.children.slice(0, 3).map((child) => child.local),
        ['latin', 'ea', 'cs'],
      )
    }
    for (const list of ['fillStyleLst', 'lnStyleLst', 'effectStyleLst', 'bgFillStyleLst']) {
      const element = findAll(theme, list)[0]
      assert.ok((element?.children.length ?? 0) >= 3, `${list} needs at least three entries`)
    }
  })

  test('other extensions have no blank package; the match ignores case', () => {
    for (const extension of ['', 'txt', 'odt', 'doc', 'pdf', 'constructor', '__proto__']) {
      assert.equal(blankDocument(extension), undefined, extension)
    }
    assert.deepEqual(blankDocument('DOCX'), blankDocument('docx'))
  })

  test('each call returns a copy, so a caller cannot spoil the next blank', () => {
    const first = blankOrFail('xlsx')
    first.fill(0)
    const second = blankOrFail('xlsx')
    assert.equal(strFromU8(second.subarray(0, 2)), 'PK')
    openPackage(second)
  })
})

function blankOrFail(extension: string): Uint8Array {
  const bytes = blankDocument(extension)
  assert.ok(bytes, `no blank ${extension}`)
  return bytes
}

// ---------------------------------------------------------------- LibreOffice, when present

function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, command)
    if (dir !== '' && existsSync(candidate)) return candidate
  }
  return undefined
}

const soffice = findOnPath('soffice')

describe('LibreOffice opens the blanks', () => {
  for (const { extension } of FORMATS) {
    test(
      `converts a blank ${extension} to PDF`,
      {
        skip: soffice === undefined ? 'LibreOffice (soffice) is not installed' : false,
        timeout: 120_000,
      },
      async () => {
        const dir = await mkdtemp(join(tmpdir(), 'folio-blank-'))
        try {
          const input = join(dir, `blank.${extension}`)
          await writeFile(input, blankOrFail(extension))
          const result = spawnSync(
            soffice ?? 'soffice',
            [
              `-env:UserInstallation=file://${join(dir, 'profile')}`,
              '--headless',
              '--convert-to',
              'pdf',
              '--outdir',
              dir,
              input,
            ],
            { encoding: 'utf8', timeout: 110_000 },
          )
          assert.equal(result.status, 0, result.stderr)
          const pdf = await readFile(join(dir, 'blank.pdf'))
          assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-')
        } finally {
          await rm(dir, { recursive: true, force: true })
        }
      },
    )
  }
})
