import { open, mkdir, readdir, readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'

/** Creates `path` (0700) when missing; false when it exists and holds anything. */
export async function makeEmptyFolder(path: string): Promise<boolean> {
  try {
    return (await readdir(path)).length === 0
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') {
      await mkdir(path, { recursive: true, mode: 0o700 })
      return true
    }
    throw error
  }
}

/** Writes `text` as folder/name through a temp file that is fsynced, then renamed into place. */
export async function writeFolderFile(folder: string, name: string, text: string): Promise<void> {
  const target = join(folder, name)
  const temporary = `${target}.tmp`
  const handle = await open(temporary, 'w', 0o600)
  try {
    await handle.writeFile(text)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(temporary, target)
}

/** folder/name as text, or undefined when there is no such file. */
export async function readFolderFile(folder: string, name: string): Promise<string | undefined> {
  try {
    return await readFile(join(folder, name), 'utf8')
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined
    throw error
  }
}
