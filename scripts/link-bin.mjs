#!/usr/bin/env node
// Links node_modules/.bin/folio to bin/folio.js after an install (the prepare script).
// Why not package.json "bin": for a bin of the project itself, `npx folio` installs the
// project into npm's npx cache (a file: dependency, reified with all its dependencies the
// first time: seconds) and reloads that tree on every run. A command found in
// node_modules/.bin is run at once, as fast as `node bin/folio.js`.
import { lstat, mkdir, rm, symlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const binDir = join(root, 'node_modules', '.bin')
const link = join(binDir, 'folio')

// A node_modules that is itself a link (a git worktree sharing another checkout's) is
// that checkout's to change.
const modules = await lstat(join(root, 'node_modules')).catch(() => undefined)
if (modules && !modules.isSymbolicLink()) {
  await mkdir(binDir, { recursive: true })
  await rm(link, { force: true })
  await symlink(join('..', '..', 'bin', 'folio.js'), link)
}
