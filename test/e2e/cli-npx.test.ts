import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, test } from 'node:test'

const run = promisify(execFile)
const ROOT = join(import.meta.dirname, '..', '..')

/**
 * `npx folio` in an install folder runs the command at once: it neither installs the
 * project into npm's npx cache (seconds the first time, and a tree reloaded on every run)
 * nor asks the registry. An install folder is built from the repository's package.json and
 * link script, with an empty npm cache.
 */
describe('npx folio in an install folder', () => {
  let home: string
  let cache: string

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'folio-npx-'))
    cache = join(home, 'npm-cache')
    await copyFile(join(ROOT, 'package.json'), join(home, 'package.json'))
    await mkdir(join(home, 'scripts'))
    await copyFile(join(ROOT, 'scripts', 'link-bin.mjs'), join(home, 'scripts', 'link-bin.mjs'))
    await symlink(join(ROOT, 'bin'), join(home, 'bin'))
    await mkdir(join(home, 'node_modules'))
    await run(process.execPath, [join(home, 'scripts', 'link-bin.mjs')])
  })
  after(() => rm(home, { recursive: true, force: true }))

  test('--help prints the usage without installing anything into the npx cache', async () => {
    const env = {
      PATH: `${join(home, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
      HOME: home,
      npm_config_cache: cache,
      // No registry is reachable: a run that asked one would fail rather than wait.
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_update_notifier: 'false',
    }
    const { stdout } = await run('npx', ['folio', '--help'], { cwd: home, env })
    assert.match(stdout, /Usage: folio/)
    const cached: string[] = await readdir(cache).catch(() => [])
    assert.equal(cached.includes('_npx'), false, `npx installed the project into its cache: ${cached.join(', ')}`)
  })
})
