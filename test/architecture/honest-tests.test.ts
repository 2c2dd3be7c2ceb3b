/**
 * Rules every test file keeps so that a test fails only for its reason: an
 * `assert.rejects` names the error it expects (a bare one passes on any failure, a typo
 * or a crash included), and no assertion measures elapsed wall-clock time (a loaded
 * machine makes it fail, or a broken delay pass; wait on the event, or use a fake clock).
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
  assert.deepEqual(callsOf(source, 'assert.rejects'), [
    { line: 1, args: 1 },
    { line: 2, args: 2 },
  ])
})

/** The test sources the rules read (this file, which plants examples, left out). */
function testSources(): string[] {
  return execFileSync('git', ['ls-files', '*.test.ts', '*.contract.ts', 'test/support/*.ts'], { encoding: 'utf8' })
    .split('\n')
    .filter((path) => path !== '' && path !== 'test/architecture/honest-tests.test.ts')
}

/** "now minus a moment taken earlier" (`Date.now() - started`), not "now minus a constant". */
const ELAPSED = /\b(?:Date|performance)\.now\(\)\s*-\s*[A-Za-z_$]/

/**
 * Lines of `source` whose assertion measures elapsed time: the measurement on the
 * assertion's line, or a name given one (`const took = Date.now() - t0`, `took:
 * Date.now() - t0`) used on an assertion's line.
 */
export function elapsedTimeAssertions(source: string): number[] {
  const lines = source.split('\n')
  const names = new Set<string>()
  for (const line of lines) {
    const named = /([A-Za-z_$][\w$]*)\s*[:=]\s*\(?\s*(?:Date|performance)\.now\(\)\s*-\s*[A-Za-z_$]/.exec(line)
    if (named?.[1] !== undefined) names.add(named[1])
  }
  const found: number[] = []
  for (const [index, line] of lines.entries()) {
    if (!/\bassert\b/.test(line)) continue
    const usesName = [...names].some((name) => new RegExp(`\\b${name.replace('$', '\\$')}\\b`).test(line))
    if (ELAPSED.test(line) || usesName) found.push(index + 1)
  }
  return found
}

test('elapsedTimeAssertions finds a timed assertion, directly or through a name, and lets a cut-off pass', () => {
  const source = [
    'const before = Date.now()',
    'await session.disconnect()',
    "assert.ok(Date.now() - before >= 25, 'waited')",
    'const took = performance.now() - t0',
    'assert.ok(took < 5000)',
    'assert.deepEqual(await store.sweepTemporary(Date.now() - 5_000), { files: 1 })',
    'console.log(`took ${Date.now() - before} ms`)',
  ].join('\n')
  assert.deepEqual(elapsedTimeAssertions(source), [3, 5])
})

test('no assertion measures elapsed wall-clock time', () => {
  const timed = testSources().flatMap((path) =>
    elapsedTimeAssertions(readFileSync(path, 'utf8')).map((line) => `${path}:${line}`),
  )
  assert.deepEqual(timed, [])
})

test('every assert.rejects names the error it expects', () => {
  const files = testSources()
  const bare = files.flatMap((path) =>
    callsOf(readFileSync(path, 'utf8'), 'assert.rejects')
      .filter((call) => call.args < 2)
      .map((call) => `${path}:${call.line}`),
  )
  assert.deepEqual(bare, [])
})
