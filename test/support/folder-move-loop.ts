// Child process of test/e2e/folder-crash.test.ts: moves one folder back and forth
// between two parents forever, printing a line after each committed move, until killed.
import { openSqliteStore } from '../../src/drivers/metadata-sqlite/index.js'

const [path, folderId, first, second] = process.argv.slice(2)
if (!path || !folderId || !first || !second)
  throw new Error('usage: folder-move-loop <db> <folder> <parent1> <parent2>')
const store = await openSqliteStore({ path })
for (let n = 0; ; n++) {
  const folder = await store.folders.findById(folderId)
  if (!folder) throw new Error('the folder is gone')
  const target = folder.parentId === first ? second : first
  await store.folders.update(folder.id, folder.revision, { parentId: target, updatedAt: n, updatedBy: 'mover' })
  process.stdout.write(`moved ${n}\n`)
}
