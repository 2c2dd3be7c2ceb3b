import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'

const ROOT = join(import.meta.dirname, '..', '..')

async function startFlags(): Promise<string[]> {
  const pkg: unknown = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'))
  const start =
    typeof pkg === 'object' && pkg !== null && 'scripts' in pkg && typeof pkg.scripts === 'object'
      ? Reflect.get(pkg.scripts ?? {}, 'start')
      : undefined
  assert.equal(typeof start, 'string')
  const flags = /^node((?: --\S+)*) bin\/folio\.js serve$/.exec(String(start))?.[1]?.trim()
  assert.ok(flags, `package.json start: ${String(start)}`)
  return flags.split(' ')
}

/**
 * Folio is started with node flags (a smaller V8 young generation, one V8 helper thread:
 * see BENCHMARKS.md, scenarios 1 and 7) by `npm start`, the Docker image and the systemd
 * unit; the bench takes them from `npm start`. This keeps the three launchers in step.
 */
test('npm start, the Docker image and the systemd unit start Folio with the same node flags', async () => {
  const flags = await startFlags()
  assert.deepEqual(flags, ['--max-semi-space-size=2', '--v8-pool-size=1'])

  const dockerfile = await readFile(join(ROOT, 'deploy', 'Dockerfile'), 'utf8')
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1]
  assert.ok(cmd, 'the Dockerfile has a CMD')
  const argv: unknown = JSON.parse(cmd)
  assert.deepEqual(argv, ['node', ...flags, 'bin/folio.js', 'serve'])

  const unit = await readFile(join(ROOT, 'deploy', 'folio.service'), 'utf8')
  const exec = /^ExecStart=(.*)$/m.exec(unit)?.[1]
  assert.equal(exec, `/opt/folio/node_modules/.bin/node ${flags.join(' ')} /opt/folio/bin/folio.js serve`)
})

/**
 * A flag internal to V8 can disappear in any Node.js release, and node then refuses to
 * start (exit 9: Node.js 24 dropped --ticks-before-optimization and
 * --max-bytecode-size-for-early-opt, which Folio's start used on Node.js 20). The flags
 * Node.js documents and keeps are the ones it accepts in NODE_OPTIONS.
 */
test('every start flag is one Node.js documents (accepted in NODE_OPTIONS), not one internal to V8', async () => {
  for (const flag of await startFlags()) {
    const name = flag.split('=')[0] ?? flag
    assert.ok(process.allowedNodeEnvironmentFlags.has(name), `${name} is not a documented Node.js flag`)
  }
  assert.equal(process.allowedNodeEnvironmentFlags.has('--ticks-before-optimization'), false)
})
