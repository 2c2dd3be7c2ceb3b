import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { parseAst } from 'vite'

// Words a person reads on screen come from the catalog (web/src/i18n), never from a literal
// in a component: this scan of every .tsx file under web/src finds JSX text, and the
// attributes people read (aria-label, title, placeholder, alt), written as English. The
// parser is Vite's own (TypeScript 7 has no compiler API in JavaScript).

const WEB = join(import.meta.dirname, '../../web/src')
const READ_ATTRIBUTES = new Set(['aria-label', 'aria-description', 'title', 'placeholder', 'alt'])
// Texts that are the same in every language: the product's name, a format's name, symbols,
// key caps. Text inside <code> and <kbd> (a command, a key) is never translated either.
const EXEMPT = new Set(['Folio', 'PDF', '⌘', '?', 'F2'])
const VERBATIM_ELEMENTS = new Set(['code', 'kbd'])

interface Node {
  type: string
  start: number
  end: number
  [field: string]: unknown
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
}

function tsxFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return tsxFiles(path)
    return entry.name.endsWith('.tsx') ? [path] : []
  })
}

/** True for a text with a word in it (two letters or more) that is not exempt. */
function readable(text: string): boolean {
  const trimmed = text.trim()
  return !EXEMPT.has(trimmed) && /\p{L}{2,}/u.test(trimmed)
}

/** The literal texts a value can end up as: the literal itself, a template's fixed parts, either side of `? :` or `||`. */
function literalsOf(node: Node): Node[] {
  switch (node.type) {
    case 'Literal':
      return typeof node.value === 'string' ? [node] : []
    case 'TemplateLiteral':
      return (node.quasis as Array<{ value: { cooked: string } }>).some((part) => readable(part.value.cooked))
        ? [node]
        : []
    case 'JSXExpressionContainer':
    case 'ParenthesizedExpression':
      return isNode(node.expression) ? literalsOf(node.expression) : []
    case 'ConditionalExpression':
      return [node.consequent, node.alternate].filter(isNode).flatMap(literalsOf)
    case 'LogicalExpression':
    case 'BinaryExpression':
      return [node.left, node.right].filter(isNode).flatMap(literalsOf)
    default:
      return []
  }
}

/** Every hard-coded English text of one .tsx source, as 'file:line: text'. */
export function hardCodedTexts(fileName: string, source: string): string[] {
  const found: string[] = []
  const report = (node: Node) => {
    const text = source.slice(node.start, node.end).trim()
    if (node.type === 'JSXText' ? !readable(text) : node.type === 'Literal' && !readable(String(node.value))) return
    const line = source.slice(0, node.start + source.slice(node.start).search(/\S/)).split('\n').length
    found.push(`${fileName}:${line}: ${text.replace(/\s+/g, ' ')}`)
  }
  const visit = (node: Node, parent: Node | undefined, verbatim: boolean) => {
    if (node.type === 'JSXElement' && isNode(node.openingElement) && isNode(node.openingElement.name)) {
      verbatim = VERBATIM_ELEMENTS.has(String(node.openingElement.name.name))
    }
    if (node.type === 'JSXText' && !verbatim) report(node)
    // A literal as a JSX child: {'Copy here'} or {busy ? 'Saving' : t('common.save')}.
    if (node.type === 'JSXExpressionContainer' && parent?.type !== 'JSXAttribute' && !verbatim) {
      literalsOf(node).forEach(report)
    }
    if (node.type === 'JSXAttribute' && isNode(node.value) && isNode(node.name)) {
      if (READ_ATTRIBUTES.has(String(node.name.name))) literalsOf(node.value).forEach(report)
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const child of value) isNode(child) && visit(child, node, verbatim)
      else if (isNode(value)) visit(value, node, verbatim)
    }
  }
  visit(parseAst(source, { lang: 'tsx' }, fileName) as unknown as Node, undefined, false)
  return found
}

test('no .tsx file under web/src shows English written in place of a catalog text', () => {
  const found = tsxFiles(WEB).flatMap((path) => hardCodedTexts(relative(WEB, path), readFileSync(path, 'utf8')))
  assert.deepEqual(found, [], `put these through t() (web/src/i18n/en.ts and its translations):\n${found.join('\n')}`)
})

test('the scan finds JSX text, read attributes and literals in expressions, and lets symbols and names pass', () => {
  const source = [
    'export const A = () => (',
    '  <div title="Copy to" aria-label={`Copy ${x} to`} class="picker-folder">',
    '    Copy here',
    "    {busy ? 'Saving' : t('common.save')}",
    '    <input placeholder={t("x")} type="text" />',
    '    <span>Folio</span> <kbd>Ctrl</kbd> {title} · {t("y")} <code>folio serve</code>',
    '  </div>',
    ')',
  ].join('\n')
  assert.deepEqual(hardCodedTexts('a.tsx', source), [
    'a.tsx:2: "Copy to"',
    'a.tsx:2: `Copy ${x} to`',
    'a.tsx:3: Copy here',
    "a.tsx:4: 'Saving'",
  ])
})
