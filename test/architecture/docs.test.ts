import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { describe, test } from 'node:test'

const ROOT = join(import.meta.dirname, '..', '..')

/** The README stays a page a newcomer reads to the end; the manual lives in docs/. */
const README_MAX_LINES = 260

/** The pages whose links are checked: the README, CONTRIBUTING.md and every page of docs/. */
function documentationPages(root: string): string[] {
  const docs = join(root, 'docs')
  const pages = readdirSync(docs)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(docs, name))
  return [join(root, 'README.md'), join(root, 'CONTRIBUTING.md'), ...pages].filter((path) => existsSync(path))
}

/** A page without its fenced code blocks. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
}

/** The text of a page outside fenced code blocks and inline code, where a link is a link. */
function proseOf(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, '')
}

/** Every link target of a page: inline links and images `[text](target)`, and `[ref]: target` lines. */
function linkTargets(markdown: string): string[] {
  const prose = proseOf(markdown)
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '')
  const references = [...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1] ?? '')
  return [...inline, ...references]
}

/**
 * The anchors GitHub gives a page's headings: the heading's text, lower-cased, with every
 * character but letters, digits, spaces, '-' and '_' dropped and spaces made '-'; a
 * repeated one gets '-1', '-2'... Written here because it is these few lines and the
 * test must not depend on a renderer's version.
 */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const match of withoutFences(markdown).matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    const text = (match[1] ?? '').replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '')
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** Every relative link of `pages` whose file is missing or whose #anchor is no heading there. */
function brokenLinks(root: string, pages: string[]): string[] {
  const broken: string[] = []
  for (const page of pages) {
    const markdown = readFileSync(page, 'utf8')
    for (const target of linkTargets(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue
      const [pathPart = '', anchor] = target.split('#', 2)
      const path = pathPart === '' ? page : join(dirname(page), decodeURIComponent(pathPart))
      const where = `${relative(root, page)}: ${target}`
      if (!existsSync(path)) {
        broken.push(`${where} (no such file)`)
        continue
      }
      if (anchor === undefined || anchor === '') continue
      if (!path.endsWith('.md')) {
        broken.push(`${where} (an anchor into a file that is not markdown)`)
        continue
      }
      if (!headingAnchors(readFileSync(path, 'utf8')).has(decodeURIComponent(anchor).toLowerCase())) {
        broken.push(`${where} (no such heading)`)
      }
    }
  }
  return broken
}

describe('documentation', () => {
  test(`README.md has at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move detail into docs/`)
  })

  test('every relative link in README.md, CONTRIBUTING.md and docs/*.md leads to a file and heading that exist', () => {
    const pages = documentationPages(ROOT)
    assert.ok(
      pages.some((page) => page.endsWith('CONTRIBUTING.md')),
      'CONTRIBUTING.md exists',
    )
    assert.ok(pages.filter((page) => page.includes(`${join(ROOT, 'docs')}`)).length >= 10, 'the docs/ pages exist')
    assert.deepEqual(brokenLinks(ROOT, pages), [])
  })

  test('the link check finds a missing file, a missing heading and a link into a folder that is gone', () => {
    const root = mkdtempSync(join(tmpdir(), 'folio-docs-'))
    mkdirSync(join(root, 'docs'))
    writeFileSync(
      join(root, 'docs', 'guide.md'),
      [
        '# Guide',
        '',
        '## Running `folio` twice',
        '',
        '## Running `folio` twice',
        '',
        'See [twice](#running-folio-twice-1) and [the start](../README.md#quick-start).',
        '```sh',
        '[not a link](missing.md)',
        '```',
      ].join('\n'),
    )
    writeFileSync(
      join(root, 'README.md'),
      [
        '# Folio',
        '',
        '## Quick start',
        '',
        '[guide](docs/guide.md#running-folio-twice) [gone](docs/gone.md) [bad](docs/guide.md#nowhere)',
        '[site](https://example.com/x.md) `[code](nope.md)` [self](#quick-start) [old](old/)',
      ].join('\n'),
    )
    assert.deepEqual(brokenLinks(root, documentationPages(root)), [
      'README.md: docs/gone.md (no such file)',
      'README.md: docs/guide.md#nowhere (no such heading)',
      'README.md: old/ (no such file)',
    ])
  })
})
