import { open, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { MiB } from './options.js'

const CHUNK = Buffer.alloc(MiB, 0x5a)

/**
 * Writes `size` bytes to a scratch file in `dir`, syncs and deletes it, so that the next
 * write of that size finds that much memory just freed by the page cache.
 *
 * Why: on a virtual machine the host backs guest memory on first touch, and the kernel
 * hands out the most recently freed pages first. A 1 GiB write into memory the guest has
 * not used lately measured 380-450 MiB/s (2.4 s of system time), the same write into
 * pages a deleted file had just freed 2,300-2,700 MiB/s (0.2 s). Without this step the
 * save that follows a deletion (the raw baseline deletes its file after each save) gets
 * the cheap pages and the next one the dear ones, and the ratio measures that order.
 * Every timed save of scenarios 3 and 4 is preceded by this step, baselines included.
 */
export async function freeRecentPages(dir: string, size: number): Promise<void> {
  const path = join(dir, 'page-cache-scratch')
  const file = await open(path, 'w')
  try {
    for (let written = 0; written < size; written += CHUNK.length) {
      await file.write(CHUNK, 0, Math.min(CHUNK.length, size - written))
    }
    await file.sync()
  } finally {
    await file.close()
    await unlink(path)
  }
}
