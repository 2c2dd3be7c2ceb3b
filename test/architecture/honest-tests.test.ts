/**
 * Rules every test file keeps so that a test fails only for its reason: an
 * `assert.rejects` names the error it expects (a bare one passes on any failure, a typo
 * or a crash included).
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'

/** The text of each call `name(...)` in `source`, found by matching its parentheses. */
export function callsOf(source: string, name: string): Array<{ line: number; args: number }> {
  const calls: Array<{ line: number; args: number }> = []
  let at = source.indexOf(`${name}(`)
  while (at !== -1) {
    let depth = 1
    let commas = 0
    let quote: string | undefined
    let end = at + name.length + 1
    let lastSignificant = ''
    for (; end < source.length && depth > 0; end++) {
      const c = source.charAt(end)
      if (quote !== undefined) {
        if (c === '\\') end++
        else if (c === quote) quote = undefined
        continue
      }
      if (c === "'" || c === '"' || c === '`') quote = c
      else if ('([{'.includes(c)) depth++
      else if (')]}'.includes(c)) depth--
      else if (c === ',' && depth === 1) commas++
      if (depth > 0 && !/\s/.test(c)) lastSignificant = c
    }
    // A trailing comma before the closing parenthesis separates no argument.
    const args = commas + 1 - (lastSignificant === ',' ? 1 : 0)
    calls.push({ line: source.slice(0, at).split('\n').length, args })
    at = source.indexOf(`${name}(`, end)
  }
  return calls
}

test('callsOf counts arguments, ignoring commas inside nested calls, strings and a trailing comma', () => {
  const source = "assert.rejects(f(a, b))\nassert.rejects(\n  g('x, y'),\n  { code: 'E' },\n)\n"
  assert.deepEqual(callsOf(source, 'assert.rejects'), [{ line: 1, args: 1 }, { line: 2, args: 2 }])
})

test('every assert.rejects names the error it expects', () => {
  const files = execFileSync('git', ['ls-files', '*.test.ts', '*.contract.ts', 'test/support/*.ts'], { encoding: 'utf8' })
    .split('\n')
    .filter((path) => path !== '' && path !== 'test/architecture/honest-tests.test.ts')
  const bare = files.flatMap((path) =>
    callsOf(readFileSync(path, 'utf8'), 'assert.rejects')
      .filter((call) => call.args < 2)
      .map((call) => `${path}:${call.line}`),
  )
  assert.deepEqual(bare, [])
})
