import assert from 'node:assert/strict'
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
// @ts-expect-error: a plain JavaScript script without type declarations
import { checkDependencies } from '../../scripts/check-dependencies.mjs'

/**
 * The dependency rules of .dependency-cruiser.cjs, checked by dependency-cruiser: they hold
 * for Folio's sources, and each of them refuses a file planted in a copy that breaks it.
 */

interface Violation {
  rule: string
  from: string
  to: string
}

const check: (root?: string) => Promise<Violation[]> = checkDependencies
const REPO = resolve(import.meta.dirname, '..', '..')

/** One planted file per rule: its path in src/, its text and the rule it must break. */
const PLANTED: Array<{ rule: string; path: string; text: string }> = [
  {
    rule: 'core-no-io-builtins',
    path: 'core/planted-io.ts',
    text: "import { readFileSync } from 'node:fs'\nexport const read = readFileSync\n",
  },
  {
    rule: 'core-packages-allow-list',
    path: 'core/planted-package.ts',
    text: "import Database from 'better-sqlite3'\nexport const db = Database\n",
  },
  {
    rule: 'core-imports-only-core',
    path: 'core/planted-outer.ts',
    text: "import type { AppContext } from '../app/context.js'\nexport type Ctx = AppContext\n",
  },
  {
    rule: 'ports-import-only-core',
    path: 'ports/planted.ts',
    text: "import type { App } from '../app/create-app.js'\nexport type A = App\n",
  },
  {
    rule: 'app-imports-core-and-ports',
    path: 'app/planted-protocol.ts',
    text: "import type { HttpPlugin } from '../protocols/http/server.js'\nexport type P = HttpPlugin\n",
  },
  {
    rule: 'app-no-packages',
    path: 'app/planted-package.ts',
    text: "import { request } from 'undici'\nexport const r = request\n",
  },
  {
    rule: 'protocols-not-each-other',
    path: 'protocols/wopi/planted.ts',
    text: "import { success } from '../portal/envelope.js'\nexport const s = success\n",
  },
  {
    rule: 'protocols-through-app',
    path: 'protocols/onlyoffice/planted.ts',
    text: "import type { MetadataStore } from '../../ports/metadata-store.js'\nexport type S = MetadataStore\n",
  },
  {
    rule: 'protocols-through-app-index',
    path: 'protocols/portal/planted.ts',
    text: "import { fileFor } from '../../app/files/file-changes.js'\nexport const f = fileFor\n",
  },
  {
    rule: 'drivers-import-ports-and-core',
    path: 'drivers/blob-fs/planted.ts',
    text: "import { getFile } from '../../app/files/files.js'\nexport const g = getFile\n",
  },
  {
    rule: 'only-main-and-cli-pick-drivers',
    path: 'app/planted-driver.ts',
    text: "import { openSqliteStore } from '../drivers/metadata-sqlite/index.js'\nexport const o = openSqliteStore\n",
  },
  {
    rule: 'process-is-a-leaf',
    path: 'process/planted.ts',
    text: "import type { Config } from '../config/load.js'\nexport type C = Config\n",
  },
  {
    rule: 'config-is-a-leaf',
    path: 'config/planted.ts',
    text: "import type { AppContext } from '../app/context.js'\nexport type C = AppContext\n",
  },
]

describe('dependency rules (dependency-cruiser)', () => {
  let copy: string

  before(async () => {
    copy = await mkdtemp(join(tmpdir(), 'folio-layers-'))
    await cp(join(REPO, 'src'), join(copy, 'src'), { recursive: true })
    for (const planted of PLANTED) await writeFile(join(copy, 'src', planted.path), planted.text)
  })

  after(async () => {
    await rm(copy, { recursive: true, force: true })
  })

  test('every rule holds for the sources', async () => {
    const violations = await check(REPO)
    assert.deepEqual(violations, [])
  })

  test('each rule refuses a file planted to break it', async () => {
    const violations = await check(copy)
    for (const planted of PLANTED) {
      const from = `src/${planted.path.replace(/\.ts$/, '.js')}`
      const hit = violations.find((v) => v.rule === planted.rule && v.from === from)
      assert.ok(hit, `${planted.rule} did not refuse ${from}; got ${JSON.stringify(violations)}`)
    }
    // Nothing but the planted files is refused.
    const plantedFiles = new Set(PLANTED.map((p) => `src/${p.path.replace(/\.ts$/, '.js')}`))
    assert.deepEqual(
      violations.filter((v) => !plantedFiles.has(v.from)),
      [],
    )
  })
})
