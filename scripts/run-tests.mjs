#!/usr/bin/env node
// Finds every *.test.ts under src/ and test/ and hands them to node's own test
// runner with the tsx loader. Node 20's --test does not expand ** globs itself.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'))
const searchRoots = roots.length > 0 ? roots : ['src', 'test']

function collect(path, out) {
  const info = statSync(path)
  if (info.isFile()) {
    if (path.endsWith('.test.ts')) out.push(path)
    return out
  }
  for (const entry of readdirSync(path).sort()) {
    if (entry === 'node_modules') continue
    collect(join(path, entry), out)
  }
  return out
}

const files = searchRoots.flatMap((root) => collect(root, []))
if (files.length === 0) {
  console.error('no test files found under', searchRoots.join(', '))
  process.exit(1)
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...flags, ...files], {
  stdio: 'inherit',
})
process.exit(result.status ?? 1)
