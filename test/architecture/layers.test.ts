import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, dirname, resolve } from 'node:path'
import { describe, test } from 'node:test'

/**
 * The dependency rule of the style guide: imports point inwards.
 * core imports nothing of Folio's outer layers and does no I/O; app does not
 * know HTTP or drivers; only main.ts and cli/ pick drivers.
 */
const SRC = resolve(import.meta.dirname, '..', '..', 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => m[1] ?? m[2] ?? '',
  )
}

function layerOf(path: string): string {
  return relative(SRC, path).split('/')[0] ?? ''
}

const files = sourceFiles(SRC)

describe('layering', () => {
  test('core/ imports only core/ and pure node modules (no fs, net, http, child_process)', () => {
    const forbiddenNode = /^node:(fs|fs\/promises|net|http|https|child_process|dgram|dns|tls)$/
    for (const file of files.filter((f) => layerOf(f) === 'core')) {
      for (const spec of importsOf(file)) {
        if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec)
          assert.equal(layerOf(target), 'core', `${relative(SRC, file)} imports ${spec}`)
        } else {
          assert.ok(!forbiddenNode.test(spec), `${relative(SRC, file)} imports ${spec}`)
        }
      }
    }
  })

  test('app/ does not import protocols/, drivers/, cli/ or an HTTP framework', () => {
    for (const file of files.filter((f) => layerOf(f) === 'app')) {
      for (const spec of importsOf(file)) {
        if (spec.startsWith('.')) {
          const layer = layerOf(resolve(dirname(file), spec))
          assert.ok(!['protocols', 'drivers', 'cli', 'main.ts'].includes(layer), `${relative(SRC, file)} imports ${spec}`)
        } else {
          assert.ok(!/^(fastify|@fastify\/|better-sqlite3|pg)/.test(spec), `${relative(SRC, file)} imports ${spec}`)
        }
      }
    }
  })

  test('only main.ts and cli/ import drivers/', () => {
    for (const file of files) {
      const layer = layerOf(file)
      if (layer === 'drivers' || layer === 'main.ts' || layer === 'cli') continue
      for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
        const target = layerOf(resolve(dirname(file), spec))
        assert.notEqual(target, 'drivers', `${relative(SRC, file)} imports ${spec}`)
      }
    }
  })

  test('ports/ holds interfaces only: no imports of drivers or protocols', () => {
    for (const file of files.filter((f) => layerOf(f) === 'ports')) {
      for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
        const target = layerOf(resolve(dirname(file), spec))
        assert.ok(['ports', 'core'].includes(target), `${relative(SRC, file)} imports ${spec}`)
      }
    }
  })
})
