/**
 * Every source file is as the formatter (Prettier, settings in .prettierrc.json) writes it,
 * so a change never mixes its substance with layout. `npm run format` rewrites them.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import * as prettier from 'prettier'

const FORMATTED = /^(src|test|bench|scripts|bin|web\/src)\/.*\.(ts|tsx|mjs|js)$/

test('every source file is formatted (npm run format)', async () => {
  const files = execFileSync('git', ['ls-files'], { encoding: 'utf8' })
    .split('\n')
    .filter((path) => FORMATTED.test(path))
  assert.ok(files.length > 100, `only ${files.length} source files found`)
  const unformatted: string[] = []
  for (const path of files) {
    const options = await prettier.resolveConfig(path)
    const source = readFileSync(path, 'utf8')
    if (!(await prettier.check(source, { ...options, filepath: path }))) unformatted.push(path)
  }
  assert.deepEqual(unformatted, [], 'run npm run format')
})

test('the check finds an unformatted file', async () => {
  const options = await prettier.resolveConfig('src/main.ts')
  assert.equal(await prettier.check('const a = {b:1};\n', { ...options, filepath: 'src/x.ts' }), false)
})
