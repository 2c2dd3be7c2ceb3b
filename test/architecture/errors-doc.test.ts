import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { ERROR_CODES } from '../../src/core/errors.js'
import { PORTAL_STATUS } from '../../src/protocols/portal/errors.js'

test('docs/ERRORS.md lists exactly the error catalog, with the portal status of each', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'ERRORS.md'), 'utf8')
  const rows = [...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])])
  assert.deepEqual(rows.map(([code]) => code).sort(), [...ERROR_CODES].sort())
  for (const [code, status] of rows) {
    assert.equal(PORTAL_STATUS[code as keyof typeof PORTAL_STATUS], status, String(code))
  }
})
