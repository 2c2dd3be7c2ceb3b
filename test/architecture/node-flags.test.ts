import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'

const ROOT = join(import.meta.dirname, '..', '..')

/**
 * Folio is started with node flags (a smaller V8 young generation, no optimizing compiler
 * for start-up's one-off code, no heap shrinking after a quiet spell: see BENCHMARKS.md,
 * scenarios 1, 2 and 7) by `npm start`, the Docker image
 * and the systemd unit; the bench takes them from `npm start`. This keeps the three
 * launchers in step.
 */
test('npm start, the Docker image and the systemd unit start Folio with the same node flags', async () => {
  const pkg: unknown = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'))
  const start =
    typeof pkg === 'object' && pkg !== null && 'scripts' in pkg && typeof pkg.scripts === 'object'
      ? Reflect.get(pkg.scripts ?? {}, 'start')
      : undefined
  assert.equal(typeof start, 'string')
  const fromNpm = /^node((?: --\S+)*) bin\/folio\.js serve$/.exec(String(start))?.[1]?.trim()
  assert.ok(fromNpm, `package.json start: ${String(start)}`)
  assert.match(fromNpm, /--max-semi-space-size=2/)
  assert.match(fromNpm, /--ticks-before-optimization=20 --max-bytecode-size-for-early-opt=0/)
  assert.match(fromNpm, /--no-memory-reducer/)

  const dockerfile = await readFile(join(ROOT, 'deploy', 'Dockerfile'), 'utf8')
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1]
  assert.ok(cmd, 'the Dockerfile has a CMD')
  const argv: unknown = JSON.parse(cmd)
  assert.deepEqual(argv, ['node', ...fromNpm.split(' '), 'bin/folio.js', 'serve'])

  const unit = await readFile(join(ROOT, 'deploy', 'folio.service'), 'utf8')
  const exec = /^ExecStart=(.*)$/m.exec(unit)?.[1]
  assert.equal(exec, `/usr/bin/node ${fromNpm} /opt/folio/bin/folio.js serve`)
})
