import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { chooseRuntime, requiredMajor } from '../../bin/runtime.js'

const ROOT = join(import.meta.dirname, '..', '..')

async function readJson(path: string): Promise<Record<string, unknown>> {
  const value: unknown = JSON.parse(await readFile(join(ROOT, path), 'utf8'))
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), path)
  return Object.fromEntries(Object.entries(value))
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value)) : {}
}

/** The Node.js release `npm ci` installs (optionalDependencies node-linux-*), one for every platform. */
async function shippedRelease(): Promise<string> {
  const pkg = await readJson('package.json')
  const optional = record(pkg['optionalDependencies'])
  const releases = new Set(
    Object.entries(optional)
      .filter(([name]) => name.startsWith('node-'))
      .map(([, v]) => v),
  )
  assert.equal(releases.size, 1, `one Node.js release for every platform: ${[...releases].join(', ')}`)
  const [release] = releases
  assert.match(String(release), /^\d+\.\d+\.\d+$/, 'an exact release, not a range')
  return String(release)
}

test('engines, the Node.js npm ci installs, its lockfile entries and the Docker image name one Node.js', async () => {
  const pkg = await readJson('package.json')
  const release = await shippedRelease()
  const major = requiredMajor(record(pkg['engines'])['node'])
  assert.equal(Number(release.split('.')[0]), major)

  const lock = await readJson('package-lock.json')
  const packages = record(lock['packages'])
  for (const name of Object.keys(record(pkg['optionalDependencies']))) {
    const entry = record(packages[`node_modules/${name}`])
    assert.equal(entry['version'], release, `${name} in package-lock.json`)
    assert.equal(entry['optional'], true, `${name} is optional (installed only on its platform)`)
    assert.equal(entry['hasInstallScript'], undefined, `${name} runs no install script`)
  }

  const dockerfile = await readFile(join(ROOT, 'deploy', 'Dockerfile'), 'utf8')
  const images = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1])
  assert.deepEqual(images, [`node:${release}-bookworm`, `node:${release}-bookworm-slim`])
})

test('the tests run on the Node.js Folio needs', async () => {
  const pkg = await readJson('package.json')
  const major = Number(process.versions.node.split('.')[0])
  assert.ok(major >= requiredMajor(record(pkg['engines'])['node']), `running on Node.js ${process.version}`)
})

/**
 * npm runs a dependency's install scripts only when allowScripts says so; every package of
 * the lockfile with one has an entry (true: reviewed and needed; false: never run).
 */
test('allowScripts decides for every dependency with an install script, esbuild and better-sqlite3 named', async () => {
  const pkg = await readJson('package.json')
  const allow = record(pkg['allowScripts'])
  assert.equal(allow['esbuild'], true)
  assert.equal(allow['better-sqlite3'], false)
  const lock = await readJson('package-lock.json')
  const withScripts = Object.entries(record(lock['packages']))
    .filter(([, entry]) => record(entry)['hasInstallScript'] === true)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
  for (const name of withScripts) assert.equal(typeof allow[name], 'boolean', `allowScripts has no entry for ${name}`)
})

test('the folio command runs on a new enough Node.js, runs again under the shipped one, or refuses', () => {
  const engines = '>=24'
  assert.deepEqual(chooseRuntime({ version: 'v24.21.0', engines, shipped: undefined, reexeced: false }), {
    action: 'run',
  })
  assert.deepEqual(chooseRuntime({ version: 'v26.1.0', engines, shipped: '/x/node', reexeced: false }), {
    action: 'run',
  })
  assert.deepEqual(chooseRuntime({ version: 'v20.20.2', engines, shipped: '/x/node', reexeced: false }), {
    action: 'reexec',
  })
  const refused = chooseRuntime({ version: 'v20.20.2', engines, shipped: undefined, reexeced: false })
  assert.equal(refused.action, 'refuse')
  assert.match(
    'message' in refused ? refused.message : '',
    /Folio runs on Node\.js 24 or newer; this is Node\.js v20\.20\.2/,
  )
  assert.equal(chooseRuntime({ version: 'v22.3.0', engines, shipped: '/x/node', reexeced: true }).action, 'refuse')
  assert.throws(() => requiredMajor('^24'), /engines\.node must read ">=N"/)
})
