#!/usr/bin/env node
// Checks Folio's dependency rules (.dependency-cruiser.cjs) with dependency-cruiser.
//
// TypeScript 7 ships no JavaScript compiler API, which dependency-cruiser needs to read
// .ts files, so the sources are first turned into JavaScript in a scratch folder with
// esbuild (already used by tsx). Type-only imports are turned into plain imports before
// that, and esbuild keeps every import (verbatimModuleSyntax), so an `import type` across
// a layer boundary is caught like any other import.
//
//   node scripts/check-dependencies.mjs [root]   (root: a folder holding src/; default .)
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cruise } from 'dependency-cruiser'
import { transform } from 'esbuild'

const HERE = dirname(fileURLToPath(import.meta.url))
const REPO = resolve(HERE, '..')

/** Every import, type-only ones included, as a plain import. */
export function typeImportsAsValues(source) {
  return source.replace(
    /^(import|export)\s+(type\s+)?(\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+)(\s+from\s+['"][^'"]+['"])/gm,
    (_all, keyword, _type, names, from) => `${keyword} ${names.replace(/([{,]\s*)type\s+(?=\w)/g, '$1')}${from}`,
  )
}

async function sourceFiles(dir) {
  const entries = await readdir(dir, { withFileTypes: true })
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return sourceFiles(path)
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
    }),
  )
  return nested.flat()
}

/** Writes `root`/src as JavaScript (every import kept) into a scratch folder; returns it. */
async function javascriptCopy(root) {
  const scratch = await mkdtemp(join(tmpdir(), 'folio-depcruise-'))
  for (const file of await sourceFiles(join(root, 'src'))) {
    const { code } = await transform(typeImportsAsValues(await readFile(file, 'utf8')), {
      loader: 'ts',
      format: 'esm',
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
    })
    const target = join(scratch, relative(root, file)).replace(/\.ts$/, '.js')
    await mkdir(dirname(target), { recursive: true })
    await writeFile(target, code)
  }
  await cp(join(REPO, 'package.json'), join(scratch, 'package.json'))
  await symlink(join(REPO, 'node_modules'), join(scratch, 'node_modules'), 'dir')
  return scratch
}

/**
 * The violations of the rules in .dependency-cruiser.cjs in `root`/src, as
 * [{ rule, from, to }]; an empty list when every rule holds.
 */
export async function checkDependencies(root = REPO) {
  const require = createRequire(import.meta.url)
  const config = require(join(REPO, '.dependency-cruiser.cjs'))
  const scratch = await javascriptCopy(resolve(root))
  const cwd = process.cwd()
  try {
    process.chdir(scratch)
    const result = await cruise(['src'], {
      ruleSet: { forbidden: config.forbidden },
      validate: true,
      doNotFollow: { path: 'node_modules' },
      enhancedResolveOptions: { extensions: ['.js'] },
      moduleSystems: ['es6'],
    })
    const output = typeof result.output === 'string' ? JSON.parse(result.output) : result.output
    return output.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }))
  } finally {
    process.chdir(cwd)
    await rm(scratch, { recursive: true, force: true })
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const violations = await checkDependencies(process.argv[2] ?? REPO)
  for (const v of violations) console.error(`${v.rule}: ${v.from} -> ${v.to}`)
  if (violations.length > 0) process.exit(1)
  console.log('dependency rules hold')
}
